"""``amaryllis poll --once`` and ``amaryllis send --once`` through click's CliRunner, configured only
by environment variables, against real Dovecot and the SMTP sink."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from app.cli import main
from tests.mail.conftest import empty_config, open_league
from tests.servers import imap_append


@pytest.mark.dovecot
def test_poll_and_send_once(tmp_path, mail_user, smtp_sink, db_url, factory) -> None:
    open_league(factory, "spring")
    env = {
        "AMARYLLIS_CONFIG": str(empty_config(tmp_path)),
        "AMARYLLIS_DATA_DIR": str(tmp_path),
        "AMARYLLIS_DATABASE_URL": db_url,
        "AMARYLLIS_IMAP_URL": mail_user.imap_url,
        "AMARYLLIS_SMTP_URL": smtp_sink.url,
        "AMARYLLIS_SERVER_ADDRESS": mail_user.address,
    }
    imap_append(
        mail_user.imap_url,
        [b"From: p@example.com\r\nSubject: help\r\nMessage-ID: <cli1@example.com>\r\n\r\nhelp\r\n"],
    )
    runner = CliRunner()
    res = runner.invoke(main, ["poll", "--once"], env=env)
    assert res.exit_code == 0, res.output
    assert "stored 1 new mail(s), processed 1" in res.output
    res = runner.invoke(main, ["send", "--once"], env=env)
    assert res.exit_code == 0, res.output
    assert "sent 1," in res.output
    [reply] = smtp_sink.wait_for(1)
    assert reply.rcpt_tos == ["p@example.com"]
    res = runner.invoke(main, ["send", "--requeue", "999"], env=env)
    assert res.exit_code == 0 and "requeued 0" in res.output


def test_poll_without_server_fails_cleanly(tmp_path, db_url) -> None:
    from tests.servers import free_port

    env = {
        "AMARYLLIS_CONFIG": str(empty_config(tmp_path)),
        "AMARYLLIS_DATABASE_URL": db_url,
        "AMARYLLIS_IMAP_URL": f"imap://a:b@127.0.0.1:{free_port()}/INBOX",
    }
    res = CliRunner().invoke(main, ["poll", "--once"], env=env)
    assert res.exit_code == 1
    assert "IMAP server 127.0.0.1" in res.output and "nothing was lost" in res.output


def test_retry_shunted_option(tmp_path, db_url, factory) -> None:
    from app.db.models import InboundMessage
    from app.db.session import transaction
    from tests.servers import free_port

    with transaction(factory) as s:
        s.add(
            InboundMessage(
                message_key="<s@x>", raw=b"Subject: help\r\n\r\n", status="shunted", error="x"
            )
        )
    env = {
        "AMARYLLIS_CONFIG": str(empty_config(tmp_path)),
        "AMARYLLIS_DATABASE_URL": db_url,
        "AMARYLLIS_IMAP_URL": f"imap://a:b@127.0.0.1:{free_port()}/INBOX",
    }
    res = CliRunner().invoke(main, ["poll", "--once", "--retry-shunted"], env=env)
    assert "1 shunted mail(s) back in the queue" in res.output
    with factory() as s:
        row = s.query(InboundMessage).one()
        assert row.status == "ignored" and row.rules == ["no-sender"]  # processed again
