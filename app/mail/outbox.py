"""Queuing one mail body to many recipients, fast.

League mails come in families that differ only in their envelope headers: the standings after a
round go to every player with the same body, and a battle report goes to both players of the
battle. So :func:`queue_copies` serializes the message **once** without its per-recipient
header fields (``To``, ``Message-ID``, ``In-Reply-To``, ``References``;
:func:`app.mail.compose.shared_bytes`) and writes each copy as those fields (RFC 5322 §3.6:
header order is free) followed by the shared bytes. The shared
bytes are stored **once** (``outbox_bodies``: zlib-compressed, keyed by their SHA-256; issue 9):
a row holds only its own header lines (``head``) and the body's hash. Rows go to the
outbox in one bulk insert, with the same dedupe-key semantics as
:func:`enqueue` (a key queued before is skipped). A copy whose headers are not
plain ASCII of a safe length (an internationalized address, say) gets its own ``build_message``.
:func:`build_rows` needs no database, so worker processes can build rows in parallel.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import zlib
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import OutboxBody, OutboxMessage
from app.db.session import bulk_insert

_PER_RECIPIENT = ("To", "Message-ID", "In-Reply-To", "References")


@dataclass(frozen=True, slots=True)
class Copy:
    """One recipient of a family: ``key`` the outbox dedupe key, ``to`` the address,
    ``in_reply_to`` the Message-ID (with angle brackets) to thread under, or ``None``."""

    key: str
    to: str
    in_reply_to: str | None = None


def split_message(raw: bytes) -> tuple[bytes, bytes]:
    """Split serialized mail bytes into ``(head, body)``: ``head`` the per-recipient header
    lines (:data:`_PER_RECIPIENT`, with their folded continuation lines) in their order,
    ``body`` every other header line and the content. ``head + body`` is the same message
    (RFC 5322 §3.6: the order of header fields is free)."""
    end = raw.find(b"\n\n")
    header, rest = (raw[: end + 1], raw[end + 1 :]) if end >= 0 else (raw, b"")
    names = tuple(h.lower().encode() + b":" for h in _PER_RECIPIENT)
    head: list[bytes] = []
    other: list[bytes] = []
    target = other
    for line in header.splitlines(keepends=True):
        if line[:1] not in (b" ", b"\t"):
            target = head if line.lower().startswith(names) else other
        target.append(line)
    return b"".join(head), b"".join(other) + rest


def compressed(body: bytes) -> tuple[str, bytes]:
    """``(sha256 hex of body, zlib-compressed body)``: the key and value of an outbox body."""
    return hashlib.sha256(body).hexdigest(), zlib.compress(body, 6)


def store_bodies(session: Session, rows: list[dict[str, Any]]) -> None:
    """Turn the ``body`` (bytes) or ``_body`` (``(sha256, compressed, size)``) of each row into
    ``body_sha256``, inserting every body not stored yet into ``outbox_bodies`` (once per
    distinct body; an existing one is reused, also one another transaction inserts at the same
    moment: ``INSERT ... ON CONFLICT DO NOTHING``). Changes ``rows`` in place."""
    from app.db.session import insert_ignore

    bodies: dict[str, dict[str, Any]] = {}
    for row in rows:
        if "body" in row:
            body = row.pop("body")
            sha, data = compressed(body)
            size = len(body)
        elif "_body" in row:
            sha, data, size = row.pop("_body")
        else:
            continue
        row["body_sha256"] = sha
        bodies.setdefault(sha, dict(sha256=sha, data=data, size=size, created_at=_utcnow()))
    if bodies:  # a body stored before is skipped by the insert itself (no look-up first)
        insert_ignore(session, OutboxBody, list(bodies.values()))


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _safe(value: str) -> bool:
    return value.isascii() and len(value) < 900 and not any(c in value for c in "\r\n")


def existing_keys(session: Session, keys: list[str]) -> set[str]:
    """The subset of ``keys`` already in the outbox (queried in chunks of 500)."""
    found: set[str] = set()
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        found.update(
            session.scalars(
                select(OutboxMessage.dedupe_key).where(OutboxMessage.dedupe_key.in_(chunk))
            )
        )
    return found


def build_rows(
    copies: list[Copy], *, kind: str, now: dt.datetime, **message: Any
) -> list[dict[str, Any]]:
    """The outbox rows (column values) of one message per copy, without a database: the shared
    body is built once with :func:`app.mail.compose.shared_bytes` and stamped per recipient;
    a copy with unusual headers gets its own :func:`app.mail.compose.build_message`.
    ``message`` holds the keyword arguments of ``build_message`` except ``to``, ``in_reply_to``
    and ``references``. Raises ``ValueError`` as ``build_message`` does for an unparsable
    sender."""
    from app.mail.compose import build_message, sender_address, shared_bytes

    rows: list[dict[str, Any]] = []
    fast = [c for c in copies if _safe(c.to) and (c.in_reply_to is None or _safe(c.in_reply_to))]
    quick = {id(c) for c in fast}
    for c in copies:
        if id(c) in quick:
            continue
        msg = build_message(to=c.to, in_reply_to=c.in_reply_to, now=now, **message)
        row = outbox_values(msg, dedupe_key=c.key, kind=kind)
        body: bytes = row.pop("body")  # type: ignore[assignment]
        row["_body"] = (*compressed(body), len(body))
        rows.append(row)
    if fast:
        sender = sender_address(message["sender"]).addr_spec
        body = shared_bytes(log_to=fast[0].to, now=now, **message)
        shared = (*compressed(body), len(body))  # one object: pickled once per family
        domain = sender.rpartition("@")[2] or "localhost"
        for c in fast:
            mid = make_msgid(domain=domain)
            head = [f"To: {c.to}", f"Message-ID: {mid}"]
            if c.in_reply_to:
                head += [f"In-Reply-To: {c.in_reply_to}", f"References: {c.in_reply_to}"]
            rows.append(
                dict(
                    dedupe_key=c.key,
                    message_id=mid,
                    recipient=c.to,
                    sender=sender,
                    head=("\n".join(head) + "\n").encode("ascii"),
                    _body=shared,
                    kind=kind,
                    inbound_id=None,
                )
            )
    return rows


def queue_copies(
    session: Session, copies: list[Copy], *, kind: str, now: dt.datetime, **message: Any
) -> int:
    """Queue one message per copy in the caller's transaction (:func:`build_rows`), skipping
    keys queued before — the semantics of :func:`enqueue`, for many
    recipients at once. Returns the number of mails queued."""
    queued = existing_keys(session, [c.key for c in copies])
    rows = build_rows([c for c in copies if c.key not in queued], kind=kind, now=now, **message)
    insert_rows(session, rows)
    return len(rows)


def insert_rows(session: Session, rows: list[dict[str, Any]]) -> None:
    """Insert outbox rows built by :func:`build_rows` (their bodies first, each once:
    :func:`store_bodies`; then the rows: one ``COPY`` on PostgreSQL,
    :func:`app.db.session.bulk_insert`; else one executemany). A dedupe key queued before raises
    ``IntegrityError`` either way (callers skip those keys first: :func:`existing_keys`)."""
    if rows:
        rows = [dict(r) for r in rows]
        store_bodies(session, rows)
        bulk_insert(session, OutboxMessage, rows)


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
    ``To`` headers; the bytes are stored as the row's own head and a shared, compressed body
    (:func:`store_bodies`).
    """
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key))
    if existing is not None:
        return existing
    values = outbox_values(message, dedupe_key=dedupe_key, kind=kind, inbound_id=inbound_id)
    store_bodies(session, [values])
    row = OutboxMessage(**values)
    session.add(row)
    session.flush()
    return row


def outbox_values(
    message: EmailMessage, *, dedupe_key: str, kind: str, inbound_id: int | None = None
) -> dict[str, object]:
    """The column values of the outbox row for ``message``: envelope addresses from the ``From``
    and ``To`` headers, its Message-ID, ``head`` (its per-recipient header lines) and ``body``
    (the rest; stored by :func:`store_bodies`)."""
    head, body = split_message(message.as_bytes())
    return dict(
        dedupe_key=dedupe_key,
        message_id=str(message["Message-ID"]),
        recipient=message["To"].addresses[0].addr_spec,
        sender=message["From"].addresses[0].addr_spec,
        head=head,
        body=body,
        kind=kind,
        inbound_id=inbound_id,
    )
