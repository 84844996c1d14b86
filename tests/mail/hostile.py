"""Shared helpers of the hostile-mail tests (issue #8): crafted mails, one poll-process-send
cycle through the real servers, reading what came out."""

from __future__ import annotations

import email
import email.policy

from sqlalchemy import select

from app.db.models import InboundMessage, OutboxMessage
from app.mail.inbound import poll_once
from app.mail.send import send_once
from tests.mail.conftest import NOW
from tests.servers import imap_append

BOLT = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def mk(
    sender: str,
    subject: str,
    body: str | bytes,
    mid: str,
    *,
    to: str = "tourney@localhost",
    headers: str = "",
    ctype: str = "text/plain; charset=utf-8",
    cte: str = "",
) -> bytes:
    """A mail as a client writes it (CRLF); ``sender`` and ``subject`` go in as written."""
    head = (
        f"{headers}From: {sender}\nTo: {to}\nSubject: {subject}\nMessage-ID: {mid}\n"
        f"MIME-Version: 1.0\nContent-Type: {ctype}\n"
        + (f"Content-Transfer-Encoding: {cte}\n" if cte else "")
    )
    payload = body if isinstance(body, bytes) else crlf(body).encode("utf-8")
    return crlf(head + "\n").encode("utf-8") + payload


def cycle(settings, factory, user, raws: list[bytes], *, now=NOW) -> None:
    """APPEND ``raws`` to the mailbox, poll (store, mark, process) and send the outbox once."""
    if raws:
        imap_append(user.imap_url, raws)
    poll_once(settings, factory, now=now)
    send_once(settings, factory)


def row_of(factory, mid: str) -> InboundMessage:
    with factory() as s:
        row = s.scalar(select(InboundMessage).where(InboundMessage.message_key == mid))
        assert row is not None, mid
        return row


def reply_of(factory, inbound_id: int) -> tuple[OutboxMessage | None, str]:
    """The reply row of an inbound mail and its plain text (``""`` without a reply)."""
    with factory() as s:
        out = s.scalar(select(OutboxMessage).where(OutboxMessage.inbound_id == inbound_id))
    if out is None:
        return None, ""
    msg = email.message_from_bytes(out.raw, policy=email.policy.default)
    return out, msg.get_body(("plain",)).get_content()


def replies_to(sink, address: str) -> list:
    return [m for m in sink.messages if address in m.rcpt_tos]


def text(sunk) -> str:
    return sunk.parsed().get_body(("plain",)).get_content()
