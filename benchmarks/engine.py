"""Engine speed: battles per second over random valid pairs in one process, without rendering.

Usage: .venv/bin/python benchmarks/engine.py [--pairs 10000] [--seed 1] [--log]

Target (issue #2): at least 10,000 battles/s per core with ``log=False``. Prints the figures; it
asserts nothing (timings are not tests).
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

from app.rules.amaryllis.engine import battle  # noqa: E402
from app.rules.amaryllis.generate import random_unit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--log", action="store_true", help="also time battles with the event log")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    pairs = [(random_unit(rng, "A"), random_unit(rng, "B")) for _ in range(args.pairs)]
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for a, b in pairs:
            battle(a, b, log=False)
        rates.append(len(pairs) / (time.perf_counter() - start))
    print(f"{len(pairs)} random valid pairs, log=False: "
          f"{statistics.median(rates):,.0f} battles/s (median of {args.repeat}; best {max(rates):,.0f})")
    if args.log:
        start = time.perf_counter()
        for a, b in pairs:
            battle(a, b, log=True)
        print(f"log=True: {len(pairs) / (time.perf_counter() - start):,.0f} battles/s")
    turns = Counter(battle(a, b, log=False).turns for a, b in pairs)
    reasons = Counter(battle(a, b, log=False).reason.value for a, b in pairs)
    print("last turn: 20 in", f"{turns[20] / len(pairs):.0%};", "reasons:", dict(reasons))


if __name__ == "__main__":
    main()
