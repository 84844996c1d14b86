"""Crash tests: the real CLI in a subprocess, SIGKILLed at a crash point (``AMARYLLIS_CRASH_AT``),
then restarted. After the restart every mail is processed once and every reply delivered at least
once; a reply whose outcome the killed sender could not know is sent again with the same
Message-ID (issue 9.3), so the copies fold."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from app.db.models import InboundMessage, OutboxMessage
from tests.mail.conftest import empty_config, open_league
from tests.servers import imap_append, imap_list

ROOT = Path(__file__).resolve().parents[2]
SHEET = "Bolt{n}: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def cli(
    args: list[str], env: dict[str, str], crash: str | None = None
) -> subprocess.CompletedProcess:
    full = dict(os.environ, **env)
    full.pop("AMARYLLIS_CRASH_AT", None)
    if crash:
        full["AMARYLLIS_CRASH_AT"] = crash
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        env=full,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def environment(
    tmp_path: Path, db_url: str, imap_url: str, smtp_url: str, address: str
) -> dict[str, str]:
    return {
        "AMARYLLIS_CONFIG": str(empty_config(tmp_path)),
        "AMARYLLIS_DATA_DIR": str(tmp_path),
        "AMARYLLIS_DATABASE_URL": db_url,
        "AMARYLLIS_IMAP_URL": imap_url,
        "AMARYLLIS_SMTP_URL": smtp_url,
        "AMARYLLIS_SERVER_ADDRESS": address,
        "AMARYLLIS_ORGANIZERS": '["org@example.com"]',
    }


def sheet_mail(n: int, to: str) -> bytes:
    return (
        f"From: p{n}@example.com\r\nTo: {to}\r\nSubject: entry\r\nMessage-ID: <crash{n}@example.com>\r\n"
        f"Content-Type: text/plain; charset=UTF-8\r\n\r\n" + SHEET.format(n=n).replace("\n", "\r\n")
    ).encode()


@pytest.mark.dovecot
@pytest.mark.parametrize("processed_folder", ["", "Processed"])
def test_poller_killed_between_storing_and_flagging(
    processed_folder, tmp_path, mail_user, smtp_sink, db_url, factory
) -> None:
    open_league(factory, "spring")
    env = environment(tmp_path, db_url, mail_user.imap_url, smtp_sink.url, mail_user.address)
    env["AMARYLLIS_IMAP_PROCESSED_FOLDER"] = processed_folder
    imap_append(mail_user.imap_url, [sheet_mail(n, mail_user.address) for n in range(5)])

    killed = cli(["poll", "--once"], env, crash="after-store")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with factory() as s:
        rows = s.scalars(select(InboundMessage)).all()
        assert len(rows) == 5 and {r.status for r in rows} == {
            "stored"
        }  # committed before the kill
    inbox = imap_list(mail_user.imap_url)
    assert len(inbox) == 5 and not any(b"\\Seen" in f for _u, f, _r in inbox)  # never marked

    again = cli(["poll", "--once"], env)
    assert again.returncode == 0, again.stderr
    assert "stored 0 new" in again.stdout  # nothing stored twice
    if processed_folder:
        assert imap_list(mail_user.imap_url) == []
        assert len(imap_list(mail_user.imap_url, folder=processed_folder)) == 5
    else:
        assert all(b"\\Seen" in f for _u, f, _r in imap_list(mail_user.imap_url))
    assert cli(["poll", "--once"], env).returncode == 0  # a third run changes nothing
    with factory() as s:
        rows = s.scalars(select(InboundMessage)).all()
        assert len(rows) == 5 and {r.status for r in rows} == {"done"}
        replies = s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "reply")).all()
        assert sorted(r.dedupe_key for r in replies) == sorted(f"reply:{r.id}" for r in rows)

    sent = cli(["send", "--once"], env)
    assert sent.returncode == 0, sent.stderr
    got = smtp_sink.wait_for(5)
    assert sorted(m.rcpt_tos[0] for m in got) == [f"p{n}@example.com" for n in range(5)]


def _queue_replies(tmp_path, mail_user, smtp_sink, db_url, factory, n: int) -> dict[str, str]:
    open_league(factory, "spring")
    env = environment(tmp_path, db_url, mail_user.imap_url, smtp_sink.url, mail_user.address)
    imap_append(mail_user.imap_url, [sheet_mail(i, mail_user.address) for i in range(n)])
    assert cli(["poll", "--once"], env).returncode == 0
    return env


@pytest.mark.dovecot
def test_sender_killed_between_sending_and_marking(
    tmp_path, mail_user, smtp_sink, db_url, factory
) -> None:
    """kill -9 after the relay accepted the first reply, before ``sent`` was committed: the row is
    found ``sending`` with the lease of a dead process, queued again unchanged and resent. Counts:
    0 replies lost, 1 duplicate, and it has the original's Message-ID."""
    env = _queue_replies(tmp_path, mail_user, smtp_sink, db_url, factory, 3)
    killed = cli(["send", "--once"], env, crash="after-send")
    assert killed.returncode == -signal.SIGKILL
    assert len(smtp_sink.wait_for(1)) == 1  # the SMTP server accepted the first reply
    with factory() as s:
        assert [r.status for r in s.scalars(select(OutboxMessage).order_by(OutboxMessage.id))] == [
            "sending",
            "queued",
            "queued",
        ]

    again = cli(["send", "--once"], env)
    assert again.returncode == 0, again.stderr
    with factory() as s:
        replies_rows = s.scalars(
            select(OutboxMessage).where(OutboxMessage.kind == "reply").order_by(OutboxMessage.id)
        ).all()
        assert [r.status for r in replies_rows] == ["sent", "sent", "sent"]
        assert replies_rows[0].attempts == 2  # the unknown try counts
        assert s.scalar(select(OutboxMessage).where(OutboxMessage.kind == "notice")) is None
    got = smtp_sink.wait_for(4)
    by_rcpt: dict[str, list[str]] = {}
    for m in got:
        by_rcpt.setdefault(m.rcpt_tos[0], []).append(m.parsed()["Message-ID"])
    assert sorted(by_rcpt) == ["p0@example.com", "p1@example.com", "p2@example.com"]  # 0 lost
    assert [len(v) for _k, v in sorted(by_rcpt.items())] == [2, 1, 1]  # 1 duplicate...
    assert len(set(by_rcpt["p0@example.com"])) == 1  # ...with the same Message-ID
    assert cli(["send", "--once"], env).returncode == 0
    assert len(smtp_sink.messages) == 4


@pytest.mark.dovecot
def test_sender_killed_before_smtp_loses_nothing(
    tmp_path, mail_user, smtp_sink, db_url, factory
) -> None:
    """A kill after committing ``sending`` but before the SMTP transaction: the next pass sees
    the dead owner's lease and sends the reply; nobody has to requeue anything. 0 lost, 0
    duplicates."""
    env = _queue_replies(tmp_path, mail_user, smtp_sink, db_url, factory, 2)
    assert cli(["send", "--once"], env, crash="before-smtp").returncode == -signal.SIGKILL
    assert smtp_sink.messages == []
    assert cli(["send", "--once"], env).returncode == 0
    replies = [m for m in smtp_sink.messages if m.rcpt_tos[0] != "org@example.com"]
    assert sorted(m.rcpt_tos[0] for m in replies) == ["p0@example.com", "p1@example.com"]
    with factory() as s:
        assert {r.status for r in s.scalars(select(OutboxMessage))} == {"sent"}
