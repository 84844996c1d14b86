"""The JSON twin of every page: plain dicts built from the read models, described by the JSON
Schema ``app/web/schemas/web.v1.json`` (served at ``/schemas/web.v1.json``).

Every document has ``kind`` (``index``, ``league``, ``round``, ``battle``, ``player``,
``rules``), ``version`` (:data:`VERSION`; a change that removes or retypes a field bumps it and
publishes a new schema file) and ``schema`` (the schema's path). Times are ISO 8601 UTC with
``Z``; HP in HP points; ``winner`` is ``"A"``, ``"B"`` or ``null``. Adding a field is not a
breaking change: readers ignore fields they do not know.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.league import queries as q
from app.reports import urls
from app.reports.standings import StandingLine, StandingsTable

VERSION = 2


def iso(value: dt.datetime | None) -> str | None:
    """``2026-12-01T12:00:00Z`` (UTC, seconds), or ``None``."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return (
        value.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )


def _doc(kind: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "version": VERSION, "schema": urls.schema(), **fields}


def player_ref(p: q.PlayerRef) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "url": urls.player(p.id)}


def entry_ref(e: q.EntryRef | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {"entry": e.entry_id, "player": player_ref(e.player), "unit": e.unit or None}


def summary(s: q.LeagueSummary) -> dict[str, Any]:
    return {
        "name": s.name,
        "url": urls.league(s.name),
        "ruleset": s.ruleset,
        "rules_url": urls.rules(s.ruleset),
        "format": s.format,
        "format_titles": dict(s.format_titles),
        "view": s.view,
        "state": s.state,
        "phase": s.phase,
        "always_open": s.always_open,
        "entries": s.entries,
        "rounds_total": s.rounds_total,
        "rounds_done": s.rounds_done,
        "next_round": s.next_round,
        "next_round_at": iso(s.next_round_at),
        "entry_deadline": iso(s.entry_deadline),
        "created_at": iso(s.created_at),
        "winners": [entry_ref(e) for e in s.winners],
    }


def index(leagues: list[q.LeagueSummary]) -> dict[str, Any]:
    """The index document: every league's summary, each with ``winners`` (a finished league's
    rank-1 entries, shared first places included; ``[]`` otherwise)."""
    return _doc("index", leagues=[summary(s) for s in leagues], feed=urls.feed())


def _winner(w: int | None) -> str | None:
    return None if w is None else "AB"[w]


def board(name: str, b: q.BoardLine) -> dict[str, Any]:
    return {
        "battle": b.battle_id,
        "url": urls.battle(name, b.battle_id) if b.b is not None else None,
        "round": b.round,
        "board": b.board,
        "a": entry_ref(b.a),
        "b": entry_ref(b.b),
        "state": b.state,
        "winner": _winner(b.winner),
        "reason": b.reason,
        "turns": b.turns,
        "hp": list(b.hp) if b.hp is not None else None,
        "advanced": _winner(b.advanced),
        "decided_by": b.decided_by,
    }


def standing(table: StandingsTable, s: StandingLine) -> dict[str, Any]:
    """One line of a league's standings: rank, the entry, the counts, and the format's values
    (``points`` and every column's value keyed by the column, ``StandingsTable.line_json``)."""
    return {
        "rank": s.rank,
        "shared": s.shared,
        "entry": {
            "entry": s.entry_id,
            "player": player_ref(q.PlayerRef(s.player_id, s.name)),
            "unit": s.unit or None,
        },
        "played": s.played,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "byes": s.byes,
        **table.line_json(s),
    }


def standings(table: StandingsTable | None) -> dict[str, Any] | None:
    """A league's standings: ``format``, ``view``, ``columns`` (the primary score first, then
    every column the format declares, each with its titles) and ``rows``."""
    if table is None:
        return None
    return {
        "format": table.format,
        "view": table.view,
        "columns": table.columns_json(),
        "rows": [standing(table, x) for x in table.lines],
    }


def round_line(name: str, r: q.RoundLine) -> dict[str, Any]:
    return {
        "number": r.number,
        "url": urls.round_(name, r.number),
        "state": r.state,
        "note": r.note or None,
        "scheduled_at": iso(r.scheduled_at),
        "done_at": iso(r.done_at),
        "battles": r.battles,
        "battles_done": r.battles_done,
        "boards": [board(name, b) for b in r.boards] if r.boards is not None else None,
    }


def cross(name: str, c: q.CrossTable | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "size": c.size,
        "blocks": c.blocks,
        "row_block": c.row_block,
        "col_block": c.col_block,
        "block_size": q.CROSS_BLOCK if c.blocks > 1 else c.size,
        "rows": [e.entry_id for e in c.rows],
        "cols": [e.entry_id for e in c.cols],
        "cells": [
            {
                "row": r,
                "col": col,
                "battles": [
                    {
                        "battle": cell.battle_id,
                        "round": cell.round,
                        "result": cell.result,
                        "url": urls.battle(name, cell.battle_id),
                    }
                    for cell in cells
                ],
            }
            for (r, col), cells in sorted(c.cells.items())
        ],
    }


def settings(s: q.LeagueSettings) -> dict[str, Any]:
    return {
        "ruleset": s.ruleset,
        "format": s.format,
        "format_options": s.format_options,
        "format_lines": dict(s.format_lines),
        "rounds_every_s": s.rounds_every_s,
        "entry_deadline": iso(s.entry_deadline),
        "seed": s.seed,
        "password_required": s.password_required,
        "show_entrants": s.show_entrants,
        "options": s.options,
        "ruleset_lines": dict(s.ruleset_lines),
    }


def arrival(a: q.ArrivalLine) -> dict[str, Any]:
    """One arrival (a hill's challenge): number, entry, place, replaced, pushed off, when."""
    return {
        "number": a.number,
        "entry": entry_ref(a.entry),
        "place": a.place,
        "replaced": a.replaced,
        "pushed_off": [entry_ref(e) for e in a.pushed_off],
        "done_at": iso(a.done_at),
    }


def league(v: q.LeagueView) -> dict[str, Any]:
    name = v.summary.name
    return _doc(
        "league",
        league=summary(v.summary),
        settings=settings(v.settings),
        secret=v.secret,
        entrants=[entry_ref(e) for e in v.entrants],
        after_round=v.after_round,
        standings=standings(v.table),
        arrivals=[arrival(a) for a in v.arrivals],
        rounds=[round_line(name, r) for r in v.rounds],
        disqualified=[player_ref(p) for p in v.disqualified],
        cross_table=cross(name, v.cross),
        links={
            "standings_csv": urls.league_file(name, "standings.csv"),
            "battles_csv": urls.league_file(name, "battles.csv"),
            "feed": urls.league_file(name, "feed.atom"),
        },
    )


def round_page(s: q.LeagueSummary, r: q.RoundLine) -> dict[str, Any]:
    return _doc("round", league=summary(s), round=round_line(s.name, r))


def _state_line(s: Any) -> dict[str, Any]:
    return {
        "name": s.name,
        "text": s.text,
        "hp": s.hp,
        "max_hp": s.max_hp,
        "alive": s.alive,
        "exited": s.exited,
    }


def _report_line(line: Any) -> dict[str, Any]:
    return {
        "text": line.text,
        "kind": line.kind,
        "side": None if line.side is None else "AB"[line.side],
        "children": [_report_line(c) for c in line.children],
    }


def battle(v: q.BattleView, computed: Any, lang: str) -> dict[str, Any]:
    """The battle document; ``computed`` is an ``app.web.battles.ComputedBattle``."""
    report = computed.report if computed is not None else None
    outcome = computed.outcome if computed is not None else None

    def sheet(s: q.SheetRef | None) -> dict[str, Any] | None:
        return (
            None
            if s is None
            else {"id": s.id, "version": s.version, "text": s.text, "lang": s.lang, "unit": s.unit}
        )

    return _doc(
        "battle",
        league=v.league,
        league_url=urls.league(v.league),
        ruleset=v.ruleset,
        battle=board(v.league, v.line),
        sheets={"A": sheet(v.sheet_a), "B": sheet(v.sheet_b)},
        engine_version=v.engine_version,
        current_engine_version=computed.engine_version if computed is not None else None,
        note=(computed.note or None) if computed is not None else None,
        fought_at=iso(v.fought_at),
        lang=lang,
        outcome=outcome.to_json() if outcome is not None else None,
        report=None
        if report is None
        else {
            "lang": report.lang,
            "header": list(report.header),
            "names": dict(report.names),
            "verdict": report.verdict,
            "explanation": list(report.explanation),
            "turns": [
                {
                    "turn": t.turn,
                    "lines": [_report_line(x) for x in t.lines],
                    "states": {
                        "A": [_state_line(s) for s in t.states[0]],
                        "B": [_state_line(s) for s in t.states[1]],
                    },
                }
                for t in report.turns
            ],
        },
        csv=urls.battle(v.league, v.line.battle_id, ".csv"),
    )


def player(v: q.PlayerView) -> dict[str, Any]:
    return _doc(
        "player",
        player=player_ref(v.player),
        entries=[
            {
                "league": e.league,
                "league_url": urls.league(e.league),
                "league_state": e.league_state,
                "status": e.status,
                "unit": e.unit or None,
                "standing": (
                    standing(e.table, e.standing)
                    if e.standing is not None and e.table is not None
                    else None
                ),
                "columns": e.table.columns_json() if e.table is not None else None,
                "boards": [board(e.league, b) for b in e.boards],
            }
            for e in v.entries
        ],
        ratings=[
            {
                "ruleset": r.ruleset,
                "ordinal": round(r.ordinal, 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
                "history": [
                    {
                        "league": h.league,
                        "round": h.round,
                        "before": round(h.before, 3),
                        "after": round(h.after, 3),
                        "wins": h.wins,
                        "draws": h.draws,
                        "losses": h.losses,
                    }
                    for h in r.history
                ],
            }
            for r in v.ratings
        ],
    )


def rules(page: Any) -> dict[str, Any]:
    """The rules document; ``page`` is an ``app.web.app.RulesPage``."""
    return _doc(
        "rules",
        ruleset=page.name,
        title=page.title,
        aliases=list(page.aliases),
        engine_version=page.engine_version,
        party=page.party,
        description=list(page.description),
        examples=[
            {"lang": ex.lang, "sheet": ex.sheet, "normalized": ex.normalized, "costs": ex.costs}
            for ex in page.examples
        ],
        samples=list(page.samples),
    )
