"""Orders by mail, for a league whose ruleset takes them (``Ruleset.takes_orders``: Margaret
Magicalized's hand and standing orders, ``shared/rules/margaret-magicalized.md`` §3, §4.2).

A mail is an orders mail by what it holds, not by a command word: an orders text
(``Ruleset.orders_start``; its own command line, e.g. ``MAGICALIZED <league> HAND <key>``, may
name the league and carry the entry key) with no sheet above it. Below a sheet, the same text is
the entry's orders, entered with the sheet or not at all (``cmd_entry``). Three things can come
in:

* **orders** (a hand and its rules, sections ``DEFAULT``/``VS <unit>``): checked at once; an
  accepted text becomes the entry's standing orders (``app.league.orders.submit_orders``). Like
  a replacement sheet it needs a proof of ownership (the entry key, or our server's DMARC
  verdict), else it waits for the owner's confirmation (a forged hand mail would be a
  takeover);
* **a revision** at a checkpoint (the player has a battle stopped at one, and the text is not a
  whole orders text): ``app.league.orders.revise_orders``; it needs the key (or DMARC): there
  is no time for a confirmation round trip;
* **READY** (the command ``ready``/``準備完了``): go on with the orders as they are.

Every answer goes to the sender and carries nothing of anyone else's orders.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from app.db.models import Battle, Entry, PendingChange, SheetVersion
from app.league import ownership
from app.mail import protect
from app.mail.commands.confirmation import request_confirmation
from app.mail.commands.context import MAX_PROBLEMS, MailContext
from app.mail.commands.registry import N_, command
from app.mail.grammar import Command
from app.mail.replies import OrdersFields
from app.mail.sheets import orders_command, rules, split_orders
from app.rules import Ruleset


def orders_context(rs: Ruleset, sheet: Any, lang: str) -> OrdersFields:
    """The reply's view of checked orders (``Ruleset.parse_orders``'s :class:`OrdersSheet`):
    the normalized text and sections when they read, else every problem (at most
    :data:`MAX_PROBLEMS`, each with its line and fix)."""
    if sheet.ok:
        warnings = list(sheet.warnings)
        return OrdersFields(
            ok=True,
            normalized=rs.format_orders(sheet.orders, lang),
            sections=[s if s is not None else "DEFAULT" for s in sheet.sections],
            warnings=rs.format_problems(warnings[:MAX_PROBLEMS], lang) if warnings else "",
        )
    problems = list(sheet.problems)
    return OrdersFields(ok=False, problems=rs.format_problems(problems[:MAX_PROBLEMS], lang))


def _league(ctx: MailContext, cmd: Command, named: str | None) -> Any | None:
    """The league an orders mail is about: the one its command line names, else the plus
    address, the ``[NAME]`` tag, the sender's current entry, the only open league."""
    from app.league import service as svc

    if named:
        league = svc.find_league(ctx.s, named)
        if league is None:
            ctx.refuse(
                "no-such-league",
                "error",
                code="no-such-league",
                league=named,
                open=[lg.name for lg in svc.open_leagues(ctx.s)],
            )
        return league
    return ctx.league(cmd, any_state=True, mine="orders")


def _entry(ctx: MailContext, league: Any, *, own_lang: bool = False) -> Entry | None:
    """The sender's active entry in ``league``; without one, refuse (``not-entered``). With
    ``own_lang`` (an orders mail) the answer is in the player's own language once they have
    one: an orders text mixes English keywords with Japanese card names, so its words say
    little about its writer (a command word, as READY's, does)."""
    assert ctx.player is not None
    if own_lang and ctx.player.lang in ("ja", "en") and ctx.player.created_at != ctx.now:
        ctx.lang = ctx.player.lang
    entry = ctx.s.scalar(
        select(Entry).where(Entry.league_id == league.id, Entry.player_id == ctx.player.id)
    )
    if entry is None or entry.status != "active":
        ctx.refuse("not-entered", "error", code="not-entered", league=league.name)
        return None
    return entry


def _proven(ctx: MailContext, entry: Entry, key: str | None) -> bool:
    """The mail proves it comes from ``entry``'s owner (DMARC, or the entry key); a wrong key
    is counted for the lockout."""
    if ctx.proof == "dmarc":
        return True
    if key and ownership.key_matches(entry, key):
        return True
    if key:
        protect.count_failure(ctx.s, ctx.settings, ctx.sender, "key", ctx.now)
    return False


