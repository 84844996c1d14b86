"""Read models of rounds and battles: a round's page, every board of a league (``battles.csv``),
the latest rounds for feeds, and one battle with its inputs (its log is recomputed from the
stored sheets through the league's ruleset by the web view).

A battle's sheets are public once the league's sheets are, with one exception: in a format that
takes replacements between rounds, a battle not fought yet shows no sheet (its sheet may be a
replacement that has not fought; nothing of it is public before it has).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Round, SheetVersion
from app.league.formats import format_of
from app.league.queries.common import Names, find_league, sheets_public
from app.league.queries.leagues import (
    BOARD_COLUMNS,
    BoardLine,
    LeagueSummary,
    RoundLine,
    _decisions,
    board_line,
    boards,
    summary_of,
)
from app.league.timeparse import as_utc


@dataclass(frozen=True, slots=True)
class SheetRef:
    """A sheet version used in a battle: id, version number, the normalized notation, its
    language (``ja``/``en``) and the unit's name."""

    id: int
    version: int
    text: str
    lang: str
    unit: str


@dataclass(frozen=True, slots=True)
class BattleView:
    """One battle with its inputs and its recorded result (the log is recomputed from
    ``sheet_a``/``sheet_b`` through the league's ruleset).

    ``options`` are the ruleset's league options; ``rewrites`` whether the league applies a
    battle's rewrite requests (``Format.applies_rewrites``: the ruleset is played
    ``without_rewrites`` otherwise); ``engine_version`` is the version that decided the
    recorded result; ``final`` the recorded final state (JSON, as stored).

    ``fought_with`` (a ruleset with orders: ``battles.inputs`` of a finished battle, which its
    log is recomputed from) is **private**: both players' orders. A view reads it only to
    fight the battle again (``app.league.orders.fight_board``) and shows nothing of it; it is
    left out of ``repr`` and of every payload."""

    league: str
    ruleset: str
    options: dict[str, Any]
    line: BoardLine
    sheet_a: SheetRef | None
    sheet_b: SheetRef | None
    engine_version: str | None
    fought_at: dt.datetime | None
    final: dict[str, Any] | None
    rewrites: bool = True
    fought_with: dict[str, Any] | None = field(default=None, repr=False, compare=False)


def round_view(session: Session, name: str, number: int) -> tuple[LeagueSummary, RoundLine] | None:
    """League ``name``'s round ``number`` with every board, or ``None`` (no such league or round,
    or the league's sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    names = Names(session, league)
    row = session.execute(
        select(
            Round.id, Round.number, Round.state, Round.scheduled_at, Round.done_at, Round.note
        ).where(Round.league_id == league.id, Round.number == number)
    ).first()
    if row is None:
        return None
    found = tuple(boards(session, league, names, [number]).get(number, ()))
    fought = [b for b in found if b.b is not None]
    return summary_of(session, league), RoundLine(
        row.number,
        row.state,
        as_utc(row.scheduled_at),
        as_utc(row.done_at),
        len(fought),
        sum(1 for b in fought if b.state == "done"),
        found,
        row.note or "",
    )


def league_battles(session: Session, name: str) -> tuple[LeagueSummary, list[BoardLine]] | None:
    """Every board of league ``name`` in round and board order (byes included), or ``None``
    (no such league, or its sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    names = Names(session, league)
    found = [b for bs in boards(session, league, names).values() for b in bs]
    return summary_of(session, league), found


def recent_results(
    session: Session, name: str, *, rounds: int = 50, boards_per_round: int = 60
) -> list[RoundLine]:
    """The last ``rounds`` rounds played of league ``name``, newest first, each with its first
    ``boards_per_round`` boards (``battles``/``battles_done`` count them all); ``[]`` when
    there is no such league or its sheets are still secret. For feeds: a few queries whatever
    the league's size."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return []
    played = list(
        session.execute(
            select(Round.id, Round.number, Round.scheduled_at, Round.done_at, Round.note)
            .where(Round.league_id == league.id, Round.state == "done")
            .order_by(Round.number.desc())
            .limit(rounds)
        )
    )
    if not played:
        return []
    names = Names(session, league)
    counts: dict[int, int] = {
        rid: n
        for rid, n in session.execute(
            select(Battle.round_id, func.count())
            .where(Battle.round_id.in_([r.id for r in played]), Battle.entry_b_id.is_not(None))
            .group_by(Battle.round_id)
        )
    }
    q = (
        select(*BOARD_COLUMNS)
        .join(Round, Battle.round_id == Round.id)
        .where(Round.id.in_([r.id for r in played]), Battle.board <= boards_per_round)
        .order_by(Round.number, Battle.board)
    )
    rows = session.execute(q).all()
    decided = _decisions(league, rows)
    by_round: dict[int, list[BoardLine]] = {}
    for row in rows:
        by_round.setdefault(row[1], []).append(board_line(row, names, decided))
    return [
        RoundLine(
            r.number,
            "done",
            as_utc(r.scheduled_at),
            as_utc(r.done_at),
            counts.get(r.id, 0),
            counts.get(r.id, 0),
            tuple(by_round.get(r.number, ())),
            r.note or "",
        )
        for r in played
    ]


def battle_view(session: Session, name: str, battle_id: int) -> BattleView | None:
    """Battle ``battle_id`` of league ``name``, or ``None`` (no such league or battle in it, a
    bye, or the league's sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    row = session.execute(
        select(*BOARD_COLUMNS, Battle.engine_version, Battle.fought_at, Battle.final, Battle.inputs)
        .join(Round, Battle.round_id == Round.id)
        .where(Round.league_id == league.id, Battle.id == battle_id)
    ).first()
    if row is None or row.entry_b_id is None:
        return None
    names = Names(session, league)
    line = board_line(tuple(row)[:14], names, _decisions(league, [row]))
    fmt = format_of(league)
    shown = line.state == "done" or not fmt.replaces_between_rounds
    sheets = (
        {
            s.id: SheetRef(s.id, s.version, s.normalized, s.lang, s.unit_name)
            for s in session.scalars(
                select(SheetVersion).where(
                    SheetVersion.id.in_([i for i in (row.sheet_a_id, row.sheet_b_id) if i])
                )
            )
        }
        if shown
        else {}
    )
    return BattleView(
        league=league.name,
        ruleset=league.ruleset,
        options=dict(league.options) if isinstance(league.options, dict) else {},
        line=line,
        sheet_a=sheets.get(row.sheet_a_id),
        sheet_b=sheets.get(row.sheet_b_id),
        engine_version=row.engine_version,
        fought_at=as_utc(row.fought_at),
        final=row.final if isinstance(row.final, dict) else None,
        rewrites=fmt.applies_rewrites,
        fought_with=row.inputs if line.state == "done" and isinstance(row.inputs, dict) else None,
    )
