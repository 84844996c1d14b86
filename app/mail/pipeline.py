"""Processing of stored inbound mail: one message, one transaction (Mailman style).

For each ``InboundMessage`` in status ``stored``, in id order::

    decode -> command grammar -> protection chain -> command handler -> reply -> outbox

all in one transaction, so the reply (dedupe key ``reply:<inbound id>``) is queued exactly when the
row becomes ``done``/``refused``. The parts: ``app.mail.decode`` (MIME to text),
``app.mail.grammar`` (the command line and the special lines), ``app.mail.protect`` (the table of
named refusal rules, in order: robots, authentication, lockout, rate limit, unknown senders,
size), ``app.mail.commands`` (the registry of commands and their handlers). This module only
drives them. Outcomes (``InboundMessage.status``):

``done``      the command ran (its reply may say that it was rejected, e.g. a bad sheet);
``refused``   a rule refused it (rate limit, failed authentication, not the organizer…); ``rules``
              says which;
``ignored``   no automatic reply is allowed (bounce, auto-reply, list, ourselves; RFC 3834);
``shunted``   an unexpected exception; ``error`` holds the stage and the exception; logged; the
              next message is processed normally. ``requeue_shunted`` puts it back.

Only a mail that passed the chain may change its sender's player row (reply charset); a forged,
refused mail changes nothing. The display name (a ``name:`` line, else the From phrase) is given
only when the mail's entry is accepted (``app.league.names.settle``: unique, a default in the
player's language when none is given); a display name already set changes only with a proof of
the sender (``app.mail.protect.proof``).

Organizer commands that run rounds (``run``, ``resend``) only record a request in the message's
transaction; the scheduler performs it and queues the reply (``app.mail.requests``, issue 9.5).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import InboundMessage, Player, utcnow
from app.db.session import rowcount, transaction
from app.mail import protect
from app.mail.commands import REGISTRY, is_organizer, parse_command
from app.mail.commands.context import MailContext, Outcome
from app.mail.commands.player import cmd_help
from app.mail.decode import decode_message
from app.mail.grammar import is_chat
from app.mail.reply import queue_reply
from app.mail.sheets import looks_like_orders, looks_like_sheet
from app.mail.storable import clean_display_name, column_text

log = logging.getLogger(__name__)

__all__ = ["Outcome", "handle", "process_one", "process_pending", "requeue_shunted"]


def handle(ctx: MailContext) -> Outcome:
    """Handle one stored message (``ctx.row``) in the caller's transaction and return what was
    decided (the reply is queued by :func:`process_one`). The row's ``command`` is set at the
    end, so that it goes out in the same ``UPDATE`` as the status."""
    try:
        return _handle(ctx)
    finally:
        if ctx.command is not None:
            ctx.row.command = ctx.command


def _handle(ctx: MailContext) -> Outcome:
    from app.league import service as svc

    settings, row, out = ctx.settings, ctx.row, ctx.out
    ctx.stage = "decode"
    mail = ctx.mail = decode_message(
        row.raw,
        max_lines=settings.max_lines,
        max_bytes=settings.max_mail_bytes,
        max_line_chars=settings.max_line_chars,
        omitted=row.omitted,
    )
    ctx.lang = mail.lang

    ctx.stage = "grammar"
    cmd = parse_command(mail.subject, mail.text)
    no_command = False
    if (
        cmd.source == "default"
        and cmd.name == "help"
        and any(looks_like_sheet(a) for a in mail.attachments)
    ):
        cmd.name = "entry"  # only an attached sheet: an entry, like a sheet in the body
    elif (
        cmd.source == "default"
        and cmd.name == "entry"
        and is_chat(mail.subject, cmd.body)
        and not looks_like_orders(cmd.body)
        and not any(looks_like_sheet(a) for a in mail.attachments)
    ):
        # "Great game!" under a quoted battle report: no command, no sheet -> say so, with help
        cmd.name, no_command = "help", True
    ctx.command = column_text(cmd.name, 32)

    ctx.stage = "protect"
    organizer = is_organizer(cmd.name)
    auth = protect.authenticate(
        mail.message, authserv_id=settings.authserv_id, from_domain=mail.sender.rpartition("@")[2]
    )
    known = ctx.known(mail.sender) if mail.sender else None
    rules_ctx = protect.RuleContext(
        settings=settings,
        session=ctx.s,
        mail=mail,
        cmd=cmd,
        size=row.size,
        now=ctx.now,
        auth=auth,
        requires_auth=lambda: ctx.requires_auth(cmd),
        known_sender=known is not None,
        organizer=organizer,
        prove=lambda: protect.proof(ctx.s, settings, mail, cmd, auth, organizer),
    )
    verdict = protect.run_chain(rules_ctx)
    if verdict is not None:
        out.status = verdict.status
        out.rules += list(verdict.rules)
        if verdict.reply is not None:
            ctx.reply(verdict.reply[0], **verdict.reply[1])
        return out
    ctx.proof = rules_ctx.proof()

    ctx.stage = "player"
    try:
        # a new sender: created_at = the mail's time (counted by the unknown-senders rule)
        ctx.player = known or svc.create_player(
            ctx.s,
            mail.sender,
            created_at=ctx.now,
            charset="iso-2022-jp" if mail.charset == "iso-2022-jp" else None,
        )
    except ValueError:  # an address the league layer cannot hold: nobody to answer
        out.status, out.rules = "ignored", ["bad-sender"]
        return out
    ctx.new_player = known is None
    player = ctx.player
    if mail.charset == "iso-2022-jp":
        player.charset = "iso-2022-jp"
    # the name is given only when an entry is accepted (``MailContext.settle_name``): a
    # rejected or refused mail changes nothing about its sender
    ctx.wanted_name = clean_display_name(cmd.display_name or "") or mail.display_name
    ctx.may_rename = known is None or not player.display_name or ctx.proof is not None
    ctx.name_before = player.display_name or ""
    ctx.lang = cmd.lang or mail.lang

    ctx.stage = f"command:{cmd.name}"
    if no_command:
        cmd_help(ctx, cmd, no_command=True)
    else:
        REGISTRY[cmd.name].handler(ctx, cmd)
    if out.reply is not None or out.deferred is not None:
        player.lang = ctx.lang
    return out


# ---------------------------------------------------------------------------------------------
# driving


def process_one(
    settings: Settings,
    factory: sessionmaker[Session],
    inbound_id: int,
    *,
    now: dt.datetime | None = None,
) -> str | None:
    """Process one stored message (see the module docstring). Returns its new status, or
    ``None`` when it was not in status ``stored``. Never raises for a bad message."""
    now = now or utcnow()
    handler: MailContext | None = None
    try:
        with transaction(factory) as s:
            row = _claim(s, inbound_id)
            if row is None:
                return None
            handler = MailContext(settings, s, row, now, factory)
            out = handle(handler)
            handler.stage = "reply"
            # the row's new state first: one UPDATE with the command, flushed with the reply
            row.status = out.status
            row.rules = out.rules or None
            row.processed_at = now
            row.error = None
            status = out.status
            if out.reply is not None and handler.mail is not None:
                template, ctx = out.reply
                queue_reply(
                    s,
                    settings,
                    row,
                    handler.mail,
                    handler.player,
                    handler.lang,
                    template,
                    ctx,
                    out.html,
                    now,
                    to=out.to,
                    subject=out.subject,
                )
    except Exception as exc:
        stage = handler.stage if handler is not None else "load"
        log.exception("inbound #%s shunted at %s", inbound_id, stage)
        with transaction(factory) as s:
            # only a row still ``stored``: another poller may have processed it meanwhile, and
            # its ``done`` is never overwritten (issue 9.4)
            shunted = rowcount(
                s.execute(
                    update(InboundMessage)
                    .where(InboundMessage.id == inbound_id, InboundMessage.status == "stored")
                    .values(
                        status="shunted",
                        processed_at=now,
                        error=column_text(f"{stage}: {type(exc).__name__}: {exc}", 4000),
                    )
                )
            )
        return "shunted" if shunted else None
    if handler is not None and handler.out.deferred is not None:
        try:
            template, ctx = handler.out.deferred()
        except Exception:
            log.exception("organizer command of inbound #%s failed", inbound_id)
            ctx, template = (
                {
                    "code": "organizer-failed",
                    "action": handler.stage.rpartition(":")[2],
                    "detail": "an internal error; it is in the server log",
                },
                "error",
            )
        with transaction(factory) as s:
            row = s.get(InboundMessage, inbound_id)
            player = s.scalar(
                select(Player).where(
                    Player.address == (handler.mail.sender if handler.mail else "")
                )
            )
            assert row is not None and handler.mail is not None
            queue_reply(
                s, settings, row, handler.mail, player, handler.lang, template, ctx, None, now
            )
    return status


def _claim(s: Session, inbound_id: int) -> InboundMessage | None:
    """Claim inbound row ``inbound_id`` for this transaction, or ``None`` when it is not
    ``stored`` or another poller holds it: on PostgreSQL ``SELECT ... FOR UPDATE SKIP LOCKED``
    (the row stays locked until this transaction ends, and the other poller skips it; after
    our commit it is no longer ``stored``); on SQLite the transaction began with ``BEGIN
    IMMEDIATE`` (``app.db.session``), so no other writer runs until it ends. Two pollers on one
    database never process one mail twice (issue 9.4)."""
    q = (
        select(InboundMessage)
        .where(InboundMessage.id == inbound_id, InboundMessage.status == "stored")
        .execution_options(populate_existing=True)
    )
    if s.get_bind().dialect.name == "postgresql":
        q = q.with_for_update(skip_locked=True)
    return s.scalar(q)


def process_pending(
    settings: Settings,
    factory: sessionmaker[Session],
    *,
    now: dt.datetime | None = None,
    limit: int | None = None,
    stop: Any = None,
) -> int:
    """Process every ``stored`` inbound message in id order, each claimed first
    (:func:`_claim`), until ``stop`` (a ``threading.Event``) is set. Returns how many were
    processed."""
    with factory() as s:
        q = (
            select(InboundMessage.id)
            .where(InboundMessage.status == "stored")
            .order_by(InboundMessage.id)
        )
        if limit:
            q = q.limit(limit)
        ids = list(s.scalars(q))
    n = 0
    for inbound_id in ids:
        if stop is not None and stop.is_set():
            break
        if process_one(settings, factory, inbound_id, now=now) is not None:
            n += 1
    return n


def requeue_shunted(factory: sessionmaker[Session], ids: list[int] | None = None) -> int:
    """Put shunted messages (all, or those in ``ids``) back to ``stored``. Returns the count."""
    with transaction(factory) as s:
        q = select(InboundMessage).where(InboundMessage.status == "shunted")
        if ids:
            q = q.where(InboundMessage.id.in_(ids))
        rows = list(s.scalars(q))
        for row in rows:
            row.status, row.error = "stored", None
        return len(rows)
