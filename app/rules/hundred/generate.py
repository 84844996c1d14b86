"""Random valid Margaret Hundred swordmasters, for property tests and benchmarks.

Source: ``shared/rules/margaret-hundred.md`` §3 (budget H1, parameters H2). The caller passes the
random source (``random.Random(seed)``), so this module stays pure and reproducible. Every
swordmaster produced passes the sheet check of the given options (budget, pool, cost table): it is
printed by ``format_sheet`` and read back unchanged.

``builders`` weighs the 20 construction swords against the others: 1.0 draws every sword of the
pool alike, 0.0 never draws a builder (the benchmark's "pools without many builders"). Most
swordmasters look like players' sheets (some HP and SPD, the rest of the budget on swords); about
one in six is an edge case (any split of the points, HP 0, points left unspent).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .model import Sword, Swordmaster
from .options import Options
from .swords import BY_CODE, CONSTRUCTION

NAMES = (
    "アマリリス",
    "マーガレット",
    "カトレア",
    "ダリア",
    "ローズ",
    "リリー",
    "アイリス",
    "ヴァイオレット",
    "デイジー",
    "カメリア",
    "Clover",
    "Heather",
    "Tansy",
    "Yarrow",
)


class Rng(Protocol):
    """The part of ``random.Random`` used here."""

    def randint(self, a: int, b: int) -> int: ...

    def choice(self, seq: Sequence[Any]) -> Any: ...

    def random(self) -> float: ...


def random_n(rng: Rng, code: str) -> int | None:
    """A legal N for sword ``code`` (§3.2), mostly small, now and then beyond turn 20 (H2)."""
    d = BY_CODE[code]
    if d.param is None:
        return None
    if d.period:
        return int(rng.choice((0, 1, 2, 3, 5, 8, 12, 19, 20, 25)))
    r = rng.random()
    if r < 0.05:
        return rng.randint(21, 30)
    return rng.randint(d.param, 8)


def random_swordmaster(
    rng: Rng,
    options: Options | None = None,
    *,
    builders: float = 1.0,
    name: str | None = None,
    max_swords: int = 10,
) -> Swordmaster:
    """A random swordmaster within ``options``' budget, pool and cost table.

    Args:
        rng: any object with ``randint``, ``choice`` and ``random`` (``random.Random(seed)``).
        options: the league options (default: the Hundred defaults: 10 points, all 100 swords).
        builders: the weight of construction swords relative to the others (0 = none).
        name: its name; a random one when ``None``.
        max_swords: at most this many swords (free swords, cost 0, could be unlimited).
    """
    opts = options or Options()
    pool = list(opts.pool_codes)
    heavy = [c for c in pool if BY_CODE[c].kind != CONSTRUCTION]
    build = [c for c in pool if BY_CODE[c].kind == CONSTRUCTION]
    budget = opts.budget
    points = [0, 0, 0, 0]  # HP/5, ATK, DEF, SPD
    if rng.random() < 0.15 or budget < 3:  # edge cases: any split, HP 0, unspent points
        stats_share = rng.randint(0, budget)
    else:  # a sheet as players write them: some HP and SPD, the rest on swords
        stats_share = rng.randint(2, max(2, budget - 2))
        points[0] += 1
        points[3] += 1
    for _ in range(stats_share - sum(points)):
        points[rng.choice((0, 0, 1, 2, 3, 3))] += 1
    left = budget - stats_share
    swords: list[Sword] = []
    share_b = (
        (len(build) * builders) / (len(build) * builders + len(heavy)) if heavy or build else 0
    )
    for _ in range(rng.randint(0, max_swords) if rng.random() < 0.2 else max_swords):
        src = build if (build and (not heavy or rng.random() < share_b)) else heavy
        if not src:
            break
        code = rng.choice(src)
        cost = opts.cost(code)
        if cost > left:
            continue
        left -= cost
        swords.append(Sword(code, random_n(rng, code)))
    if name is None:
        name = rng.choice(NAMES)
    # 剣技 is what the budget leaves after the abilities (M1); the sheet states none
    return Swordmaster(
        name,
        points[0] * 5,
        points[1],
        points[2],
        points[3],
        budget - stats_share,
        tuple(swords),
        False,
        rng.choice(("compact", "full")),
        "ja",
    )
