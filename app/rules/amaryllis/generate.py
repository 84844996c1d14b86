"""Random valid units, for property tests and benchmarks. Source: rules §1.

The caller passes the random source, so this module stays pure and reproducible
(``random_unit(random.Random(seed), "A")``). Every unit produced here passes
``parse_sheet(format_sheet(unit))`` without errors: 10 bonus points exactly, HP a multiple of 5,
every customization legal for its class, and the set actions cost at most TECH.

Coverage: every action class (direct, piercing, HP halving, ATK/DEF/SPD+N, Guard, Reflect, Life,
full heal) and every customization (Limited, Delay N, Quick, Effect ×N, Stun, Poison, stacked
Stun/Poison) appear with a fair probability; some units have unset definitions, no actions at
all, TECH 0 or HP 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from .costs import action_cost
from .model import Action, ActionClass, Kind, Unit


class Rng(Protocol):
    """The part of ``random.Random`` used here (any object with these three methods works)."""

    def randint(self, a: int, b: int) -> int: ...

    def choice(self, seq: Sequence[Any]) -> Any: ...

    def random(self) -> float: ...


JA_NAMES = (
    "シールド",
    "スピア",
    "ブースト",
    "命の剣",
    "魔法剣",
    "絶対剣",
    "毒牙",
    "鉄壁",
    "雷撃",
    "再生",
    "加速",
    "反射鏡",
    "一閃",
    "影縫い",
    "疾風",
    "大地の盾",
    "星の槍",
    "癒しの光",
)
EN_NAMES = (
    "Shield",
    "Spear",
    "Boost",
    "Life Sword",
    "Magic Sword",
    "Absolute Sword",
    "Fang",
    "Wall",
    "Thunder",
    "Second Wind",
    "Haste",
    "Mirror",
    "Flash",
    "Shadow Stitch",
    "Gale",
    "Stone Skin",
    "Star Lance",
    "Healing Light",
)
JA_UNITS = ("グリスク", "ヌト", "アマリリス", "カーネリアン", "ミネルヴァ", "鋼の騎士")
EN_UNITS = ("Grisk", "Nut", "Amaryllis", "Carnelian", "Minerva", "Steel Knight")

_CLASSES = tuple(ActionClass)


def random_stats(rng: Rng) -> tuple[int, int, int, int, int]:
    """Return ``(hp, atk, defense, spd, tech)`` with HP/5 + ATK + DEF + SPD + TECH = 10, all >= 0.

    HP is in HP points (a multiple of 5). Rules §1.
    """
    points = [0, 0, 0, 0, 0]
    left = 10
    if rng.random() < 0.6:  # give TECH a block first so that units carry real action lists
        points[4] = rng.randint(0, 8)
        left -= points[4]
    while left > 0:
        i = rng.randint(0, 4)
        points[i] += 1
        left -= 1
    return points[0] * 5, points[1], points[2], points[3], points[4]


def random_action(rng: Rng, name: str) -> Action:
    """A random, legal (but not budget-fitted) action named ``name``. Rules §1.1-§1.2."""
    cls: ActionClass = rng.choice(_CLASSES)
    n = rng.randint(1, 4) if cls.takes_n else None
    limited = cls.must_be_limited or rng.random() < 0.4
    delay: int | None = None
    quick = False
    r = rng.random()
    if r < 0.25:
        delay = rng.randint(2, 6)
    elif r < 0.45:
        quick = True
    effect = None
    stun = poison = 0
    if cls.kind is Kind.ATTACK:
        if rng.random() < 0.3:
            effect = rng.randint(2, 3)
        if rng.random() < 0.3:
            stun = rng.randint(1, 2)
        if rng.random() < 0.3:
            poison = rng.randint(1, 2)
    return Action(
        name,
        cls,
        n=n,
        limited=limited,
        delay=delay,
        quick=quick,
        effect=effect,
        stun=stun,
        poison=poison,
    )


def fit_action(action: Action, budget: int) -> Action | None:
    """Make ``action`` cost at most ``budget`` by adding Limited/Delay and dropping extras.

    Returns the fitted action (still legal), or ``None`` when even the cheapest form (cost 1)
    does not fit (``budget`` < 1). Rules §1.2.
    """
    if budget < 1:
        return None
    a = action
    for _ in range(64):
        cost = action_cost(a)
        if cost <= budget:
            return a
        if not a.limited:
            a = replace(a, limited=True)
        elif a.delay is None and not a.quick:
            needed = -(-action_cost(replace(a, limited=True)) // budget)
            if needed <= 20:
                a = replace(a, delay=max(2, needed))
            else:
                a = replace(a, poison=0, stun=0)
        elif a.poison:
            a = replace(a, poison=a.poison - 1)
        elif a.stun:
            a = replace(a, stun=a.stun - 1)
        elif a.effect is not None:
            a = replace(a, effect=a.effect - 1 if a.effect > 2 else None)
        elif a.quick:
            a = replace(a, quick=False)
        elif a.n is not None and a.n > 1:
            a = replace(a, n=a.n - 1)
        elif a.delay is not None and a.delay < 20:
            a = replace(a, delay=min(20, a.delay * 2))
        else:
            break
    return a if action_cost(a) <= budget else None


def random_unit(
    rng: Rng,
    name: str | None = None,
    *,
    lang: str | None = None,
    action_names: Sequence[str] | None = None,
) -> Unit:
    """A random unit that passes validation (rules §1), built from ``rng``.

    Args:
        rng: any object with ``randint(a, b)``, ``choice(seq)`` and ``random()`` (e.g.
            ``random.Random(seed)``); the same draws give the same unit.
        name: the unit name; a random one from a small pool when ``None``.
        lang: ``"ja"`` or ``"en"`` (the sheet notation); random when ``None``.
        action_names: distinct, valid action names to use (at most this many definitions);
            defaults to a pool of names in ``lang``.

    Returns:
        A ``Unit`` whose loadout costs at most its TECH. Definitions that fit nowhere in the budget
        are kept unset (a warning, not an error).
    """
    if lang is None:
        lang = rng.choice(("ja", "en"))
    if name is None:
        name = rng.choice(JA_UNITS if lang == "ja" else EN_UNITS)
    pool = (
        list(action_names)
        if action_names is not None
        else list(JA_NAMES if lang == "ja" else EN_NAMES)
    )
    hp, atk, defense, spd, tech = random_stats(rng)
    n_defs = min(len(pool), rng.randint(0, 6))
    definitions: list[Action] = []
    for _ in range(n_defs):
        action_name = pool.pop(rng.randint(0, len(pool) - 1))
        raw = random_action(rng, action_name)
        fitted = fit_action(raw, max(tech, 1))
        definitions.append(fitted if fitted is not None else raw)
    loadout: list[Action] = []
    left = tech
    for _ in range(rng.randint(0, 8)):
        affordable = [a for a in definitions if action_cost(a) <= left]
        if not affordable:
            break
        pick = rng.choice(affordable)
        loadout.append(pick)
        left -= action_cost(pick)
    return Unit(
        name=name,
        hp=hp,
        atk=atk,
        defense=defense,
        spd=spd,
        tech=tech,
        loadout=tuple(loadout),
        definitions=tuple(definitions),
        tech_explicit=rng.random() < 0.5,
        lang=lang,
    )
