"""TLS on both paths: IMAP with implicit TLS (``imaps://``) and STARTTLS (``imap+starttls://``)
against Dovecot, SMTP with ``smtps://`` and ``smtp+starttls://`` against the aiosmtpd sink, all
with a throw-away self-signed certificate that the client trusts through ``SSL_CERT_FILE``."""

from __future__ import annotations

import shutil

import pytest

from app.mail.inbound import poll_once
from app.mail.send import send_once
from tests.mail.conftest import NOW, make_settings
from tests.servers import Dovecot, SmtpSink, dovecot_available, imap_append, self_signed_cert
from tests.services import skip_or_fail

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")


@pytest.fixture(scope="module")
def tls_dovecot():
    reason = dovecot_available()
    if reason:
        skip_or_fail(reason)
    with Dovecot(tls=True) as server:
        yield server


@pytest.mark.dovecot
@pytest.mark.parametrize("mode", ["imaps", "imap+starttls"])
def test_imap_over_tls(mode, tls_dovecot, db_url, factory, monkeypatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_dovecot.cert))
    user = tls_dovecot.add_user()
    imap_append(
        user.imap_url,
        [b"From: p@example.com\r\nSubject: help\r\nMessage-ID: <tls@x>\r\n\r\nhelp\r\n"],
    )
    port = tls_dovecot.imaps_port if mode == "imaps" else tls_dovecot.imap_port
    url = f"{mode}://{user.name}:{user.password}@127.0.0.1:{port}/INBOX"
    settings = make_settings(db_url, imap_url=url)
    assert settings.imap.security == ("tls" if mode == "imaps" else "starttls")
    assert poll_once(settings, factory, now=NOW, process=False) == 1


@pytest.mark.dovecot
def test_untrusted_certificate_is_refused(tls_dovecot, db_url, factory, monkeypatch) -> None:
    import ssl

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    user = tls_dovecot.add_user()
    url = f"imaps://{user.name}:{user.password}@127.0.0.1:{tls_dovecot.imaps_port}/INBOX"
    with pytest.raises(ssl.SSLError):
        poll_once(make_settings(db_url, imap_url=url), factory, now=NOW, process=False)


@pytest.mark.parametrize("mode", ["starttls", "tls"])
def test_smtp_over_tls(mode, tmp_path, db_url, factory, monkeypatch) -> None:
    from app.db.session import transaction
    from app.mail.compose import build_message
    from app.mail.outbox import enqueue

    cert, key = self_signed_cert(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with SmtpSink(tls=mode, cert=(cert, key)) as sink:
        settings = make_settings(db_url, smtp_url=sink.url)
        with transaction(factory) as s:
            enqueue(
                s,
                dedupe_key="t",
                message=build_message(
                    sender="tourney@localhost", to="p@example.com", subject="Re: x", text="over TLS"
                ),
            )
        report = send_once(settings, factory)
        assert len(report.sent) == 1, report
        assert sink.wait_for(1)[0].parsed().get_body(("plain",)).get_content().strip() == "over TLS"
