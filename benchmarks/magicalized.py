"""Margaret Magicalized engine speed (``rules/margaret-magicalized.md``).

Usage: .venv/bin/python benchmarks/magicalized.py [--pairs 2000] [--seed 1] [--jobs 2]
       [--sheets 100]

Prints, on one core (CPU time of this process, so that a busy shared machine does not skew it):
  * battles/s over random valid list-1 pairs with no cards, and with typical standing orders on
    both sides (a hand of 7 and 10-20 random rules each), with ``log=False`` and with the log;
  * the windows and cards played per battle (how much the orders do);
  * the parser on typical orders and on 1 MB of hostile text;
then a round robin of ``--sheets`` random sheets, each with its own orders (every two once, side A
the earlier, the lead drawn per pairing as ``tournament`` does), with ``--jobs`` processes.

It asserts nothing: timings are not tests; run it by hand.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rules.base import BattleInputs
from app.rules.magicalized.generate import random_orders_text, random_swordmaster
from app.rules.magicalized.orders import parse_orders
from app.rules.magicalized.ruleset import MargaretMagicalized

RS = MargaretMagicalized()


def _orders(rng: random.Random) -> Any:
    r = parse_orders(random_orders_text(rng, rng.randint(10, 20)))
    assert r.ok and r.orders is not None
    return r.orders.offline()


def rate(games: list[tuple[Any, Any, BattleInputs]], log: bool, repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        start = time.process_time()
        for a, b, inputs in games:
            RS.fight(a, b, inputs, log=log)
        rates.append(len(games) / (time.process_time() - start))
    return statistics.median(rates)


_FIELD: list[tuple[Any, Any, str]] = []


def _init(field: list[tuple[Any, Any, str]]) -> None:
    global _FIELD
    _FIELD = field


def _row(i: int) -> int:
    a, oa, na = _FIELD[i]
    for j in range(i + 1, len(_FIELD)):
        b, ob, nb = _FIELD[j]
        RS.fight(a, b, BattleInputs((oa, ob), RS.lead_draw("bench", na, nb)), log=False)
    return len(_FIELD) - i - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sheets", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    sheets = [(random_swordmaster(rng), random_swordmaster(rng)) for _ in range(args.pairs)]
    bare = [(a, b, BattleInputs(lead=rng.randint(0, 1))) for a, b in sheets]
    typical = [
        (a, b, BattleInputs((_orders(rng), _orders(rng)), rng.randint(0, 1))) for a, b in sheets
    ]
    print(f"{args.pairs} random valid list-1 pairs")
    print(
        f"  no cards:         log=False {rate(bare, False, args.repeat):,.0f} battles/s, "
        f"log=True {rate(bare, True, 1):,.0f} battles/s"
    )
    print(
        f"  orders (10-20 rules a side): log=False {rate(typical, False, args.repeat):,.0f} "
        f"battles/s, log=True {rate(typical, True, 1):,.0f} battles/s"
    )
    results = [RS.fight(a, b, i, log=False) for a, b, i in typical]
    print(
        f"  windows per battle: median {statistics.median(r.windows for r in results):.0f}, "
        f"cards played per battle: mean {statistics.mean(len(r.cards) for r in results):.1f}"
    )

    texts = [random_orders_text(rng, 20) for _ in range(500)]
    start = time.process_time()
    for t in texts:
        parse_orders(t)
    per = (time.process_time() - start) / len(texts)
    print(f"parser: {per * 1e6:,.0f} µs per typical orders text (20 rules)")
    hostile = {
        "1 MB, one line": "ON enemy HIT " * 80_000,
        "1 MB of rules": "HAND 燃×7\nORDERS\n" + "ON enemy HIT IF damage >= 4 PLAY 燃\n" * 30_000,
        "1 MB of junk lines": "x\n" * 500_000,
        "1 MB hand line": "HAND " + "燃、" * 300_000,
    }
    for label, text in hostile.items():
        start = time.process_time()
        r = parse_orders(text)
        print(
            f"  {label}: {(time.process_time() - start) * 1000:,.1f} ms, {len(r.problems)} problems"
        )

    field = [(random_swordmaster(rng), _orders(rng), f"S{i:03d}") for i in range(args.sheets)]
    n = len(field) * (len(field) - 1) // 2
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(field,)) as pool:
        done = sum(pool.map(_row, range(len(field)), chunksize=2))
    elapsed = time.perf_counter() - start
    assert done == n
    print(
        f"round robin of {len(field)} entries with orders: {n} battles in {elapsed:.1f} s "
        f"with {args.jobs} processes ({n / elapsed:,.0f} battles/s, wall clock)"
    )


if __name__ == "__main__":
    main()
