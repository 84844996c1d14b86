"""The whole mail path on the corpus: real Dovecot (IMAP APPEND) -> poller -> pipeline -> outbox ->
real SMTP sink. Every corpus mail's expected outcome (``tests/corpus/mail/expected.json``) is
asserted, plus a 20 MB attachment generated here."""

from __future__ import annotations

import email
import email.policy
import email.utils
import json
import os
from pathlib import Path

import pytest
from sqlalchemy import select

from app.db.models import InboundMessage, League, OutboxMessage, Player
from app.mail.inbound import message_key, poll_once
from app.mail.send import send_once
from tests.mail.conftest import NOW, make_settings, open_league
from tests.servers import imap_append, imap_list

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "mail"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))


def big_mail() -> bytes:
    """A 20 MB attachment (generated, never committed)."""
    blob = os.urandom(15 * 1024 * 1024)
    import base64

    b64 = base64.encodebytes(blob)
    return (
        b"From: big@example.com\r\nTo: tourney@localhost\r\nSubject: entry\r\n"
        b"Message-ID: <big-20mb@example.com>\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="BIG"\r\n\r\n--BIG\r\n'
        b"Content-Type: text/plain; charset=UTF-8\r\n\r\nsee attachment\r\n--BIG\r\n"
        b'Content-Type: application/octet-stream; name="video.mp4"\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\n" + b64.replace(b"\n", b"\r\n") + b"--BIG--\r\n"
    )


def received(raw: bytes) -> bytes:
    """``raw`` as our receiving MTA (authserv-id ``mx.localhost``) hands it on: with its
    ``Authentication-Results`` on top. The corpus mails that carry their own verdict (cases 28,
    29) keep it; the rest are mail from real players, whose domains passed DMARC (the verdict
    names the From domain, ``header.from``, as OpenDMARC and rspamd write it)."""
    if b"Authentication-Results: mx.localhost" in raw:
        return raw
    sender = email.utils.parseaddr(str(email.message_from_bytes(raw).get("From", "")))[1]
    domain = sender.rpartition("@")[2] or "invalid"
    verdict = f"Authentication-Results: mx.localhost; dmarc=pass header.from={domain}\r\n"
    return verdict.encode() + raw


def test_corpus_has_every_required_shape() -> None:
    names = " ".join(EXPECTED)
    for shape in (
        "utf8",
        "iso2022jp",
        "cp50221",
        "shift_jis",
        "euc_jp",
        "latin1",
        "html_only",
        "multipart_alternative",
        "attachment_sheet",
        "reply_quoting",
        "bounce",
        "out_of_office",
        "mailing_list",
        "broken_mime",
        "no_message_id",
        "duplicate_first",
        "duplicate_second",
        "qp",
        "flowed",
    ):
        assert shape in names, shape
    assert len(EXPECTED) >= 25


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, db_url, factory):
    """(url, factory) on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return db_url, factory
    return request.getfixturevalue("postgres_url"), request.getfixturevalue("pg_factory")


@pytest.mark.dovecot
def test_corpus_end_to_end(mail_user, smtp_sink, database) -> None:
    db_url, factory = database
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        require_auth_results=True,
        authserv_id="mx.localhost",
    )
    open_league(factory, "spring")
    files = sorted(EXPECTED)
    raws = {
        f: received(
            (CORPUS / f)
            .read_bytes()
            .replace(b"tourney@localhost", mail_user.address.encode())
            .replace(b"tourney+", mail_user.name.encode() + b"+")
        )
        for f in files
    }
    big = received(big_mail())
    assert len(big) > 20_000_000
    imap_append(mail_user.imap_url, [raws[f] for f in files])
    imap_append(mail_user.imap_url, [big])

    stored = poll_once(settings, factory, now=NOW)
    duplicates = [f for f in files if "duplicate_of" in EXPECTED[f]]
    assert stored == len(files) - len(duplicates) + 1

    # every message is marked \Seen on the server, and a second pass finds nothing new
    assert all(b"\\Seen" in flags for _uid, flags, _raw in imap_list(mail_user.imap_url))
    assert poll_once(settings, factory, now=NOW) == 0

    report = send_once(settings, factory)
    assert not report.failed and not report.retry and not report.unknown

    with factory() as s:
        rows = {r.message_key: r for r in s.scalars(select(InboundMessage))}
        outbox = {
            r.inbound_id: r
            for r in s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "reply"))
        }
        replies_expected = 0
        for f in files:
            exp = EXPECTED[f]
            key = message_key(raws[f])
            row = rows[key]
            if "duplicate_of" in exp:
                first = rows[
                    message_key(
                        raws[next(g for g in files if g.endswith(exp["duplicate_of"] + ".eml"))]
                    )
                ]
                assert first.id == row.id, f
                continue
            if "key_prefix" in exp:
                assert key.startswith(exp["key_prefix"]), f
            assert row.status == exp["status"], (f, row.status, row.rules, row.error)
            if "command" in exp:
                assert row.command == exp["command"], f
            for rule in exp.get("rules", []):
                assert rule in (row.rules or []), (f, row.rules)
            reply = outbox.get(row.id)
            if not exp["reply"]:
                assert reply is None, f
                continue
            replies_expected += 1
            assert reply is not None and reply.status == "sent", f
            msg = email.message_from_bytes(reply.raw, policy=email.policy.default)
            body = msg.get_body(("plain",))
            text = body.get_content()
            for needle in exp.get("contains", []):
                assert needle in text, (f, needle, text)
            assert msg["Auto-Submitted"] == "auto-replied"
            assert msg["Subject"].startswith("Re:")
            orig = email.message_from_bytes(raws[f], policy=email.policy.default)
            if orig["Message-ID"]:
                assert msg["In-Reply-To"] == orig["Message-ID"].strip(), f
                assert orig["Message-ID"].strip() in msg["References"]
            assert reply.recipient == row.sender
            if "reply_charset" in exp:
                assert body.get_content_charset() == exp["reply_charset"], f
                if exp["reply_charset"] == "iso-2022-jp" and not msg["Subject"].isascii():
                    assert b"Subject: =?iso-2022-jp?b?" in reply.raw, f
            if exp.get("html"):
                assert msg.get_body(("html",)) is not None, f
            if exp.get("lang") == "ja":
                assert "アマリリス" in text, f
            elif exp.get("lang") == "en":
                assert "Amaryllis tournament server" in text, f
        # the 20 MB mail: its header and text part fetched (BODYSTRUCTURE), the video left on the
        # server and named in the reply (issue #8.7: the text of a mail with a big attachment is read)
        big_row = rows["<big-20mb@example.com>"]
        assert big_row.size > 20_000_000 and len(big_row.raw) < 10_000
        assert [o["name"] for o in big_row.omitted] == ["video.mp4"]
        assert big_row.status != "shunted" and "too-large" not in (big_row.rules or [])
        big_reply = (
            email.message_from_bytes(outbox[big_row.id].raw, policy=email.policy.default)
            .get_body(("plain",))
            .get_content()
        )
        assert "only its text was read; not read: video.mp4" in big_reply, big_reply
        replies_expected += 1
        # player preferences learned from the mail
        hanako = s.scalar(select(Player).where(Player.address == "hanako@example.jp"))
        assert hanako.charset == "iso-2022-jp" and hanako.lang == "ja"
        assert s.scalar(select(League).where(League.name == "autumn")) is not None

    # the sink got exactly one reply per replied mail, each once
    sunk = smtp_sink.wait_for(replies_expected)
    assert len(sunk) == replies_expected
    ids = [m.parsed()["Message-ID"] for m in sunk]
    assert len(set(ids)) == len(ids)
