"""Notices to the organizers, digested: at most one mail per organizer per ``notice_digest_minutes``.

A notice (a permanent delivery failure, a row in state unknown, a lockout, paused replies to
unknown senders…) is recorded as an :class:`~app.db.models.OrganizerNotice` row in the caller's
transaction (:func:`notify_organizers`, idempotent by key). :func:`flush` — run by every outbox
pass (``app.mail.send.send_once``) — turns the waiting notices into one digest mail per organizer
when the last digest is older than the digest window, so the first notice after a quiet spell
goes out at once and a burst (every reply of a pass refused with 5xx) becomes one mail, not one
per row and organizer (issue #8.7).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import OrganizerNotice, OutboxMessage
from app.mail.storable import column_text

log = logging.getLogger(__name__)

#: notices listed in full in one digest; the rest are counted
DIGEST_LINES = 50


def notify_organizers(
    session: Session, settings: Any, *, key: str, subject: str, text: str, now: dt.datetime
) -> int:
    """Record a notice for the organizers (once per ``key``) for the next digest. Returns 1 when
    it was recorded, 0 when ``key`` was recorded before. Without organizers it is logged at
    WARNING (and still recorded: ``amaryllis status`` can show it)."""
    key = column_text(key, 300)
    if session.scalar(select(OrganizerNotice.id).where(OrganizerNotice.key == key)) is not None:
        return 0
    session.add(
        OrganizerNotice(
            key=key, subject=column_text(subject, 300), text=column_text(text), created_at=now
        )
    )
    session.flush()
    append_alert(settings, subject=subject, text=text, now=now, key=key)
    if not settings.organizers:
        log.warning("no organizer configured for notice %s: %s", key, subject)
    return 1


ALERTS_FILE = "alerts.log"


def append_alert(
    settings: Any, *, subject: str, text: str, now: dt.datetime, key: str = ""
) -> None:
    """Append one alert as a JSON line (``time``, ``key``, ``subject``, ``text``) to
    ``data_dir/alerts.log``, so an organizer notice survives a relay that cannot deliver it
    (issue 9.7; appended before the notice is committed: a rolled-back one may be listed too).
    A data folder that cannot be written is logged, never raised."""
    import json
    from pathlib import Path

    try:
        folder = Path(settings.data_dir)
        folder.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {"time": now.isoformat(), "key": key, "subject": subject, "text": text},
            ensure_ascii=False,
        )
        with open(folder / ALERTS_FILE, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except (OSError, TypeError, ValueError) as exc:
        log.warning("could not append to %s: %s", ALERTS_FILE, exc)


def _last_digest(session: Session) -> dt.datetime | None:
    last = session.scalar(
        select(func.max(OutboxMessage.created_at)).where(
            OutboxMessage.kind == "notice", OutboxMessage.dedupe_key.like("digest:%")
        )
    )
    if last is not None and last.tzinfo is None:
        last = last.replace(tzinfo=dt.timezone.utc)
    return last


def flush(session: Session, settings: Any, *, now: dt.datetime) -> int:
    """Queue one digest mail per organizer with every waiting notice, unless a digest went less
    than ``notice_digest_minutes`` ago (then they wait for the next pass). Returns the number of
    mails queued (0 without organizers or notices)."""
    from app.mail.compose import build_message
    from app.mail.outbox import enqueue

    if not settings.organizers:
        return 0
    waiting = list(
        session.scalars(
            select(OrganizerNotice)
            .where(OrganizerNotice.digest_id.is_(None))
            .order_by(OrganizerNotice.id)
        )
    )
    if not waiting:
        return 0
    last = _last_digest(session)
    if last is not None and now - last < dt.timedelta(minutes=settings.notice_digest_minutes):
        return 0
    if len(waiting) == 1:
        subject, body = waiting[0].subject, waiting[0].text
    else:
        subject = f"[amaryllis] {len(waiting)} notices"
        parts = [
            f"{i}. {n.subject}\n\n{n.text.rstrip()}\n"
            for i, n in enumerate(waiting[:DIGEST_LINES], start=1)
        ]
        more = len(waiting) - DIGEST_LINES
        body = "\n".join(parts) + (f"\n… and {more} more (amaryllis status).\n" if more > 0 else "")
    body += (
        f"\n-- \nAmaryllis: notices are digested, at most one mail every "
        f"{settings.notice_digest_minutes} minutes.\n"
    )
    rows = []
    for addr in settings.organizers:
        msg = build_message(
            sender=settings.server_address,
            sender_name=settings.server_name,
            to=addr,
            subject=subject,
            text=body,
            auto_submitted="auto-generated",
            now=now,
        )
        rows.append(
            enqueue(
                session,
                dedupe_key=f"digest:{waiting[0].id}:{addr.lower()}"[:300],
                message=msg,
                kind="notice",
            )
        )
        rows[-1].created_at = now
        rows[-1].next_attempt_at = now
    for n in waiting:
        n.digest_id = rows[0].id
    return len(rows)
