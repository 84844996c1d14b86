"""Confirmation requests: a change of an entry that the mail asking for it does not prove
(no entry key, no DMARC pass) waits for its owner's answer (``docs/mail.md``, Entry
ownership; ``app.league.ownership``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.db.models import Entry
from app.league import ownership
from app.mail import protect
from app.mail.commands.context import MailContext, when
from app.mail.grammar import Command


def request_confirmation(
    ctx: MailContext, entry: Entry, league: Any, cmd: Command, kind: str, sheet: str | None
) -> None:
    """Keep the change (``kind``: ``replace`` with ``sheet`` the new sheet, ``withdraw``, or
    ``orders`` with ``sheet`` the orders text) and mail the confirmation request, with its
    token, to the entry's registered address (at most ``confirmations_per_day`` per entry;
    past that, refused silently)."""
    owner = entry.player.address
    row = protect.counter(ctx.s, owner, f"confirm:{entry.id}", ctx.now.date())
    if row.count >= ctx.settings.confirmations_per_day:
        ctx.refuse("confirm-limit")  # silent: the owner had enough of these today
        return
    row.count += 1
    ttl = dt.timedelta(hours=ctx.settings.confirm_hours)
    change, token = ownership.request_change(
        ctx.s, entry, kind, sheet_text=sheet, inbound_id=ctx.row.id, now=ctx.now, ttl=ttl
    )
    ctx.out.to = owner
    ctx.out.subject = f"confirm {token} [{league.name}]"
    ctx.out.rules.append("confirm-requested")
    if entry.player.lang in ("ja", "en"):
        ctx.lang = entry.player.lang  # the owner reads it, in the owner's language
    ctx.reply(
        "confirm",
        code="request",
        kind=kind,
        league=league.name,
        token=token,
        expires=when(change.expires_at),
        deadline=when(league.entry_deadline) if kind != "orders" else "",
        wrong_key=bool(cmd.key),
        hours=int(ctx.settings.confirm_hours),
        change=shown_change(sheet),
    )


#: lines of a pending change quoted in its confirmation request
CHANGE_LINES = 60


def shown_change(text: str | None) -> str:
    """The change a confirmation request quotes, so that its owner sees what they confirm (a
    forged sheet or orders would otherwise be confirmed blindly): the non-blank lines of
    ``text``, at most :data:`CHANGE_LINES` (then ``…``), each indented; ``""`` for none (a
    withdrawal)."""
    lines = [line.rstrip() for line in (text or "").split("\n") if line.strip()]
    more = len(lines) > CHANGE_LINES
    shown = ["  " + line[:200] for line in lines[:CHANGE_LINES]]
    return "\n".join(shown + (["  …"] if more else []))
