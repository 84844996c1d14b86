"""Building outgoing messages and queuing them in the outbox.

Code never sends mail directly: it builds an ``EmailMessage`` here and queues it with
:func:`enqueue` in the caller's transaction; ``app.mail.send`` delivers the outbox.
Headers follow RFC 5322 (Message-ID, Date), RFC 3834 (``Auto-Submitted``) and RFC 2047
(encoded subjects, done by ``email.policy.default``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import OutboxMessage, utcnow


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` unless it already starts with ``Re:`` (any case, full-width colon too)."""
    s = subject.strip()
    if s[:3].lower() in ("re:", "re：") or s[:3].lower() == "re：":
        return s
    return f"Re: {s}" if s else "Re:"


def _jis_ok(text: str) -> bool:
    try:
        text.encode("iso-2022-jp")
    except UnicodeEncodeError:
        return False
    return True


def build_message(
    *,
    sender: str,
    sender_name: str = "",
    to: str,
    subject: str,
    text: str,
    html: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    charset: str = "utf-8",
    auto_submitted: str | None = "auto-replied",
    now: dt.datetime | None = None,
) -> EmailMessage:
    """Build a message with a text part (``charset``: ``utf-8`` or ``iso-2022-jp``) and, when
    ``html`` is given, an HTML alternative (always UTF-8).

    Threading: ``In-Reply-To`` is set from ``in_reply_to`` and ``References`` from ``references``
    plus ``in_reply_to`` (RFC 5322 §3.6.4). A fresh ``Message-ID`` in the sender's domain and a
    ``Date`` are added. Raises ``ValueError`` for an address that cannot be parsed.
    """
    msg = EmailMessage(policy=default_policy)
    domain = sender.rpartition("@")[2] or "localhost"
    msg["From"] = Address(display_name=sender_name, addr_spec=sender) if sender_name else sender
    msg["To"] = to
    if charset.lower() in ("iso-2022-jp", "jis") and _jis_ok(subject) and not subject.isascii():
        # old Japanese mailers expect =?ISO-2022-JP?B?...?= (RFC 1468/2047); set_raw keeps it as is
        msg.set_raw("Subject", Header(subject, "iso-2022-jp", header_name="Subject").encode())
    elif not subject.isascii():
        # email.policy.default folds a mixed subject into ASCII words and encoded words and can
        # put a space that stood between two encoded words on the fold, where RFC 2047 §6.2
        # says to drop it ("ヌト —" came back as "ヌト—"). email.header.Header encodes the
        # whole subject as encoded words whose text keeps every space (RFC 2047 §5).
        msg.set_raw("Subject", Header(subject, "utf-8", header_name="Subject").encode())
    else:
        msg["Subject"] = subject
    msg["Date"] = format_datetime(now or utcnow())
    msg["Message-ID"] = make_msgid(domain=domain)
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        refs = [r for r in references if r and r != in_reply_to] + [in_reply_to]
        msg["References"] = " ".join(refs)
    if auto_submitted:
        msg["Auto-Submitted"] = auto_submitted
    if charset.lower() in ("iso-2022-jp", "jis"):
        try:
            text.encode("iso-2022-jp")
        except UnicodeEncodeError:  # a character JIS cannot hold: fall back to UTF-8
            msg.set_content(text, charset="utf-8")
        else:
            msg.set_content(text.encode("iso-2022-jp"), maintype="text", subtype="plain",
                            cte="7bit", params={"charset": "iso-2022-jp"})
    else:
        msg.set_content(text, charset="utf-8")
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8")
    return msg


def enqueue(
    session: Session,
    *,
    dedupe_key: str,
    message: EmailMessage,
    kind: str = "reply",
    inbound_id: int | None = None,
) -> OutboxMessage:
    """Queue ``message`` in the outbox in the caller's transaction, once per ``dedupe_key``.

    Returns the new row, or the existing row when ``dedupe_key`` was queued before (so a step
    re-run after a crash queues nothing twice). Envelope addresses come from the ``From`` and
    ``To`` headers.
    """
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key))
    if existing is not None:
        return existing
    row = OutboxMessage(**outbox_values(message, dedupe_key=dedupe_key, kind=kind,
                                        inbound_id=inbound_id))
    session.add(row)
    session.flush()
    return row


def outbox_values(message: EmailMessage, *, dedupe_key: str, kind: str,
                  inbound_id: int | None = None) -> dict[str, object]:
    """The column values of the outbox row for ``message``: envelope addresses from the ``From``
    and ``To`` headers, the raw bytes, its Message-ID."""
    return dict(
        dedupe_key=dedupe_key,
        message_id=str(message["Message-ID"]),
        recipient=message["To"].addresses[0].addr_spec,
        sender=message["From"].addresses[0].addr_spec,
        raw=message.as_bytes(),
        kind=kind,
        inbound_id=inbound_id,
    )
