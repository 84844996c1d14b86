"""Read models of the leagues: the list of leagues and a league's page (its settings, standings,
cross-table, schedule and rounds, shown as its format is: ``Format.view``).

The standings are the one standings pipeline's (``app.league.standings.standings_table``), after
the last round played, cached per process under the league's fingerprint.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Round, SheetVersion
from app.formats import Game, Pairing, Result
from app.league.formats import format_of, rounds_planned, state_of
from app.league.queries.common import (
    EntryRef,
    Names,
    PlayerRef,
    cache,
    find_league,
    league_fingerprint,
)
from app.league.standings import standings_table
from app.league.timeparse import as_utc
from app.reports.standings import StandingsTable

#: the cross-table is cut into blocks of this many rows and columns above :data:`CROSS_FULL`
CROSS_BLOCK = 50
#: up to this many entries the cross-table is shown whole
CROSS_FULL = 60
#: up to this many boards in all, a league's rounds are listed with every board
INLINE_BOARDS = 400
#: the recent arrivals a league that fights entries on arrival shows
RECENT_ARRIVALS = 20


@dataclass(frozen=True, slots=True)
class LeagueSummary:
    """A league in the list of leagues.

    Attributes:
        name: the league's name (``/leagues/NAME``).
        ruleset: the ruleset's stored name.
        format: the format's name (``round-robin``, ``swiss``, …); ``format_titles`` its name
            by language (``Format.titles``); ``view`` how it is shown (``Format.view``).
        state: ``open``, ``closed``, ``running`` or ``finished``.
        always_open: the format takes entries at any time (no deadline, no close).
        entries: entries with a valid sheet (while open) or seated entries (after closing),
            disqualified ones excluded; in an always-open league, its active entries.
        rounds_total: the rounds the league will play when its format fixes them (a round
            robin, Swiss, single elimination), else ``None``.
        rounds_done: the rounds (or arrivals) played.
        next_round: the number of the next round to play, ``None`` when none is left.
        next_round_at: when it is due (UTC), ``None`` when the organizer runs rounds by hand.
        entry_deadline: the entry deadline (UTC), ``None`` for an always-open league.
        created_at: when the league was opened (UTC).
        winners: a finished league's entries at rank 1 of its own standings (several when the
            first place is shared), whatever its format; ``()`` for a league not finished.
    """

    name: str
    ruleset: str
    format: str
    format_titles: Mapping[str, str]
    view: str
    state: str
    always_open: bool
    entries: int
    rounds_total: int | None
    rounds_done: int
    next_round: int | None
    next_round_at: dt.datetime | None
    entry_deadline: dt.datetime | None
    created_at: dt.datetime | None
    winners: tuple[EntryRef, ...] = ()

    @property
    def phase(self) -> str:
        """``open`` (taking entries), ``running`` (closed or running) or ``finished``; an
        always-open league is ``open``."""
        return {"closed": "running"}.get(self.state, self.state)


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    """A league's public settings (never its password, only whether it needs one).

    ``format_lines`` by language are what the format is and how it pairs
    (``Format.describe``); ``format_options`` its options; ``rounds_every_s`` the seconds between
    rounds (``None``: run by the organizer); ``seed`` the published seed; ``options`` the
    ruleset's options; ``ruleset_lines`` by language its record (``Ruleset.describe``)."""

    ruleset: str
    format: str
    format_options: dict[str, Any]
    format_lines: Mapping[str, list[str]]
    rounds_every_s: int | None
    entry_deadline: dt.datetime | None
    seed: str
    password_required: bool
    show_entrants: bool
    options: dict[str, Any] = field(default_factory=dict)
    ruleset_lines: Mapping[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One board of a round.

    Attributes:
        battle_id: the battle (``/leagues/NAME/battles/ID``).
        round, board: the round number and the board number in it (1-based).
        a, b: the two sides; ``b`` is ``None`` for a bye.
        state: ``pending``, ``done``, ``void`` (a disqualified entry's game, never fought) or
            ``bye``.
        winner: 0 (A), 1 (B) or ``None`` (a draw, or not fought).
        reason: the termination (``death``, ``overkill``, ``hp``, ``draw``, …) or ``None``.
        turns: the last turn played, ``None`` before the battle.
        hp: the final HP of A and B (HP), ``None`` before the battle.
        advanced: in a format that decides every board (``Format.decides_draws``), who went
            through (0 A, 1 B), and ``decided_by`` how (``win``, ``margin``, ``lot``, ``bye``).
    """

    battle_id: int
    round: int
    board: int
    a: EntryRef
    b: EntryRef | None
    state: str
    winner: int | None
    reason: str | None
    turns: int | None
    hp: tuple[int, int] | None
    advanced: int | None = None
    decided_by: str | None = None

    def result_for(self, entry_id: int) -> str | None:
        """``W``, ``D`` or ``L`` for the side of ``entry_id`` in a fought battle, else ``None``."""
        if self.state != "done" or self.b is None:
            return None
        if self.winner is None:
            return "D"
        mine = 0 if self.a.entry_id == entry_id else 1
        return "W" if self.winner == mine else "L"


@dataclass(frozen=True, slots=True)
class RoundLine:
    """A round: its number, ``scheduled``/``done``, when it is due and when it was played (UTC),
    its counts of battles (byes excluded; ``battles_paused`` of them stopped at a checkpoint of
    a ruleset with orders), its boards (``None`` when not loaded: see the round's own page) and
    its ``note`` (``challenge``, ``update``, ``final``, …)."""

    number: int
    state: str
    scheduled_at: dt.datetime | None
    done_at: dt.datetime | None
    battles: int
    battles_done: int
    boards: tuple[BoardLine, ...] | None
    note: str = ""
    battles_paused: int = 0


@dataclass(frozen=True, slots=True)
class CrossCell:
    """One battle in a cross-table cell, from the row entry's side: ``result`` ``W``/``D``/``L``."""

    battle_id: int
    round: int
    result: str


@dataclass(frozen=True, slots=True)
class CrossTable:
    """A block of the cross-table in standings order.

    ``rows``/``cols`` are entries; ``cells[(row entry id, col entry id)]`` lists the battles
    between them (two in a double round-robin; none on the diagonal or before they met).
    ``row_block``/``col_block`` are 1-based block numbers out of ``blocks`` (1 when the table is
    whole), ``size`` the number of entries in the table."""

    rows: tuple[EntryRef, ...]
    cols: tuple[EntryRef, ...]
    cells: dict[tuple[int, int], tuple[CrossCell, ...]]
    row_block: int
    col_block: int
    blocks: int
    size: int

    @property
    def row_offset(self) -> int:
        """The standings index (0-based) of the first row."""
        return (self.row_block - 1) * CROSS_BLOCK if self.blocks > 1 else 0

    @property
    def col_offset(self) -> int:
        """The standings index (0-based) of the first column."""
        return (self.col_block - 1) * CROSS_BLOCK if self.blocks > 1 else 0


@dataclass(frozen=True, slots=True)
class ArrivalLine:
    """One arrival in a league that fights entries on arrival (the hill's challenges): its
    number, the arriving entry, its place after it, whether it replaced its sheet, the entries
    it pushed off, and when it happened (UTC)."""

    number: int
    entry: EntryRef
    place: int | None
    replaced: bool
    pushed_off: tuple[EntryRef, ...]
    done_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class LeagueView:
    """Everything a league page shows.

    Attributes:
        summary, settings: see :class:`LeagueSummary`, :class:`LeagueSettings`.
        secret: True while sheets are secret (entries open): no unit names, no standings.
        entrants: while open and allowed (``show_entrants``): the entrants; else empty.
        after_round: the standings are those after this round (0 before the first).
        table: the standings (``None`` while secret), in the format's own columns.
        rounds: every round, with boards when the schedule is small (:data:`INLINE_BOARDS`).
        disqualified: disqualified players (their games do not count).
        cross: the cross-table block asked for, ``None`` while open or for a format whose
            cross-table says nothing (``Format.cross_table``).
        arrivals: a league that fights entries on arrival: its latest arrivals, newest first.
    """

    summary: LeagueSummary
    settings: LeagueSettings
    secret: bool
    entrants: tuple[EntryRef, ...]
    after_round: int
    table: StandingsTable | None
    rounds: tuple[RoundLine, ...]
    disqualified: tuple[PlayerRef, ...]
    cross: CrossTable | None
    arrivals: tuple[ArrivalLine, ...] = ()

    @property
    def standings(self) -> tuple[Any, ...]:
        """The standings lines, best first (empty while secret)."""
        return self.table.lines if self.table is not None else ()


# --------------------------------------------------------------------------- the list


def _counts(
    session: Session, league_id: int | None = None
) -> tuple[dict[int, int], dict[int, int], dict[int, tuple[int, int]]]:
    """Per league (only ``league_id`` when given): entries with an active sheet (while open),
    seated active entries, and (rounds, rounds done)."""
    one = (
        (lambda q, col: q.where(col == league_id)) if league_id is not None else (lambda q, col: q)
    )
    with_sheet: dict[int, int] = {
        lid: n
        for lid, n in session.execute(
            one(
                select(Entry.league_id, func.count(func.distinct(Entry.id)))
                .join(SheetVersion, SheetVersion.entry_id == Entry.id)
                .where(Entry.status == "active", SheetVersion.active),
                Entry.league_id,
            ).group_by(Entry.league_id)
        )
    }
    seated: dict[int, int] = {
        lid: n
        for lid, n in session.execute(
            one(
                select(Entry.league_id, func.count()).where(
                    Entry.status == "active", Entry.seat.is_not(None)
                ),
                Entry.league_id,
            ).group_by(Entry.league_id)
        )
    }
    rounds: dict[int, tuple[int, int]] = {}
    for lid, state, n in session.execute(
        one(select(Round.league_id, Round.state, func.count()), Round.league_id).group_by(
            Round.league_id, Round.state
        )
    ):
        total, done = rounds.get(lid, (0, 0))
        rounds[lid] = (total + n, done + (n if state == "done" else 0))
    return with_sheet, seated, rounds


def _next_rounds(
    session: Session, league_ids: Iterable[int] | None = None
) -> dict[int, tuple[int, dt.datetime | None]]:
    """Per league: the number and due time of the first round not played."""
    q = (
        select(Round.league_id, func.min(Round.number))
        .where(Round.state != "done")
        .group_by(Round.league_id)
    )
    if league_ids is not None:
        q = q.where(Round.league_id.in_(list(league_ids)))
    firsts: dict[int, int] = {lid: n for lid, n in session.execute(q)}
    out: dict[int, tuple[int, dt.datetime | None]] = {}
    if firsts:
        for lid, number, at in session.execute(
            select(Round.league_id, Round.number, Round.scheduled_at).where(
                Round.league_id.in_(list(firsts))
            )
        ):
            if firsts.get(lid) == number:
                out[lid] = (number, as_utc(at))
    return out


def _summary(
    session: Session,
    league: League,
    with_sheet: dict[int, int],
    seated: dict[int, int],
    rounds: dict[int, tuple[int, int]],
    nexts: dict[int, tuple[int, dt.datetime | None]],
) -> LeagueSummary:
    fmt = format_of(league)
    total, done = rounds.get(league.id, (0, 0))
    nxt = nexts.get(league.id)
    entries = (
        with_sheet.get(league.id, 0)
        if league.state == "open" and not fmt.always_open
        else seated.get(league.id, 0)
    )
    planned = rounds_planned(session, league) if league.state != "open" else None
    winners: tuple[EntryRef, ...] = ()
    if league.state == "finished":
        table = _table(session, league, league_fingerprint(session, league))[1]
        winners = tuple(
            EntryRef(x.entry_id, PlayerRef(x.player_id, x.name), x.unit)
            for x in table.lines
            if x.rank == 1
        )
    return LeagueSummary(
        name=league.name,
        ruleset=league.ruleset,
        format=fmt.name,
        format_titles=dict(fmt.titles),
        view=fmt.view,
        state=league.state,
        always_open=fmt.always_open,
        entries=entries,
        rounds_total=None if planned is None else max(planned, total),
        rounds_done=done,
        next_round=nxt[0] if nxt else None,
        next_round_at=nxt[1] if nxt else None,
        entry_deadline=as_utc(league.entry_deadline),
        created_at=as_utc(league.created_at),
        winners=winners,
    )


def summary_of(session: Session, league: League) -> LeagueSummary:
    """The :class:`LeagueSummary` of one league."""
    with_sheet, seated, rounds_count = _counts(session, league.id)
    return _summary(
        session, league, with_sheet, seated, rounds_count, _next_rounds(session, [league.id])
    )


def list_leagues(session: Session) -> list[LeagueSummary]:
    """Every league: open ones by deadline (always-open ones last), then running, then
    finished (newest first)."""
    leagues = list(session.scalars(select(League).order_by(League.id)))
    with_sheet, seated, rounds = _counts(session)
    nexts = _next_rounds(session)
    out = [_summary(session, lg, with_sheet, seated, rounds, nexts) for lg in leagues]
    order = {"open": 0, "running": 1, "finished": 2}
    far = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
    out.sort(
        key=lambda s: (
            order.get(s.phase, 3),
            (s.entry_deadline or far).timestamp()
            if s.phase == "open"
            else -(s.created_at or far).timestamp(),
            s.name,
        )
    )
    return out


# --------------------------------------------------------------------------- a league


def _settings(league: League) -> LeagueSettings:
    from app.league.formats import league_rules

    fmt = format_of(league)
    rules = league_rules(league)
    return LeagueSettings(
        ruleset=league.ruleset,
        format=fmt.name,
        format_options={k: v for k, v in fmt.options.items() if k != "seed"},
        format_lines={lang: fmt.describe(lang) for lang in ("ja", "en")},
        rounds_every_s=league.rounds_every_s,
        entry_deadline=as_utc(league.entry_deadline),
        seed=league.seed or "",
        password_required=bool(league.password),
        show_entrants=bool(league.show_entrants),
        options=dict(league.options) if isinstance(league.options, dict) else {},
        ruleset_lines={lang: rules.describe(lang) for lang in ("ja", "en")},
    )


def _after_round(session: Session, league: League) -> int:
    return int(
        session.scalar(
            select(func.max(Round.number)).where(
                Round.league_id == league.id, Round.state == "done"
            )
        )
        or 0
    )


def _table(session: Session, league: League, stamp: Any) -> tuple[int, StandingsTable]:
    """The standings after the last round played (cached under ``stamp``)."""
    key = ("table", league.id)
    hit = cache.get(key, stamp)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    after = _after_round(session, league)
    value = (
        after,
        standings_table(
            session, league, upto_round=None if format_of(league).keeps_state else after
        ),
    )
    cache.put(key, stamp, value)
    return value


def _decisions(league: League, rows: Sequence[Any]) -> dict[int, tuple[int, str]]:
    """Battle id → (side that advanced, how) for a format that decides every board."""
    fmt = format_of(league)
    if not fmt.decides_draws:
        return {}
    out: dict[int, tuple[int, str]] = {}
    for row in rows:
        bid, number, board, ea, eb, state, winner, margin, hp_a, hp_b = (
            row.id,
            row.number,
            row.board,
            row.entry_a_id,
            row.entry_b_id,
            row.state,
            row.winner,
            row.margin,
            row.hp_a,
            row.hp_b,
        )
        if eb is None:
            out[bid] = (0, "bye")
            continue
        if state != "done":
            continue
        m = margin if margin is not None else int(hp_a or 0) - int(hp_b or 0)
        d = fmt.decide(number, Game(Pairing(board, ea, eb), Result(winner, int(m))))
        if d is not None:
            out[bid] = (0 if d.winner == ea else 1, d.by)
    return out


def board_line(row: Any, names: Names, decided: Mapping[int, tuple[int, str]]) -> BoardLine:
    """A board from a row of :data:`BOARD_COLUMNS`."""
    bid, number, board, ea, eb, sa, sb, state, winner, reason, turns, ha, hb = row[:13]
    if eb is None:
        state = "bye"
    fought = state == "done" and eb is not None
    adv = decided.get(bid)
    return BoardLine(
        battle_id=bid,
        round=number,
        board=board,
        a=names.entry(ea, sa, fought=fought),
        b=names.entry(eb, sb, fought=fought) if eb is not None else None,
        state=state,
        winner=winner if fought else None,
        reason=reason if fought else None,
        turns=turns if fought else None,
        hp=(int(ha or 0), int(hb or 0)) if fought else None,
        advanced=adv[0] if adv else None,
        decided_by=adv[1] if adv else None,
    )


BOARD_COLUMNS = (
    Battle.id,
    Round.number,
    Battle.board,
    Battle.entry_a_id,
    Battle.entry_b_id,
    Battle.sheet_a_id,
    Battle.sheet_b_id,
    Battle.state,
    Battle.winner,
    Battle.reason,
    Battle.turns,
    Battle.hp_a,
    Battle.hp_b,
    Battle.margin,
)
"""The columns a :class:`BoardLine` is read from (the first 13, then the margin)."""


def boards(
    session: Session,
    league: League,
    names: Names,
    round_numbers: Sequence[int] | None = None,
    *,
    where: Any = None,
) -> dict[int, list[BoardLine]]:
    """Round number → its boards in board order (only ``round_numbers`` when given; ``where``
    an extra condition)."""
    q = (
        select(*BOARD_COLUMNS)
        .join(Round, Battle.round_id == Round.id)
        .where(Round.league_id == league.id)
        .order_by(Round.number, Battle.board)
    )
    if round_numbers is not None:
        if not round_numbers:
            return {}
        q = q.where(Round.number.in_(list(round_numbers)))
    if where is not None:
        q = q.where(where)
    rows = session.execute(q).all()
    decided = _decisions(league, rows)
    out: dict[int, list[BoardLine]] = {}
    for row in rows:
        out.setdefault(row[1], []).append(board_line(row, names, decided))
    return out


def _round_counts(session: Session, league: League, stamp: Any) -> dict[int, tuple[int, int, int]]:
    """Round id → (battles, battles fought, battles stopped at a checkpoint), byes excluded;
    cached under ``stamp``."""
    key = ("round-counts", league.id)
    hit = cache.get(key, stamp)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    counts: dict[int, tuple[int, int, int]] = {}
    for rid, state, n in session.execute(
        select(Battle.round_id, Battle.state, func.count())
        .join(Round, Battle.round_id == Round.id)
        .where(Round.league_id == league.id, Battle.entry_b_id.is_not(None))
        .group_by(Battle.round_id, Battle.state)
    ):
        total, done, paused = counts.get(rid, (0, 0, 0))
        counts[rid] = (
            total + n,
            done + (n if state == "done" else 0),
            paused + (n if state == "paused" else 0),
        )
    cache.put(key, stamp, counts)
    return counts


def _rounds(
    session: Session, league: League, names: Names, inline: bool | None = None, stamp: Any = None
) -> tuple[RoundLine, ...]:
    counts = _round_counts(
        session, league, stamp if stamp is not None else league_fingerprint(session, league)
    )
    rounds = list(
        session.execute(
            select(
                Round.id, Round.number, Round.state, Round.scheduled_at, Round.done_at, Round.note
            )
            .where(Round.league_id == league.id)
            .order_by(Round.number)
        )
    )
    total_boards = sum(c[0] for c in counts.values())
    if inline is None:
        inline = total_boards <= INLINE_BOARDS
    if inline:
        wanted = None
    else:  # the last round played and the next one
        done = [r.number for r in rounds if r.state == "done"]
        todo = [r.number for r in rounds if r.state != "done"]
        wanted = ([max(done)] if done else []) + ([min(todo)] if todo else [])
    found = boards(session, league, names, wanted)
    none = (0, 0, 0)
    return tuple(
        RoundLine(
            number=r.number,
            state=r.state,
            scheduled_at=as_utc(r.scheduled_at),
            done_at=as_utc(r.done_at),
            battles=counts.get(r.id, none)[0],
            battles_done=counts.get(r.id, none)[1],
            boards=tuple(found.get(r.number, ())) if wanted is None or r.number in wanted else None,
            note=r.note or "",
            battles_paused=counts.get(r.id, none)[2],
        )
        for r in rounds
    )


def cross_blocks(size: int) -> int:
    """How many blocks of :data:`CROSS_BLOCK` entries a cross-table of ``size`` entries has per
    side (1 up to :data:`CROSS_FULL`)."""
    return 1 if size <= CROSS_FULL else -(-size // CROSS_BLOCK)


def _cross(
    session: Session,
    league: League,
    lines: Sequence[Any],
    names: Names,
    after: int,
    row_block: int,
    col_block: int,
    stamp: Any,
) -> CrossTable:
    """A block of the cross-table; the cells are cached under ``stamp``."""
    entries = [names.entry(x.entry_id) for x in lines]
    size = len(entries)
    blocks = cross_blocks(size)
    row_block = min(max(1, row_block), blocks)
    col_block = min(max(1, col_block), blocks)
    if blocks == 1:
        rows = cols = tuple(entries)
    else:
        r0, c0 = (row_block - 1) * CROSS_BLOCK, (col_block - 1) * CROSS_BLOCK
        rows = tuple(entries[r0 : r0 + CROSS_BLOCK])
        cols = tuple(entries[c0 : c0 + CROSS_BLOCK])
    key = ("cross", league.id, row_block, col_block)
    cells = cache.get(key, stamp)
    if cells is None:
        cells = _cross_cells(
            session,
            league,
            after,
            {e.entry_id for e in rows},
            {e.entry_id for e in cols},
            blocks > 1,
        )
        cache.put(key, stamp, cells)
    return CrossTable(rows, cols, cells, row_block, col_block, blocks, size)


def _cross_cells(
    session: Session,
    league: League,
    after: int,
    row_ids: set[int],
    col_ids: set[int],
    partial: bool,
) -> dict[tuple[int, int], tuple[CrossCell, ...]]:
    q = (
        select(Battle.id, Round.number, Battle.entry_a_id, Battle.entry_b_id, Battle.winner)
        .join(Round, Battle.round_id == Round.id)
        .where(
            Round.league_id == league.id,
            Battle.state == "done",
            Battle.entry_b_id.is_not(None),
            Round.number <= after,
        )
        .order_by(Round.number, Battle.board)
    )
    if partial:
        ids = list(row_ids | col_ids)
        q = q.where(or_(Battle.entry_a_id.in_(ids), Battle.entry_b_id.in_(ids)))
    cells: dict[tuple[int, int], tuple[CrossCell, ...]] = {}
    for bid, number, a, b, w in session.execute(q):
        for me, opp, side in ((a, b, 0), (b, a, 1)):
            if me in row_ids and opp in col_ids:
                result = "D" if w is None else ("W" if w == side else "L")
                cells[(me, opp)] = (*cells.get((me, opp), ()), CrossCell(bid, number, result))
    return cells


def _arrivals(session: Session, league: League, names: Names) -> tuple[ArrivalLine, ...]:
    """The latest arrivals of a league that fights entries on arrival, newest first, from its
    kept state's record (``Format.arrivals``)."""
    fmt = format_of(league)
    if not fmt.fights_on_entry:
        return ()
    done = {
        n: as_utc(at)
        for n, at in session.execute(
            select(Round.number, Round.done_at).where(Round.league_id == league.id)
        )
    }
    out = []
    for a in fmt.arrivals(state_of(league, fmt))[-RECENT_ARRIVALS:][::-1]:
        out.append(
            ArrivalLine(
                a.number,
                names.entry(a.entry),
                a.place,
                a.replaced,
                tuple(names.entry(e) for e in a.pushed_off),
                done.get(a.number),
            )
        )
    return tuple(out)


def league_view(
    session: Session,
    name: str,
    *,
    row_block: int = 1,
    col_block: int = 1,
    inline_boards: bool | None = None,
    with_cross: bool = True,
    with_rounds: bool = True,
) -> LeagueView | None:
    """The page of league ``name`` (ignoring case), or ``None`` when there is none.

    ``row_block``/``col_block`` pick the cross-table block (1-based, clamped) when the league has
    more than :data:`CROSS_FULL` entries; ``inline_boards`` forces (or suppresses) the boards of
    every round (default: when the schedule has at most :data:`INLINE_BOARDS` boards);
    ``with_cross``/``with_rounds`` False leave the cross-table (``None``) and the rounds (empty)
    out, for callers that need the standings only."""
    league = find_league(session, name)
    if league is None:
        return None
    summary = summary_of(session, league)
    names = Names(session, league)
    disq = tuple(
        sorted(
            {
                names.players[eid]
                for (eid,) in session.execute(
                    select(Entry.id).where(
                        Entry.league_id == league.id, Entry.status == "disqualified"
                    )
                )
                if eid in names.players
            },
            key=lambda p: p.id,
        )
    )
    if names.secret:
        entrants: tuple[EntryRef, ...] = ()
        if league.show_entrants:
            ids = [
                eid
                for (eid,) in session.execute(
                    select(Entry.id)
                    .join(SheetVersion, SheetVersion.entry_id == Entry.id)
                    .where(
                        Entry.league_id == league.id, Entry.status == "active", SheetVersion.active
                    )
                    .order_by(Entry.id)
                )
            ]
            units: dict[int, str] = (
                {
                    eid: unit
                    for eid, unit in session.execute(
                        select(SheetVersion.entry_id, SheetVersion.unit_name).where(
                            SheetVersion.entry_id.in_(ids), SheetVersion.active
                        )
                    )
                }
                if ids
                else {}
            )
            entrants = tuple(EntryRef(eid, names.players[eid], units.get(eid, "")) for eid in ids)
        return LeagueView(summary, _settings(league), True, entrants, 0, None, (), disq, None)
    stamp = league_fingerprint(session, league)
    after, table = _table(session, league, stamp)
    fmt = format_of(league)
    cross = (
        _cross(session, league, table.lines, names, after, row_block, col_block, stamp)
        if with_cross and fmt.cross_table
        else None
    )
    rounds = _rounds(session, league, names, inline_boards, stamp) if with_rounds else ()
    return LeagueView(
        summary,
        _settings(league),
        False,
        (),
        after,
        table,
        rounds,
        disq,
        cross,
        _arrivals(session, league, names),
    )
