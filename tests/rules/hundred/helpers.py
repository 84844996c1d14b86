"""Helpers for the hand-derived Margaret Hundred tests (``rules/margaret-hundred.md``).

``sm("10/3/0/1/斬")`` builds a swordmaster from a compact spec (no budget check, so a test can
use any values); ``fight(a, b, **options)`` plays the battle with its log; ``after(r, T)`` gives
both parties' states at the end of turn T (front first, then exited), ``flat(r)`` every event,
groups unfolded.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.rules.hundred.engine import battle
from app.rules.hundred.events import HundredResult, SmState
from app.rules.hundred.model import Swordmaster, parse_spec
from app.rules.hundred.options import parse_options

DUMMY = "50/0/0/0//的"
"""A target that never acts (SPD 0, no swords)."""


def sm(spec: str, name: str | None = None) -> Swordmaster:
    """A swordmaster from ``HP/ATK/DEF/SPD/codes[/name]``."""
    m = parse_spec(spec)
    if name is not None or not m.name:
        m = replace(m, name=name or "X")
    return m


def fight(a: str | Swordmaster, b: str | Swordmaster = DUMMY, **options: Any) -> HundredResult:
    """Battle ``a`` (side A, named A) against ``b`` (side B, named B) with its log."""
    ma = sm(a, "A") if isinstance(a, str) else a
    mb = sm(b, "B") if isinstance(b, str) else b
    return battle(ma, mb, log=True, options=parse_options(options))


def after(r: HundredResult, turn: int) -> tuple[tuple[SmState, ...], tuple[SmState, ...]]:
    """Both parties' states at the end of ``turn`` (the last one if the turn is logged twice)."""
    found = None
    for e in r.events:
        if e[0] == "end" and e[1] == turn:
            found = e[2]
    assert found is not None, f"turn {turn} never ended (battle ended in turn {r.turns})"
    return found


def st(r: HundredResult, turn: int, side: int, i: int = 0) -> SmState:
    """One swordmaster's state at the end of ``turn``: side 0/1, index ``i`` in its list."""
    return after(r, turn)[side][i]


def statuses(s: SmState) -> dict[str, int]:
    return dict(s.statuses)


def flat(r: HundredResult | tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Every event, groups and buckets unfolded in order (side 0's bucket first)."""
    out: list[tuple[Any, ...]] = []

    def walk(e: tuple[Any, ...]) -> None:
        kind = e[0]
        if kind in ("phase", "apphase", "check", "settle", "turnend"):
            for b in e[1]:
                for x in b:
                    walk(x)
        elif kind == "simul":
            for p in e[1]:
                walk(p)
        elif kind == "part":
            for x in e[2]:
                walk(x)
        elif kind == "group":
            for b in e[2]:
                for x in b:
                    walk(x)
        else:
            out.append(e)

    events = r.events if isinstance(r, HundredResult) else r
    for e in events:
        walk(e)
    return out


def kinds(r: HundredResult, kind: str) -> list[tuple[Any, ...]]:
    """Every event of ``kind`` (groups unfolded)."""
    return [e for e in flat(r) if e[0] == kind]


def turn_events(r: HundredResult, turn: int) -> list[tuple[Any, ...]]:
    """The top-level events of ``turn`` (from its ``turn`` event to its ``end``)."""
    out: list[tuple[Any, ...]] = []
    inside = False
    for e in r.events:
        if e[0] == "turn":
            inside = e[1] == turn
        if inside:
            out.append(e)
    return out
