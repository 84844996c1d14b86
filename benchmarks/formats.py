"""Formats at scale: Swiss pairing, a busy hill, a 1,000-entry round robin, ratings.

Usage: .venv/bin/python benchmarks/formats.py [--players 1000] [--rounds 10] [--hill 200]
       [--challenges 1000] [--rr 1000] [--skip swiss,hill,rr,ratings]

Results are synthetic and deterministic: every entry has a hidden strength (a seeded random
integer); the stronger wins by the difference in HP, equal strengths draw. Only pairing, table
updates and standings are timed (no battles). Prints wall times; asserts nothing (timings never
go in tests: docs/formats.md, "Performance").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.formats import find_format  # noqa: E402
from app.formats.base import Pairing, Result, Round, RoundPairings  # noqa: E402
from app.formats.hill import Hill, HillState  # noqa: E402
from app.formats.ratings import RatedGame, RatingPeriod, rate_periods  # noqa: E402


def fight(strength: dict[int, int], p: Pairing) -> Result:
    assert p.b is not None
    d = strength[p.a] - strength[p.b]
    return Result(None if d == 0 else (0 if d > 0 else 1), d)


def swiss(players: int, rounds: int, strength: dict[int, int]) -> list[Round]:
    fmt = find_format("swiss")({"rounds": rounds})
    entries = list(range(players))
    history: list[Round] = []
    times = []
    while True:
        t = time.perf_counter()
        answer = fmt.next_round(entries, history)
        times.append(time.perf_counter() - t)
        if not isinstance(answer, RoundPairings):
            break
        history.append(
            answer.to_round(
                {p.board: fight(strength, p) for p in answer.pairings if p.b is not None}
            )
        )
    t = time.perf_counter()
    fmt.standings(entries, history)
    st = time.perf_counter() - t
    print(
        f"swiss: {players} players x {len(history)} rounds: pairing {sum(times):.2f} s total, "
        f"{max(times):.2f} s worst round, {sum(times) / max(1, len(history)):.2f} s mean; "
        f"standings {st * 1000:.0f} ms"
    )
    return history


def hill(size: int, challenges: int, strength: dict[int, int]) -> list[Round]:
    fmt = Hill({"size": size})
    state = HillState()
    history: list[Round] = []

    def one(entry: int) -> tuple[float, int]:
        nonlocal state
        t = time.perf_counter()
        boards = fmt.challenge_pairings(state, entry)
        results = {p.board: fight(strength, p) for p in boards if p.b is not None}
        up = fmt.challenge(state, entry, {p.b: results[p.board] for p in boards if p.b is not None})
        dt = time.perf_counter() - t
        state = up.state
        history.append(Round.of(len(history) + 1, boards, results))
        return dt, len(up.pushed_off)

    t0 = time.perf_counter()
    for e in range(size):
        one(e)
    fill = time.perf_counter() - t0
    times, pushed = [], 0
    for e in range(size, size + challenges):
        dt, n = one(e)
        times.append(dt)
        pushed += n
    total = sum(times)
    print(
        f"hill: filled {size} members in {fill:.2f} s; {challenges} challenges "
        f"({size - 1} battles each, {pushed} push-offs): {total:.2f} s, "
        f"{total / challenges * 1000:.1f} ms per challenge (pairing + table update), "
        f"worst {max(times) * 1000:.1f} ms"
    )
    t = time.perf_counter()
    again = fmt.replay(list(range(size + challenges)), history)
    print(
        f"hill: replay of all {len(history)} challenges from the history "
        f"(crash recovery): {time.perf_counter() - t:.2f} s "
        f"(same state: {again.to_json() == state.to_json()})"
    )
    return history


def round_robin(n: int, strength: dict[int, int]) -> None:
    fmt = find_format("round-robin")()
    entries = list(range(n))
    t = time.perf_counter()
    for k in range(1, fmt.rounds_planned(n) + 1):
        fmt.round_pairings(entries, k)
    pure = time.perf_counter() - t
    history: list[Round] = []
    ask = 0.0
    while True:
        t = time.perf_counter()
        answer = fmt.next_round(entries, history)
        ask += time.perf_counter() - t
        if not isinstance(answer, RoundPairings):
            break
        history.append(
            answer.to_round(
                {p.board: fight(strength, p) for p in answer.pairings if p.b is not None}
            )
        )
    games = sum(len(r.games) for r in history)
    t = time.perf_counter()
    fmt.standings(entries, history)
    st = time.perf_counter() - t
    print(
        f"round robin: {n} entries, {len(history)} rounds, {games} boards: whole schedule "
        f"{pure:.2f} s; next_round after every round {ask:.2f} s in all; final standings "
        f"{st:.2f} s"
    )


def ratings(periods_of: list[Round], label: str) -> None:
    periods = [
        RatingPeriod(
            f"{label}/{r.number}",
            tuple(
                RatedGame(g.a, g.b, g.result.winner)
                for g in r.games
                if g.b is not None and g.result is not None
            ),
        )
        for r in periods_of
    ]
    games = sum(len(p.games) for p in periods)
    t = time.perf_counter()
    rate_periods(periods)
    dt = time.perf_counter() - t
    print(
        f"ratings: {label}, {len(periods)} periods, {games} games: {dt:.2f} s "
        f"({dt / max(1, games) * 1e6:.0f} us per game)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--hill", type=int, default=200)
    parser.add_argument("--challenges", type=int, default=1000)
    parser.add_argument("--rr", type=int, default=1000)
    parser.add_argument("--skip", default="")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    rng = random.Random(13)
    strength = {
        e: rng.randint(0, 60)
        for e in range(max(args.players, args.rr, args.hill + args.challenges))
    }
    if "swiss" not in skip:
        sw = swiss(args.players, args.rounds, strength)
        if "ratings" not in skip:
            ratings(sw, "swiss")
    if "hill" not in skip:
        hl = hill(args.hill, args.challenges, strength)
        if "ratings" not in skip:
            ratings(hl, "hill")
    if "rr" not in skip:
        round_robin(args.rr, strength)


if __name__ == "__main__":
    main()
