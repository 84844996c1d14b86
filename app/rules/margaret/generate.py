"""Random legal base Margaret swordmasters, for property tests and benchmarks.

The caller passes the random source (``random.Random(seed)`` or a Hypothesis-backed one), so this
module stays pure and reproducible. Every swordmaster produced here passes ``parse_sheet`` of its
printed sheet in either notation without errors (``rules/margaret.md`` §1, M1, M2, M5): HP a
multiple of 5, HP/5 + ATK + DEF + SPD + swords ≤ 10 (= 10 with a stated 剣技), every one of the 15
swords with a fair probability, 回N mostly with N ≤ 8 and now and then beyond turn 20.
"""

from __future__ import annotations

from app.rules.amaryllis.generate import Rng

from .model import Sword, Swordmaster
from .swords import BASIC, SwordTable

JA_NAMES = (
    "徘徊するライカ",
    "あいざわ",
    "紫電",
    "しゃるる",
    "コウ",
    "日路",
    "鏡花",
    "鉄",
    "烈",
    "零",
)
EN_NAMES = ("Laika", "Aizawa", "Shiden", "Sharuru", "Kou", "Hiji", "Mirror", "Iron", "Blaze")


def random_sword(rng: Rng, table: SwordTable = BASIC) -> Sword:
    """One sword of ``table``, uniformly; a parametrised one with N from its minimum to 8, or
    (1 in 20) up to 25."""
    spec = rng.choice(table.swords)
    if spec.param is None:
        return Sword(spec.code)
    top = 25 if rng.random() < 0.05 else 8
    return Sword(spec.code, rng.randint(spec.param, max(spec.param, top)))


def random_swordmaster(
    rng: Rng,
    name: str | None = None,
    *,
    lang: str | None = None,
    notation: str | None = None,
    table: SwordTable = BASIC,
) -> Swordmaster:
    """A legal swordmaster built from ``rng``: 10 points over HP/5, ATK, DEF, SPD and 剣技 (one
    point a sword), mostly all spent; a stated 剣技 line now and then. ``name`` ``None`` picks
    one from a small pool (``""`` is allowed: a compact line without a name)."""
    lang = lang or rng.choice(("ja", "en"))
    notation = notation or rng.choice(("full", "compact"))
    if name is None:
        name = rng.choice(JA_NAMES if lang == "ja" else EN_NAMES)
    points = [0, 0, 0, 0, 0]  # HP/5, ATK, DEF, SPD, 剣技
    points[4] = rng.randint(0, 7)
    left = 10 - points[4]
    while left > 0:
        i = rng.randint(0, 4)
        points[i] += 1
        left -= 1
    skill = points[4]
    carried = skill if rng.random() < 0.85 else rng.randint(0, skill)
    swords = tuple(random_sword(rng, table) for _ in range(carried))
    return Swordmaster(
        name=name,
        hp=points[0] * 5,
        atk=points[1],
        defense=points[2],
        spd=points[3],
        skill=skill,
        swords=swords,
        skill_explicit=rng.random() < 0.15,
        notation=notation,
        lang=lang,
    )
