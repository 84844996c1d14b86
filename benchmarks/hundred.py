"""Margaret Hundred engine speed (``rules/margaret-hundred.md`` §12.13, §12.14 step 3; issue 11).

Usage: .venv/bin/python benchmarks/hundred.py [--pairs 5000] [--seed 1] [--jobs 2] [--sheets 100]

Prints, on one core (CPU time of this process, so that a busy shared machine does not skew it):
  * battles/s over random valid pairs from pools without many builders (construction swords drawn
    at a tenth of the others' weight), with ``log=False`` and with the log (target: 2,000/s per
    core either way), and the same for all 100 swords drawn alike (builders included);
  * the slowest battle seen (CPU time), with its two sheets;
  * base Margaret sheets (the 15 basic swords) for comparison;
then a single round robin of ``--sheets`` random sheets that together carry all 100 swords, with
``--jobs`` processes (target: 100 sheets under a minute with 2 processes).

It asserts nothing: timings are not tests (the brief's rule); run it by hand.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rules.hundred.engine import battle
from app.rules.hundred.generate import random_swordmaster
from app.rules.hundred.model import Sword, Swordmaster, swordmaster
from app.rules.hundred.notation import format_sheet
from app.rules.hundred.options import Options
from app.rules.hundred.swords import ALL, BY_CODE


def rate(pairs: list[tuple[Swordmaster, Swordmaster]], log: bool, repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        start = time.process_time()  # CPU time of this process: per core, robust to load
        for a, b in pairs:
            battle(a, b, log=log)
        rates.append(len(pairs) / (time.process_time() - start))
    return statistics.median(rates)


def slowest(pairs: list[tuple[Swordmaster, Swordmaster]]) -> tuple[float, Swordmaster, Swordmaster]:
    worst = (0.0, pairs[0][0], pairs[0][1])
    for a, b in pairs:
        start = time.process_time()
        battle(a, b, log=False)
        d = time.process_time() - start
        if d > worst[0]:
            worst = (d, a, b)
    return worst


def covering_sheets(rng: random.Random, n: int) -> list[Swordmaster]:
    """``n`` valid random sheets; sheet i starts with sword i mod 100, so all 100 appear."""
    out = []
    for i in range(n):
        m = random_swordmaster(rng, max_swords=8)
        code = ALL[i % len(ALL)]
        d = BY_CODE[code]
        first = Sword(code, None if d.param is None else max(d.param, 1))
        swords = (first, *m.swords)
        while m.hp // 5 + m.atk + m.defense + m.spd + len(swords) > 10:
            swords = swords[:-1] if len(swords) > 1 else swords
            if m.hp // 5 + m.atk + m.defense + m.spd + len(swords) > 10:
                m = swordmaster(m.name, max(0, m.hp - 5), m.atk, m.defense, m.spd, m.swords)
                if m.hp == 0 and m.hp // 5 + m.atk + m.defense + m.spd + len(swords) > 10:
                    m = swordmaster(m.name, 0, 0, 0, 1, m.swords)
        out.append(swordmaster(f"{m.name}{i}", m.hp, m.atk, m.defense, m.spd, swords))
    return out


def _fight(pair: tuple[Swordmaster, Swordmaster]) -> tuple[float, int, int]:
    start = time.process_time()
    r = battle(pair[0], pair[1], log=False)
    return time.process_time() - start, r.procedures, r.limit_hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sheets", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    for label, builders in (("pools without many builders", 0.1), ("all 100 swords alike", 1.0)):
        pairs = [
            (random_swordmaster(rng, builders=builders), random_swordmaster(rng, builders=builders))
            for _ in range(args.pairs)
        ]
        quiet = rate(pairs, False, args.repeat)
        logged = rate(pairs, True, 1)
        worst, a, b = slowest(pairs)
        reasons = Counter(battle(x, y, log=False).reason for x, y in pairs)
        print(f"{label}: {len(pairs)} random valid pairs")
        print(f"  log=False: {quiet:,.0f} battles/s   log=True: {logged:,.0f} battles/s")
        print(f"  slowest: {worst * 1000:.1f} ms: {format_sheet(a)}  vs  {format_sheet(b)}")
        print(f"  reasons: {dict(reasons)}")

    basic = Options(pool="basic")
    pairs = [
        (random_swordmaster(rng, basic), random_swordmaster(rng, basic)) for _ in range(args.pairs)
    ]
    print(
        f"base Margaret (15 swords): log=False {rate(pairs, False, args.repeat):,.0f} battles/s,"
        f" log=True {rate(pairs, True, 1):,.0f} battles/s"
    )

    sheets = covering_sheets(rng, args.sheets)
    assert set(ALL) <= {s.code for m in sheets for s in m.swords}
    games = [(sheets[i], sheets[j]) for i in range(len(sheets)) for j in range(i + 1, len(sheets))]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_fight, games, chunksize=64))
    elapsed = time.perf_counter() - start
    print(
        f"round robin of {len(sheets)} sheets over all 100 swords: {len(games)} battles in "
        f"{elapsed:.1f} s with {args.jobs} processes ({len(games) / elapsed:,.0f} battles/s)"
    )
    ranked = sorted(zip(results, games, strict=False), key=lambda x: -x[0][0])
    for (d, procs, cut), (a, b) in ranked[:3]:
        print(
            f"  {d * 1000:,.0f} ms, {procs:,} procedures, {cut} turns cut by the limit: "
            f"{format_sheet(a)}  vs  {format_sheet(b)}"
        )


if __name__ == "__main__":
    main()