def _usable(ctx: MailContext, league: Any) -> Ruleset | None:
    """``league``'s ruleset when it takes orders and the league is not over; else refuse."""
    rs = rules(league)
    if not rs.takes_orders:
        ctx.refuse(
            "no-orders",
            "error",
            code="no-orders",
            league=league.name,
            detail=rs.titles.get(ctx.lang, rs.name),
        )
        return None
    if league.state == "finished":
        ctx.refuse("finished", "error", code="finished", league=league.name)
        return None
    return rs


def handle_orders(ctx: MailContext, cmd: Command) -> None:
    """Answer a mail that holds orders and no sheet (``app.mail.sheets.looks_like_orders``):
    new standing orders, or a revision at a checkpoint (module docstring)."""
    from app.league.orders import paused_battles, submit_orders

    named, key = orders_command(cmd.body) or (None, None)
    key = cmd.key or key
    league = _league(ctx, cmd, named)
    if league is None:
        return
    rs = _usable(ctx, league)
    if rs is None:
        return
    entry = _entry(ctx, league, own_lang=True)
    if entry is None:
        return
    _, text = split_orders(cmd.body, rs)
    sheet = rs.parse_orders(text, lang=ctx.lang)
    paused = paused_battles(ctx.s, league, entry)
    if not sheet.ok and paused:
        _revise(ctx, league, entry, rs, text, key, paused)
        return
    fields = orders_context(rs, sheet, ctx.lang)
    if not sheet.ok:
        ctx.reply("orders", code="rejected", league=league.name, orders=fields)
        return
    fields = dataclasses.replace(
        fields, unknown_vs=_unknown_opponents(ctx, league, entry, sheet.sections)
    )
    if not _proven(ctx, entry, key):
        request_confirmation(ctx, entry, league, dataclasses.replace(cmd, key=key), "orders", text)
        return
    assert ctx.player is not None
    outcome = submit_orders(ctx.s, league, ctx.player, text, rs, inbound_id=ctx.row.id, now=ctx.now)
    ctx.reply(
        "orders",
        code="accepted",
        league=league.name,
        orders=fields,
        version=outcome.version,
        key=ownership.ensure_key(entry),
        paused=bool(paused),
        revision=rs.revision_form(int(paused[0].stop_turn or 0) + 1, ctx.lang) if paused else "",
    )


def _unknown_opponents(
    ctx: MailContext, league: Any, entry: Entry, sections: Sequence[str | None]
) -> list[str]:
    """The ``VS`` names of ``sections`` that name no other active entry's unit in ``league``
    (compared whole after NFKC, as G58 matches them): such a section is never used, which the
    reply says (a misspelt opponent would otherwise fight with DEFAULT unnoticed)."""
    named = [s for s in sections if s is not None]
    if not named:
        return []
    units = ctx.s.scalars(
        select(SheetVersion.unit_name)
        .join(Entry, SheetVersion.entry_id == Entry.id)
        .where(
            Entry.league_id == league.id,
            Entry.status == "active",
            Entry.id != entry.id,
            SheetVersion.active.is_(True),
        )
    ).all()
    known = {unicodedata.normalize("NFKC", u).strip() for u in units}
    return [n for n in named if unicodedata.normalize("NFKC", n).strip() not in known]


def _revise(
    ctx: MailContext,
    league: Any,
    entry: Entry,
    rs: Ruleset,
    text: str,
    key: str | None,
    paused: list[Battle],
) -> None:
    """A revision of the orders of the sender's stopped battles (``revise_orders``)."""
    from app.league.orders import revise_orders
    from app.league.standings import public_units

    if not _proven(ctx, entry, key):
        ctx.refuse(
            "orders-unproven", "orders", code="unproven", league=league.name, wrong_key=bool(key)
        )
        return
    others = {b.id: (b.entry_b_id if b.entry_a_id == entry.id else b.entry_a_id) for b in paused}
    units = public_units(ctx.s, league.id, {e for e in others.values() if e is not None})
    opponents = {bid: units.get(eid, "") if eid is not None else "" for bid, eid in others.items()}
    assert ctx.player is not None
    done = revise_orders(ctx.s, league, ctx.player, text, rs, opponents, now=ctx.now, lang=ctx.lang)
    battles = [
        {
            "opponent": r.opponent,
            "from_turn": r.from_turn,
            "accepted": r.accepted,
            "problems": ""
            if r.accepted
            else rs.format_problems(list(r.sheet.problems)[:MAX_PROBLEMS], ctx.lang),
        }
        for r in done
    ]
    if not any(r.accepted for r in done):
        ctx.out.status = "refused"
        ctx.out.rules.append("revision-rejected")
    ctx.reply(
        "orders",
        code="revised",
        league=league.name,
        battles=battles,
        key=ownership.ensure_key(entry),
    )


