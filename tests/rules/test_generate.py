"""``generate.random_unit``: valid, reproducible, and covering every class and customization."""

from __future__ import annotations

import random
from collections import Counter

from app.rules.amaryllis import format_sheet, parse_sheet
from app.rules.amaryllis.costs import action_cost, loadout_cost
from app.rules.amaryllis.generate import fit_action, random_unit
from app.rules.amaryllis.model import Action, ActionClass, Unit


def test_random_units_are_valid_and_cover_every_class_and_customization() -> None:
    seen: Counter[str] = Counter()
    for seed in range(600):
        unit = random_unit(random.Random(seed), f"U{seed}")
        assert unit.bonus_points == 10 and unit.hp % 5 == 0
        assert loadout_cost(unit) <= unit.tech
        result = parse_sheet(format_sheet(unit))
        assert result.errors == [] and result.unit == unit
        for a in unit.loadout:
            seen[a.cls.value] += 1
            seen["limited"] += a.limited
            seen["delay"] += a.delay is not None
            seen["quick"] += a.quick
            seen["effect"] += a.effect is not None
            seen["stun"] += a.stun > 0
            seen["stun x2"] += a.stun > 1
            seen["poison"] += a.poison > 0
            seen["poison x2"] += a.poison > 1
        seen["no actions"] += not unit.loadout
        seen["unset definition"] += len(set(unit.definitions) - set(unit.loadout)) > 0
        seen["TECH line"] += unit.tech_explicit
        seen[unit.lang] += 1
    wanted = [c.value for c in ActionClass] + [
        "limited",
        "delay",
        "quick",
        "effect",
        "stun",
        "stun x2",
        "poison",
        "poison x2",
        "no actions",
        "unset definition",
        "TECH line",
        "ja",
        "en",
    ]
    assert all(seen[w] >= 10 for w in wanted), {w: seen[w] for w in wanted}


def test_same_seed_same_unit() -> None:
    assert random_unit(random.Random(7), "A") == random_unit(random.Random(7), "A")
    assert random_unit(random.Random(7), "A") != random_unit(random.Random(8), "A")


def test_fit_action_makes_any_action_affordable() -> None:
    big = Action("X", ActionClass.PIERCING, quick=True, effect=3, stun=2, poison=2)
    assert action_cost(big) == 3 * 2 * 9 * 16
    for budget in range(1, 11):
        fitted = fit_action(big, budget)
        assert fitted is not None and action_cost(fitted) <= budget
        unit = Unit(
            "U",
            50 - 5 * budget,
            0,
            0,
            0,
            budget,
            loadout=(fitted,),
            definitions=(fitted,),
            tech_explicit=True,
        )
        assert parse_sheet(format_sheet(unit)).unit == unit  # still legal after fitting
    assert fit_action(big, 0) is None
