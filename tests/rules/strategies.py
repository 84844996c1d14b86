"""Hypothesis strategies for Amaryllis units (rules §1).

``valid_units()`` generates ``Unit`` objects that pass validation: 10 bonus points exactly, HP a
multiple of 5, legal customizations, set actions costing at most TECH. It drives
``app.rules.amaryllis.generate.random_unit`` with draws from Hypothesis, so both share one
generator (every class and customization, stacked Stun/Poison, Quick, Delay, Life, full heal,
Reflect) and Hypothesis can still shrink a failing unit toward a small one.

Use from a test module in this package: ``from .strategies import valid_units``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from app.rules.amaryllis.generate import random_unit
from app.rules.amaryllis.model import Unit


class DrawRng:
    """An ``Rng`` (randint/choice/random) backed by Hypothesis draws, so examples shrink."""

    def __init__(self, draw: Any) -> None:
        self._draw = draw

    def randint(self, a: int, b: int) -> int:
        """An integer in ``[a, b]`` (shrinks toward ``a``)."""
        return int(self._draw(st.integers(a, b)))

    def choice(self, seq: Sequence[Any]) -> Any:
        """An element of ``seq`` (shrinks toward the first)."""
        return seq[self.randint(0, len(seq) - 1)]

    def random(self) -> float:
        """A float in ``[0, 1)`` with a resolution of 1/1000 (shrinks toward 0)."""
        return self.randint(0, 999) / 1000


@st.composite
def valid_units(
    draw: Any, lang: str | None = None, names: Any = None, unit_names: Any = None
) -> Unit:
    """Strategy for valid units.

    Args:
        lang: ``"ja"`` or ``"en"`` to fix the notation; both when ``None``.
        names: optional strategy of distinct valid action names (``list[str]``) replacing the
            default name pools (e.g. ``sheet_names()`` in ``test_notation``).
        unit_names: optional strategy of valid unit names (``str``).
    """
    rng = DrawRng(draw)
    action_names = draw(names) if names is not None else None
    unit_name = draw(unit_names) if unit_names is not None else None
    return random_unit(rng, unit_name, lang=lang, action_names=action_names)
