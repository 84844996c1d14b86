"""Hypothesis strategies for Margaret Hundred swordmasters (``rules/margaret-hundred.md`` §3).

They drive ``app.rules.hundred.generate.random_swordmaster`` with Hypothesis draws (the
``DrawRng`` of ``tests/rules/strategies.py``), so property tests and the seeded loops share one
generator over all 100 swords and failing examples still shrink.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from app.rules.hundred.generate import random_swordmaster
from app.rules.hundred.model import Swordmaster
from app.rules.hundred.options import Options
from tests.rules.strategies import DrawRng


@st.composite
def swordmasters(draw: Any, options: Options | None = None, builders: float = 1.0) -> Swordmaster:
    """A valid swordmaster of the pool of ``options`` (default: all 100 swords)."""
    return random_swordmaster(DrawRng(draw), options, builders=builders)


@st.composite
def pairs(draw: Any, options: Options | None = None) -> tuple[Swordmaster, Swordmaster]:
    """Two swordmasters; half of the pairs share one SPD, so super-simultaneous actions are
    frequent (§12.14)."""
    a = draw(swordmasters(options))
    b = draw(swordmasters(options))
    if draw(st.booleans()):
        b = replace(b, spd=a.spd, skill=b.skill + b.spd - a.spd)
    return a, b
