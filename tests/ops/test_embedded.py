"""The embedded mail stack of ``amaryllis demo``: real SMTP in, real IMAP out, files for everyone else."""

from __future__ import annotations

import email
import select
import smtplib
import socket
import threading
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from app.config import parse_endpoint
from app.ops.embedded import EmbeddedMailStack


def _imap(stack: EmbeddedMailStack) -> IMAPClient:
    ep = parse_endpoint(stack.imap_url)
    client = IMAPClient(ep.host, port=ep.port, ssl=False, timeout=10)
    client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client.login(ep.user, ep.password)
    client.select_folder(ep.path)
    return client


def _mail(
    to: str, subject: str, body: str, *, sender: str = "player@example.org", charset: str = "utf-8"
) -> EmailMessage:
    msg = EmailMessage(policy=default_policy)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    if charset == "iso-2022-jp":
        msg.set_content(
            body.encode("iso-2022-jp"),
            maintype="text",
            subtype="plain",
            cte="7bit",
            params={"charset": "iso-2022-jp"},
        )
    else:
        msg.set_content(body)
    return msg


def _send(stack: EmbeddedMailStack, msg: EmailMessage, **kw: object) -> None:
    ep = parse_endpoint(stack.smtp_url)
    with smtplib.SMTP(ep.host, ep.port, timeout=10) as smtp:
        smtp.send_message(msg, **kw)  # type: ignore[arg-type]


@pytest.fixture
def stack(tmp_path: Path):
    with EmbeddedMailStack(tmp_path / "out") as s:
        yield s


def test_urls_point_at_loopback_on_the_bound_ports(stack: EmbeddedMailStack) -> None:
    imap, smtp = parse_endpoint(stack.imap_url), parse_endpoint(stack.smtp_url)
    assert (imap.host, imap.port, imap.user, imap.path) == (
        "127.0.0.1",
        stack.imap_port,
        "tourney",
        "INBOX",
    )
    assert (smtp.host, smtp.port) == ("127.0.0.1", stack.smtp_port)
    assert stack.imap_port != stack.smtp_port and stack.imap_port > 0


def test_mail_to_the_server_address_and_plus_addresses_lands_in_the_inbox(
    stack: EmbeddedMailStack,
) -> None:
    first = _mail("tourney@localhost", "entry", "グリスク：１０／１／１／２")
    second = _mail(
        "tourney+spring@localhost",
        "[spring] entry",
        "ヌト：１０／３／１／１",
        charset="iso-2022-jp",
    )
    _send(stack, first)
    _send(stack, second)
    client = _imap(stack)
    try:
        uids = client.search(["ALL"])
        assert len(uids) == 2
        bodies = [client.fetch([u], ["BODY.PEEK[]"])[u][b"BODY[]"] for u in uids]
    finally:
        client.logout()
    # MDA trace headers first, then the message exactly as sent
    assert bodies[0].startswith(
        b"Return-Path: <player@example.org>\r\nDelivered-To: tourney@localhost\r\n"
    )
    assert bodies[0].endswith(first.as_bytes().replace(b"\n", b"\r\n"))
    assert b"Delivered-To: tourney+spring@localhost" in bodies[1]
    parsed = email.message_from_bytes(bodies[1], policy=default_policy)
    assert parsed["Subject"] == "[spring] entry"
    assert parsed.get_content_charset() == "iso-2022-jp"
    assert parsed.get_content().strip() == "ヌト：１０／３／１／１"
    assert stack.inbox_deliveries == 2
    assert stack.sink == []


def test_mail_to_anyone_else_is_written_as_eml_and_readable_txt(stack: EmbeddedMailStack) -> None:
    reply = _mail(
        "player@example.org",
        "Re: 受付しました",
        "グリスク の登録を受け付けました。",
        sender="tourney@localhost",
        charset="iso-2022-jp",
    )
    reply["Message-ID"] = "<r1@localhost>"
    reply["In-Reply-To"] = "<p1@example.org>"
    _send(stack, reply)
    _send(
        stack,
        _mail("二人目@example.org", "Re: hello", "accepted", sender="tourney@localhost"),
        mail_options=["SMTPUTF8"],
    )
    mails = stack.wait_for_sink(2, timeout=5)
    first, second = mails
    assert first.index == 1 and first.eml.name == "0001-player@example.org.eml"
    assert first.txt.name == "0001-player@example.org.txt"
    sent = reply.as_bytes().replace(b"\r\n", b"\n").rstrip(b"\n")
    assert first.eml.read_bytes().replace(b"\r\n", b"\n").rstrip(b"\n") == sent
    txt = first.txt.read_text(encoding="utf-8")
    assert "Subject: Re: 受付しました" in txt
    assert "In-Reply-To: <p1@example.org>" in txt
    assert "グリスク の登録を受け付けました。" in txt
    assert first.subject == "Re: 受付しました" and first.sender == "tourney@localhost"
    assert second.index == 2 and second.recipient == "二人目@example.org"
    assert second.eml.name.startswith("0002-") and second.eml.exists()
    assert stack.inbox_deliveries == 0


