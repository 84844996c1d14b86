"""Hypothesis strategies for Margaret Magicalized: list-1 swordmasters and orders texts, drawn
through the package's own generators (``app.rules.magicalized.generate``), so the tests share one
generator with the benchmark. Swordmasters come from Hypothesis draws (``DrawRng``: they shrink);
an orders text, whose generator makes hundreds of choices, from a drawn seed (fast; it shrinks by
its number of rules and versions only)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from app.rules.magicalized.generate import random_orders_text, random_swordmaster
from app.rules.magicalized.orders import parse_orders
from app.rules.magicalized.plays import SideOrders
from app.rules.margaret.model import Swordmaster
from tests.rules.strategies import DrawRng


@st.composite
def swordmasters(draw: Any) -> Swordmaster:
    """Legal list-1 swordmasters (途心 10)."""
    return random_swordmaster(DrawRng(draw))


@st.composite
def orders_texts(draw: Any, rules: int | None = None, versions: int | None = None) -> str:
    """Valid hand-and-orders texts: 7 cards, 0-20 random rules, 1-3 versions."""
    n = rules if rules is not None else draw(st.integers(0, 20))
    v = versions if versions is not None else draw(st.integers(1, 3))
    return random_orders_text(random.Random(draw(st.integers(0, 2**32))), n, versions=v)


@st.composite
def side_orders(draw: Any, rules: int | None = None) -> SideOrders:
    """Valid orders of one side (the DEFAULT section of :func:`orders_texts`)."""
    r = parse_orders(draw(orders_texts(rules)))
    assert r.ok and r.orders is not None, r.problems
    o = r.orders.offline()
    assert o is not None
    return o
