"""Engine speed: battles per second over random valid pairs in one process, without rendering.

Usage: .venv/bin/python benchmarks/engine.py [--ruleset amaryllis|margaret|all] [--pairs 10000]
       [--seed 1] [--repeat 3] [--log]

Each ruleset's random entries (``Ruleset.random_entry``) are fought through the ``Ruleset``
interface (``battle(a, b, log=False)``), so the figure includes what a league pays per battle
(Margaret: its swordmasters compiled to Amaryllis units, cached). Target (issue #2): at least
10,000 Amaryllis battles/s per core with ``log=False``. Prints the figures; asserts nothing
(timings are not tests).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rules import all_rulesets, find_ruleset
from app.rules.base import Ruleset


def bench(rs: Ruleset, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    pairs = [(rs.random_entry(rng, "A"), rs.random_entry(rng, "B")) for _ in range(args.pairs)]
    for a, b in pairs[:50]:  # warm caches (Margaret's compiled units), as a league does
        rs.battle(a, b, log=False)
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for a, b in pairs:
            rs.battle(a, b, log=False)
        rates.append(len(pairs) / (time.perf_counter() - start))
    print(
        f"{rs.name}: {len(pairs)} random valid pairs, log=False: "
        f"{statistics.median(rates):,.0f} battles/s (median of {args.repeat}; "
        f"best {max(rates):,.0f})"
    )
    if args.log:
        start = time.perf_counter()
        for a, b in pairs:
            rs.battle(a, b, log=True)
        print(f"{rs.name}: log=True: {len(pairs) / (time.perf_counter() - start):,.0f} battles/s")
    outcomes = [rs.outcome(rs.battle(a, b, log=False)) for a, b in pairs]
    turns = Counter(o.turns for o in outcomes)
    reasons = Counter(o.termination for o in outcomes)
    print(f"{rs.name}: last turn 20 in {turns[20] / len(pairs):.0%}; reasons: {dict(reasons)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="amaryllis", help="a ruleset name, or all")
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--log", action="store_true", help="also time battles with the event log")
    args = parser.parse_args()
    classes = all_rulesets() if args.ruleset == "all" else [find_ruleset(args.ruleset)]
    for cls in classes:
        bench(cls(), args)


if __name__ == "__main__":
    main()
