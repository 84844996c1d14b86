"""Battle logs for the web view, recomputed from the two stored sheet versions through the
league's :class:`~app.rules.base.Ruleset` (battles are deterministic) and cached.

Nothing here names a ruleset: ``app.rules.ruleset(view.ruleset, options)`` parses both stored sheets
(the normalized notation), fights them with the log on, and asks for the report in the reader's
language. The cache is an LRU keyed by (ruleset, options, both sheet ids, engine version,
language; a ruleset with orders adds what the battle was fought with, ``battles.inputs``):
a stored sheet version never changes, so a hit is always right. The report is the public one
(``Ruleset.report``: no player's private block).

When the engine version recorded with the battle is not the current one, the recomputed
outcome is compared with the recorded result: equal, the log is shown with a note; different,
the log is withheld and the recorded result stands (as in the report mails).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from app.league.orders import fight_board
from app.league.queries import BattleView
from app.rules import ruleset
from app.rules.base import BattleReport, Outcome, Ruleset

#: recomputed reports kept per process
CACHE_SIZE = 512


@dataclass(frozen=True, slots=True)
class ComputedBattle:
    """A battle's recomputed report and how it relates to the recorded result.

    Attributes:
        report: the report in the reader's language, ``None`` when it cannot be shown (a sheet
            no longer parses, or a newer engine gives another result).
        outcome: the recomputed generic outcome, ``None`` when not recomputed.
        engine_version: the current engine version of the ruleset.
        note: ``""``, or why the log differs from what was recorded: ``engine-same`` (another
            engine version gives the same result), ``engine-differs`` (withheld),
            ``unreadable`` (a stored sheet no longer parses).
    """

    report: BattleReport | None
    outcome: Outcome | None
    engine_version: str
    note: str


class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[tuple[Any, ...], ComputedBattle] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...]) -> ComputedBattle | None:
        with self.lock:
            value = self.data.get(key)
            if value is None:
                self.misses += 1
                return None
            self.hits += 1
            self.data.move_to_end(key)
            return value

    def put(self, key: tuple[Any, ...], value: ComputedBattle) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)


_cache = _LRU(CACHE_SIZE)


def clear_cache() -> None:
    """Forget every recomputed report (benchmarks, tests)."""
    with _cache.lock:
        _cache.data.clear()


def cache_info() -> dict[str, int]:
    """``{"hits", "misses", "size"}`` of the report cache (benchmarks, tests)."""
    return {"hits": _cache.hits, "misses": _cache.misses, "size": len(_cache.data)}


def ruleset_of(view: BattleView) -> Ruleset:
    """The league's ruleset instance. Raises ``ValueError`` for an unknown ruleset or options."""
    rs = ruleset(view.ruleset, view.options or None)
    return rs if view.rewrites else rs.without_rewrites()


def _same(view: BattleView, outcome: Outcome) -> bool:
    line = view.line
    hp = line.hp or (0, 0)
    return (
        line.winner == outcome.winner
        and line.reason == outcome.termination
        and line.turns == outcome.turns
        and (hp[0], hp[1]) == (outcome.hp(0), outcome.hp(1))
    )


def compute(view: BattleView, lang: str) -> ComputedBattle:
    """The report of battle ``view`` in ``lang`` (``ja``/``en``), from the cache or recomputed.

    Only a fought battle (``view.line.state == "done"``) with both sheets has a report; any
    other gets ``report=None`` and an empty note. Raises ``ValueError`` for an unknown
    ruleset."""
    rs = ruleset_of(view)
    current = str(rs.engine_version)
    if view.line.state != "done" or view.sheet_a is None or view.sheet_b is None:
        return ComputedBattle(None, None, current, "")
    key = (
        view.ruleset,
        json.dumps(view.options, sort_keys=True, default=str),
        view.sheet_a.id,
        view.sheet_b.id,
        current,
        lang,
        json.dumps(view.fought_with, sort_keys=True) if view.fought_with else "",
    )
    hit = _cache.get(key)
    if hit is not None:
        return hit
    entries = []
    for sheet in (view.sheet_a, view.sheet_b):
        parsed = rs.parse_sheet(sheet.text)
        entries.append(parsed.entry if parsed.ok else None)
    if entries[0] is None or entries[1] is None:
        value = ComputedBattle(None, None, current, "unreadable")
    else:
        result = fight_board(rs, entries[0], entries[1], view.fought_with)
        outcome = rs.outcome(result)
        note = ""
        if (view.engine_version or current) != current:
            note = "engine-same" if _same(view, outcome) else "engine-differs"
        report = (
            None
            if note == "engine-differs"
            else rs.report(entries[0], entries[1], result, lang=lang)
        )
        value = ComputedBattle(report, outcome, current, note)
    _cache.put(key, value)
    return value