def confirm_orders(
    ctx: MailContext, change: PendingChange, entry: Entry, base: dict[str, Any]
) -> None:
    """The owner confirmed orders that waited for it (``PendingChange.kind`` ``orders``): make
    them the standing orders if the league still takes them."""
    from app.league.errors import LeagueError
    from app.league.orders import submit_orders

    league, player = entry.league, entry.player
    rs = rules(league)
    try:
        outcome = submit_orders(
            ctx.s,
            league,
            player,
            change.sheet_text or "",
            rs,
            inbound_id=change.inbound_id,
            now=ctx.now,
        )
    except LeagueError as exc:
        ownership.mark_done(change, "refused", ctx.now, str(exc))
        ctx.refuse(exc.code, "confirm", code="refused", **base)
        return
    ownership.mark_done(change, "done" if outcome.accepted else "refused", ctx.now)
    ctx.reply(
        "orders",
        code="accepted" if outcome.accepted else "rejected",
        league=league.name,
        orders=orders_context(rs, outcome.sheet, ctx.lang),
        version=outcome.version,
        key=ownership.ensure_key(entry),
    )


def enter_orders(ctx: MailContext, league: Any, rs: Ruleset, text: str) -> None:
    """Make ``text`` (checked already) the sender's standing orders in ``league``, right after
    the sheet above it was entered in this mail's transaction."""
    from app.league.orders import submit_orders

    assert ctx.player is not None
    submit_orders(ctx.s, league, ctx.player, text, rs, inbound_id=ctx.row.id, now=ctx.now)


def _stopped_league(ctx: MailContext, cmd: Command) -> Any | None:
    """For READY without a league named (plus address, tag): the one league where the sender
    has battles stopped at a checkpoint, when there is exactly one."""
    from app.db.models import League, Round

    if ctx.plus_names() or cmd.tag or ctx.player is None or ctx.player.id is None:
        return None
    mine = select(Entry.id).where(Entry.player_id == ctx.player.id)
    found = list(
        dict.fromkeys(
            ctx.s.scalars(
                select(League)
                .join(Round, Round.league_id == League.id)
                .join(Battle, Battle.round_id == Round.id)
                .where(
                    Battle.state == "paused",
                    Battle.entry_a_id.in_(mine) | Battle.entry_b_id.in_(mine),
                )
            )
        )
    )
    return found[0] if len(found) == 1 else None


@command(
    "ready",
    en=("ready",),
    ja=("準備完了", "準備ok"),
    usage="ready",
    usage_ja="準備完了",
    help_en=N_("at a checkpoint: go on with your orders as they are (with your key line)"),
)
def cmd_ready(ctx: MailContext, cmd: Command) -> None:
    """READY: the sender goes on with their orders in each of their battles stopped at a
    checkpoint (``app.league.orders.mark_ready``). Needs the entry key (or DMARC)."""
    from app.league.orders import mark_ready, paused_battles

    league = _stopped_league(ctx, cmd) or _league(ctx, cmd, None)
    if league is None:
        return
    rs = _usable(ctx, league)
    if rs is None:
        return
    entry = _entry(ctx, league)
    if entry is None:
        return
    if not paused_battles(ctx.s, league, entry):
        ctx.refuse("no-checkpoint", "orders", code="no-checkpoint", league=league.name)
        return
    if not _proven(ctx, entry, cmd.key):
        ctx.refuse(
            "orders-unproven",
            "orders",
            code="unproven",
            league=league.name,
            wrong_key=bool(cmd.key),
        )
        return
    assert ctx.player is not None
    n = mark_ready(ctx.s, league, ctx.player, now=ctx.now)
    ctx.reply("orders", code="ready", league=league.name, count=n, key=ownership.ensure_key(entry))
