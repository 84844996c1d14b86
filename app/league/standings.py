"""The one standings pipeline: a league's standings as its format ranks them
(``Format.standings``, through ``app.league.formats``), with public names, units and ratings
attached: the :class:`app.reports.standings.StandingsTable` that the web page, both parts of the
standings mail, ``standings.csv`` and the league's JSON all render (so they always agree).

Every format goes through it, round robin included; there is no other standings path. What a
line shows of an entry is public: the player's public name (``app.league.privacy``) and the unit
of the newest sheet that has fought (a replacement made between rounds is shown only once it has
fought; before any battle, the sheet the entry was seated with).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Player, Round, SheetVersion
from app.formats import Format, Standings
from app.league import ratings as rt
from app.league.formats import (
    HistoryCache,
    format_standings,
    is_digest_round,
    round_fights,
    rounds_planned,
)
from app.league.notify import RewriteNotice
from app.league.privacy import public_name
from app.reports.dates import human_time
from app.reports.standings import PairingView, StandingLine, StandingsContext, StandingsTable


def public_units(
    session: Session, league_id: int, entry_ids: set[int] | list[int]
) -> dict[int, str]:
    """Entry id → the unit name others may see (see the module docstring): the newest sheet of
    the entry in a fought battle, else the sheet of its first stored battle, else its active
    sheet (leagues whose sheets are public before any round: an always-open format, or the
    entrants list an organizer shows)."""
    ids = sorted(set(entry_ids))
    if not ids:
        return {}
    b, r = Battle, Round
    fought: dict[int, int] = {}
    seated: dict[int, int] = {}
    for side_entry, side_sheet in ((b.entry_a_id, b.sheet_a_id), (b.entry_b_id, b.sheet_b_id)):
        q = (
            select(
                side_entry, func.max(case((b.state == "done", side_sheet))), func.min(side_sheet)
            )
            .join(r, b.round_id == r.id)
            .where(r.league_id == league_id, side_entry.in_(ids), side_sheet.is_not(None))
            .group_by(side_entry)
        )
        for eid, newest, oldest in session.execute(q):
            if newest is not None:
                fought[eid] = max(fought.get(eid, 0), int(newest))
            seated[eid] = min(seated.get(eid, 10**18), int(oldest))
    active = {
        eid: sid
        for eid, sid in session.execute(
            select(SheetVersion.entry_id, SheetVersion.id).where(
                SheetVersion.entry_id.in_(ids), SheetVersion.active
            )
        )
    }
    chosen = {eid: fought.get(eid) or seated.get(eid) or active.get(eid) for eid in ids}
    sids = {sid for sid in chosen.values() if sid}
    names = (
        {
            sid: name
            for sid, name in session.execute(
                select(SheetVersion.id, SheetVersion.unit_name).where(SheetVersion.id.in_(sids))
            )
        }
        if sids
        else {}
    )
    return {eid: names.get(sid, "") if sid else "" for eid, sid in chosen.items()}


def _format_rows(
    session: Session, league: League, upto: int | None, history: HistoryCache | None
) -> tuple[Format, Standings]:
    """The format's standings; before entries close (no seat yet) every active entry with a
    sheet is listed at zero, in entry order."""
    if league.state == "open" and not _seated(session, league):
        from app.league.formats import format_of

        fmt = format_of(league)
        ids = [
            eid
            for (eid,) in session.execute(
                select(Entry.id)
                .join(SheetVersion, SheetVersion.entry_id == Entry.id)
                .where(Entry.league_id == league.id, Entry.status == "active", SheetVersion.active)
                .order_by(Entry.id)
            )
        ]
        if fmt.keeps_state:
            return format_standings(session, league, upto=upto, cache=history)
        return fmt, fmt.standings(ids, [])
    return format_standings(session, league, upto=upto, cache=history)


def _seated(session: Session, league: League) -> bool:
    return bool(
        session.scalar(
            select(func.count())
            .select_from(Entry)
            .where(Entry.league_id == league.id, Entry.seat.is_not(None))
        )
    )


def standings_table(
    session: Session,
    league: League,
    *,
    upto_round: int | None = None,
    history: HistoryCache | None = None,
    secret: bool = False,
) -> StandingsTable:
    """The standings of ``league`` after round ``upto_round`` (default: everything played) as
    the read model every surface renders. Active entries are ranked (disqualified and withdrawn
    ones and their games are left out, as the format says); ``history``: the league's
    :class:`~app.league.formats.HistoryCache` of this run; ``secret``: the units are left out
    (a league whose sheets are still secret). Ratings are the players' ratings in the league's
    game."""
    fmt, table = _format_rows(session, league, upto_round, history)
    eids = [r.entry for r in table.rows]
    owners: dict[int, int] = (
        {
            eid: pid
            for eid, pid in session.execute(
                select(Entry.id, Entry.player_id).where(Entry.id.in_(eids))
            )
        }
        if eids
        else {}
    )
    players = (
        {
            pid: public_name(dn, addr, pid)
            for pid, dn, addr in session.execute(
                select(Player.id, Player.display_name, Player.address).where(
                    Player.id.in_(set(owners.values()))
                )
            )
        }
        if owners
        else {}
    )
    units = {} if secret else public_units(session, league.id, eids)
    rated = rt.latest(session, set(owners.values()), league.ruleset or "") if owners else {}
    columns = fmt.columns()
    lines = []
    for r in table.rows:
        if r.entry not in owners:
            continue
        pid = owners[r.entry]
        values = tuple(_value(r, c.key) for c in columns)
        rating = rated.get(pid)
        lines.append(
            StandingLine(
                rank=r.rank,
                shared=r.shared,
                entry_id=r.entry,
                player_id=pid,
                name=players[pid],
                unit=units.get(r.entry, ""),
                played=r.played,
                wins=r.wins,
                draws=r.draws,
                losses=r.losses,
                byes=r.byes,
                points=r.points,
                values=values,
                rating=None if rating is None else rating.mu - 3.0 * rating.sigma,
            )
        )
    return StandingsTable(fmt.name, fmt.view, fmt.primary_column(), columns, tuple(lines))


def _value(row: Any, key: str) -> Any:
    for name, value in row.tiebreaks:
        if name == key:
            return value
    return row.detail.get(key)


def standings(
    session: Session, league: League, *, upto_round: int | None = None
) -> list[StandingLine]:
    """The standings lines of ``league`` (:func:`standings_table`), best first."""
    return list(standings_table(session, league, upto_round=upto_round).lines)


def standings_context(
    session: Session,
    league: League,
    *,
    upto_round: int | None = None,
    history: HistoryCache | None = None,
    rewrites: tuple[RewriteNotice, ...] = (),
) -> StandingsContext:
    """The :class:`~app.reports.standings.StandingsContext` of ``league`` after
    ``upto_round`` (default: the last round done): the table, the next round's pairings, the
    disqualified players, the format's description, and the entry ``rewrites`` applied after
    that round; ``history`` as for :func:`standings_table`."""
    from app.league.formats import format_of

    rounds = list(
        session.execute(
            select(Round.id, Round.number, Round.state, Round.scheduled_at, Round.done_at)
            .where(Round.league_id == league.id)
            .order_by(Round.number)
        )
    )
    done = [r.number for r in rounds if r.state == "done"]
    after = upto_round if upto_round is not None else (max(done) if done else 0)
    table = standings_table(session, league, upto_round=after, history=history)
    # the round after "after round N" is N+1 (the first numbered above N), whatever its state:
    # standings resent after later rounds were played still show the pairings that followed N
    nxt = next((r for r in rounds if r.number > after), None)
    pairings: list[PairingView] = []
    summary: tuple[int, int] | None = None
    fmt = format_of(league)
    boards: list[Any] = []
    fights: dict[int, int] = {}  # battles of each entry in the next round
    if nxt is not None and fmt.all_play_all:  # a digest round: counted, its boards not read
        fights = round_fights(session, nxt.id)
    elif nxt is not None:
        boards = list(
            session.execute(
                select(Battle.board, Battle.entry_a_id, Battle.entry_b_id, Battle.state)
                .where(Battle.round_id == nxt.id)
                .order_by(Battle.board)
            )
        )
        fights = dict(Counter(e for _, a, b, _ in boards if b is not None for e in (a, b)))
    if nxt is not None and is_digest_round(fmt, fights):
        summary = (sum(fights.values()) // 2, max(fights.values(), default=0))
    elif boards:
        ids = {e for _, a, b, _ in boards for e in (a, b) if e is not None}
        names = entry_names(session, ids)
        units = public_units(session, league.id, ids)
        for board, ea, eb, state in boards:
            if state == "void":
                continue
            pairings.append(
                PairingView(
                    board,
                    names.get(ea, "?"),
                    units.get(ea, "?"),
                    names.get(eb, "?") if eb else None,
                    units.get(eb, "?") if eb else None,
                )
            )
    dq = [
        public_name(name, address, pid)
        for name, address, pid in session.execute(
            select(Player.display_name, Player.address, Player.id)
            .join(Entry, Entry.player_id == Player.id)
            .where(Entry.league_id == league.id, Entry.status == "disqualified")
            .order_by(Entry.id)
        )
    ]
    if league.state == "finished" and after == max(done, default=0):
        state = "finished"
    else:
        state = league.state if league.state != "finished" else "running"
    planned = rounds_planned(session, league) if rounds else None
    return StandingsContext(
        league=league.name,
        state=state,
        after_round=after,
        rounds_total=max(planned, len(rounds)) if planned is not None else None,
        table=table,
        points=_points_rule(fmt),
        next_round=nxt.number if nxt else None,
        next_round_at=(
            human_time(nxt.done_at if nxt.state == "done" and nxt.done_at else nxt.scheduled_at)
            if nxt
            else ""
        ),
        next_pairings=pairings,
        next_summary=summary,
        disqualified=dq,
        format_titles=dict(fmt.titles),
        format_lines={lang: fmt.describe(lang) for lang in ("ja", "en")},
        rewrites=_rewrite_lines(rewrites),
    )


def _points_rule(fmt: Format) -> str:
    """The format's ``W/D/L`` points rule, ``""`` when it scores otherwise (a knockout; the
    win-rate points of an accumulating league, which its description explains)."""
    rule = str(fmt.options.get("points", ""))
    return rule if rule.count("/") == 2 else ""


def _rewrite_lines(rewrites: tuple[RewriteNotice, ...]) -> dict[str, list[str]]:
    from app.reports.i18n import gettext

    out: dict[str, list[str]] = {}
    for lang in ("ja", "en"):
        _ = gettext(lang)
        out[lang] = [
            _(
                "Round %(round)s board %(board)s: %(name)s's entry %(old)s is now "
                "%(new)s (a rewrite the battle asked for)"
            )
            % {
                "round": r.round,
                "board": r.board,
                "name": r.name,
                "old": r.old_unit,
                "new": r.source_unit,
            }
            for r in rewrites
        ]
    return out if rewrites else {}


def entry_names(session: Session, entry_ids: set[int] | list[int]) -> dict[int, str]:
    """Entry id → its player's public name."""
    ids = list(set(entry_ids))
    if not ids:
        return {}
    return {
        eid: public_name(dn, addr, pid)
        for eid, pid, dn, addr in session.execute(
            select(Entry.id, Player.id, Player.display_name, Player.address)
            .join(Player, Entry.player_id == Player.id)
            .where(Entry.id.in_(ids))
        )
    }


def render_standings(
    session: Session,
    league: League,
    *,
    lang: str,
    fmt: str = "text",
    upto_round: int | None = None,
    public_url: str = "",
) -> str:
    """The standings of ``league`` rendered in ``lang`` (``ja``/``en``) as ``fmt``
    (``text``/``html``; with ``public_url``, the HTML links to the league's page). Raises
    ``ValueError`` for an unknown language or format."""
    from app.reports.standings import render_standings_context
    from app.reports.urls import mail_link

    ctx = standings_context(session, league, upto_round=upto_round)
    return render_standings_context(
        replace(ctx, url=mail_link(public_url, league.name)), lang=lang, fmt=fmt
    )