def test_one_mail_to_us_and_to_a_player_is_delivered_to_both_once(stack: EmbeddedMailStack) -> None:
    _send(stack, _mail("tourney@localhost, other@example.org", "both", "hi"))
    [mail] = stack.wait_for_sink(1, timeout=5)
    assert mail.recipient == "other@example.org"
    assert stack.inbox_deliveries == 1
    assert sorted(p.suffix for p in stack.out_dir.iterdir()) == [".eml", ".txt"]


def test_a_bounce_keeps_its_empty_return_path(stack: EmbeddedMailStack) -> None:
    bounce = _mail(
        "tourney@localhost", "Undelivered Mail", "gone", sender="MAILER-DAEMON@example.org"
    )
    ep = parse_endpoint(stack.smtp_url)
    with smtplib.SMTP(ep.host, ep.port, timeout=10) as smtp:
        smtp.sendmail("", ["tourney@localhost"], bounce.as_bytes())
    client = _imap(stack)
    try:
        [uid] = client.search(["ALL"])
        raw = client.fetch([uid], ["BODY.PEEK[]"])[uid][b"BODY[]"]
    finally:
        client.logout()
    assert raw.startswith(b"Return-Path: <>\r\n")


def test_an_idle_reader_is_woken_by_smtp_delivery(stack: EmbeddedMailStack) -> None:
    client = _imap(stack)
    try:
        client.idle()
        threading.Timer(0.2, _send, (stack, _mail("tourney@localhost", "ring", "x"))).start()
        readable, _, _ = select.select([client.socket()], [], [], 30)
        _, responses = client.idle_done()
        client.noop()
        assert readable, "IDLE was not woken"  # no duration asserted (issue 9.8)
        assert (
            any(r[1] == b"EXISTS" for r in responses if isinstance(r, tuple) and len(r) > 1)
            or len(client.search(["ALL"])) == 1
        )
    finally:
        client.logout()


def test_wrong_password_is_refused(stack: EmbeddedMailStack) -> None:
    client = IMAPClient("127.0.0.1", port=stack.imap_port, ssl=False, timeout=10)
    try:
        with pytest.raises(LoginError):
            client.login("tourney", "wrong")
    finally:
        client.shutdown()


def test_stop_closes_the_ports_even_with_an_idling_client_and_numbering_continues(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    stack = EmbeddedMailStack(out).start()
    _send(stack, _mail("a@example.org", "one", "1", sender="tourney@localhost"))
    stack.wait_for_sink(1, timeout=5)
    client = _imap(stack)
    client.idle()
    stack.stop()  # returns although a client idles (the outcome below, no duration asserted)
    assert not any(t.name == "embedded-mail" and t.is_alive() for t in threading.enumerate())
    for port in (stack.imap_port, stack.smtp_port):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    client.shutdown()
    stack.stop()  # idempotent

    with EmbeddedMailStack(out) as again:
        _send(again, _mail("b@example.org", "two", "2", sender="tourney@localhost"))
        [mail] = again.wait_for_sink(1, timeout=5)
        assert mail.index == 2 and mail.eml.name == "0002-b@example.org.eml"


def test_a_busy_port_is_a_clear_error(tmp_path: Path) -> None:
    with EmbeddedMailStack(tmp_path / "a") as first:
        with pytest.raises(OSError):
            EmbeddedMailStack(tmp_path / "b", imap_port=first.imap_port).start()


def test_bad_server_address_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="local@domain"):
        EmbeddedMailStack(tmp_path, server_address="tourney")


def test_wait_for_sink_times_out_with_a_count(stack: EmbeddedMailStack) -> None:
    with pytest.raises(TimeoutError, match="0 of 1"):
        stack.wait_for_sink(1, timeout=0.2)


def test_smtp_insists_on_crlf_line_ends_as_rfc_5321_says(stack: EmbeddedMailStack) -> None:
    """A long message with bare LF line ends is refused (so the outbox must send CRLF); with CRLF it is
    delivered."""
    body = "\n".join(f"line {i}: グリスク" for i in range(100))
    bare = (
        "From: tourney@localhost\nTo: p@example.org\nSubject: x\nMIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        f"{body}\n"
    ).encode()
    ep = parse_endpoint(stack.smtp_url)
    with smtplib.SMTP(ep.host, ep.port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            smtp.sendmail(
                "tourney@localhost", ["p@example.org"], bare, mail_options=["BODY=8BITMIME"]
            )
        assert refused.value.smtp_code == 500
    with smtplib.SMTP(ep.host, ep.port, timeout=10) as smtp:
        smtp.sendmail(
            "tourney@localhost",
            ["p@example.org"],
            bare.replace(b"\n", b"\r\n"),
            mail_options=["BODY=8BITMIME"],
        )
    [mail] = stack.wait_for_sink(1, timeout=5)
    assert "line 99: グリスク" in mail.text
