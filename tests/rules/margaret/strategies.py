"""Hypothesis strategies for base Margaret swordmasters (``rules/margaret.md`` §1).

``swordmasters()`` drives ``app.rules.margaret.generate.random_swordmaster`` with Hypothesis draws
(``tests.rules.strategies.DrawRng``), so examples shrink toward small swordmasters and the tests
share one generator with the benchmark.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from app.rules.margaret.generate import random_swordmaster
from app.rules.margaret.model import Swordmaster
from tests.rules.strategies import DrawRng


@st.composite
def swordmasters(draw: Any, named: bool = True, spd: int | None = None) -> Swordmaster:
    """Legal swordmasters; ``named=False`` also draws ones without a name (compact only);
    ``spd`` fixes SPD by moving points (for equal-SPD pairs)."""
    rng = DrawRng(draw)
    name = None if named or draw(st.booleans()) else ""
    m = random_swordmaster(rng, name)
    if spd is not None and m.spd != spd:
        from dataclasses import replace

        shift = spd - m.spd  # take or give the difference through HP/5 or 剣技
        hp_points = m.hp // 5 - shift
        if hp_points >= 0:
            return replace(m, spd=spd, hp=hp_points * 5)
        skill = m.skill + hp_points
        if skill >= len(m.swords):
            return replace(m, spd=spd, hp=0, skill=skill)
    return m
