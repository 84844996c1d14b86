"""Replying to one inbound mail: render its reply template and queue the reply in the outbox,
threaded under the mail (``In-Reply-To``/``References``), to its sender or an entry's
registered address, never to a ``Reply-To``. Used by the pipeline (every mail) and by organizer
requests answered later (``app.mail.requests``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy.orm import Session

from app import NAME
from app.config import Settings
from app.db.models import InboundMessage, Player
from app.mail.compose import build_message, msg_ids, reply_subject
from app.mail.decode import DecodedMail
from app.mail.outbox import enqueue
from app.reports.render import render_mail

__all__ = ["MAX_REPLY_SUBJECT", "queue_reply", "render_mail"]

#: characters of the player's subject repeated in a reply's subject
MAX_REPLY_SUBJECT = 160


def queue_reply(
    session: Session,
    settings: Settings,
    row: InboundMessage,
    mail: DecodedMail,
    player: Player | None,
    lang: str,
    template: str,
    context: dict[str, Any],
    html: str | None,
    now: dt.datetime,
    to: str | None = None,
    subject: str | None = None,
) -> None:
    """Render the reply and queue it (dedupe key ``reply:<inbound id>``), threaded under the
    mail's Message-ID (``In-Reply-To``/``References`` as msg-ids: ``app.mail.compose``). It goes
    to ``to`` (an entry's registered address) or the sender — never to a ``Reply-To``."""
    plus_local, _, plus_domain = settings.server_address.partition("@")
    shown = mail.subject[:MAX_REPLY_SUBJECT] + (
        "…" if len(mail.subject) > MAX_REPLY_SUBJECT else ""
    )
    base = {
        "lang": lang,
        "subject": shown,
        "cut_lines": mail.cut_lines,
        "plus_local": plus_local,
        "plus_domain": plus_domain or "localhost",
        "max_lines": settings.max_lines,
        "notes": mail.notes[:20],
        "server": settings.server_address,
        "league": "",
        "detail": "",
        "open": [],
        "mine": [],
        "code": "",
        "action": "",
        "summary": "",
        "key": "",
    }
    base.update(context)
    text = render_mail(template, lang, **base)
    raw = (
        {
            k.lower(): str(v)
            for k, v in mail.message.raw_items()
            if k.lower() in ("message-id", "references")
        }
        if mail.message is not None
        else {}
    )
    own = msg_ids(raw.get("message-id", ""))
    in_reply_to = own[0] if own else None
    refs = msg_ids(raw.get("references", ""))
    charset = player.charset if player is not None else "utf-8"
    out = build_message(
        sender=settings.server_address,
        sender_name=settings.server_name,
        to=to or mail.sender or row.sender,
        subject=subject or reply_subject(shown or NAME),
        text=text,
        html=html,
        in_reply_to=in_reply_to,
        references=refs,
        charset=charset,
        now=now,
    )
    enqueue(session, dedupe_key=f"reply:{row.id}", message=out, kind="reply", inbound_id=row.id)
