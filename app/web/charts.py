"""The HP chart of a battle: geometry computed here, drawn as inline SVG by
``templates/_hpchart.html`` (no JavaScript; colours from classes in the stylesheet, so the strict
Content-Security-Policy needs no inline style).

One series per fighter (a side of one unit has one; a party has one per member), its HP at the
start (its maximum HP) and after every turn of the report. HP may go below 0 (overkill).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.base import BattleReport

WIDTH = 640
HEIGHT = 260
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 12, 34


@dataclass(frozen=True, slots=True)
class Series:
    """One fighter's HP line: its side (0 = A, 1 = B), its index in the side, its name, the
    ``points`` attribute of an SVG polyline, and the HP values (start, then after each turn)."""

    side: int
    index: int
    name: str
    points: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Tick:
    """An axis tick: its position (SVG user units) and its label."""

    pos: float
    label: str


@dataclass(frozen=True, slots=True)
class HpChart:
    """Everything ``_hpchart.html`` draws: the size, the plot box, the zero line, ticks of both
    axes, and the series."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    zero_y: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    series: tuple[Series, ...]


def _nice_step(span: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 6:
            return step
    return max(1, span // 5)


def hp_chart(report: BattleReport) -> HpChart | None:
    """The chart of ``report``, or ``None`` when it has no turn."""
    if not report.turns:
        return None
    labels = ["", *[str(t.turn) for t in report.turns]]
    values: dict[tuple[int, str], list[int | None]] = {}
    order: list[tuple[int, str]] = []
    max_hp: dict[tuple[int, str], int] = {}
    for col, turn in enumerate(report.turns, start=1):
        for side in (0, 1):
            for state in turn.states[side]:
                key = (side, state.name)
                if key not in values:
                    values[key] = [None] * len(labels)
                    order.append(key)
                values[key][col] = state.hp
                max_hp[key] = max(max_hp.get(key, 0), state.max_hp)
    for key in order:
        values[key][0] = max_hp[key]
    all_values = [v for vs in values.values() for v in vs if v is not None]
    lo = min(0, *all_values)
    hi = max(1, *all_values)
    left, right = PAD_LEFT, WIDTH - PAD_RIGHT
    top, bottom = PAD_TOP, HEIGHT - PAD_BOTTOM
    n = len(labels)

    def x(i: int) -> float:
        return left + (right - left) * (i / max(1, n - 1))

    def y(v: int) -> float:
        return bottom - (bottom - top) * ((v - lo) / (hi - lo))

    series: list[Series] = []
    index = {0: 0, 1: 0}
    for key in order:
        side, name = key
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values[key]) if v is not None)
        series.append(Series(side, index[side], name, pts,
                             tuple(v for v in values[key] if v is not None)))
        index[side] += 1
    step = _nice_step(hi - lo)
    first = -(-lo // step) * step
    y_ticks = tuple(Tick(round(y(v), 1), str(v)) for v in range(first, hi + 1, step))
    every = 1 if n <= 12 else (2 if n <= 22 else 5)
    x_ticks = tuple(Tick(round(x(i), 1), labels[i] or "·")
                    for i in range(n) if i == 0 or i % every == 0 or i == n - 1)
    return HpChart(WIDTH, HEIGHT, left, right, top, bottom, round(y(0), 1), x_ticks, y_ticks,
                   tuple(series))
