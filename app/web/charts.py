"""The HP chart of a battle: geometry computed here, drawn as inline SVG by
``templates/_hpchart.html`` (no JavaScript; colours from classes in the stylesheet, so the strict
Content-Security-Policy needs no inline style).

One series per fighter (a side of one unit has one; a party has one per member), its HP at the
start (its maximum HP) and after every turn of the report. HP may go below 0 (overkill).

The SVG scales to the width of the page, and its labels with it: drawn 640 units wide and shown
371 px wide on a 390 px phone, an 11-unit label was 6 px tall (issue 20). So the page carries
two drawings of one chart, the wide one (:data:`WIDTH`) and a narrow one (:data:`PHONE_WIDTH`,
fewer x labels), and the stylesheet shows the narrow one below 40rem: there 320 units are drawn
about 370 px wide, and the 11-unit labels are about 12.7 px (10.3 px on a 320 px phone).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.base import BattleReport

WIDTH = 640
HEIGHT = 260
#: the narrow drawing's width (the height is the same: on a phone the chart gets taller, not
#: shorter, and the HP lines keep their resolution)
PHONE_WIDTH = 320
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 12, 34
#: the least distance (SVG units) between two x labels: a three-digit turn at 11 px is ~20 wide
MIN_LABEL_GAP = 28


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


def hp_chart(report: BattleReport, *, width: int = WIDTH) -> HpChart | None:
    """The chart of ``report`` drawn ``width`` SVG units wide (:data:`WIDTH`, or
    :data:`PHONE_WIDTH` for the narrow drawing), or ``None`` when it has no turn. The x axis
    labels every turn, or every 2nd, 5th, 10th… so that two labels are at least
    :data:`MIN_LABEL_GAP` units apart (the first and the last turn always)."""
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
    left, right = PAD_LEFT, width - PAD_RIGHT
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
        series.append(
            Series(side, index[side], name, pts, tuple(v for v in values[key] if v is not None))
        )
        index[side] += 1
    step = _nice_step(hi - lo)
    first = -(-lo // step) * step
    y_ticks = tuple(Tick(round(y(v), 1), str(v)) for v in range(first, hi + 1, step))
    gap = (right - left) / max(1, n - 1)
    every = next(
        (e for e in (1, 2, 5, 10, 20, 50, 100, 200, 500) if gap * e >= MIN_LABEL_GAP), 1000
    )
    shown = [i for i in range(n) if i % every == 0]
    if shown[-1] != n - 1:  # the last turn always, instead of a label too close before it
        if (n - 1 - shown[-1]) * gap < MIN_LABEL_GAP and len(shown) > 1:
            shown.pop()
        shown.append(n - 1)
    x_ticks = tuple(Tick(round(x(i), 1), labels[i] or "·") for i in shown)
    return HpChart(
        width, HEIGHT, left, right, top, bottom, round(y(0), 1), x_ticks, y_ticks, tuple(series)
    )
