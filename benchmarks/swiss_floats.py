"""Repeated floats of the Swiss pairing against a Dutch-system engine (bbpPairings) on the same
histories.

Usage: .venv/bin/python benchmarks/swiss_floats.py [--bbp PATH] [--players 37,100] [--rounds 9]
       [--runs 5] [--seed 1]

bbpPairings (https://github.com/BieremaBoyzProgramming/bbpPairings, C++, ``make``) is not part
of the project: give its executable with ``--bbp`` or ``$BBP_PAIRINGS``, or put
``bbpPairings.exe`` on the PATH. Without it the script says so and exits 0.

Each run plays one tournament of ``--rounds`` rounds paired by bbpPairings ``--dutch`` (it gives
the colours the TRF needs), with random results (seeded; the higher hidden strength wins more
often, some draws; a bye scores a win; points 1/0.5/0). Before every round from the second on the
same history is paired three ways: the Swiss without its float criteria (``pair_round`` with no
floats: the engine before them), the Swiss as it is, and bbpPairings. For each proposal it counts
the Dutch system's repeated floats (C.04.3 C.12-C.15: entries that receive the same downfloat or
upfloat as in the previous round, or as two rounds before; a bye is a downfloat) and the score
spread (pairs of unequal scores, and the sum of their score differences). Prints the totals.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.formats.base import Pairing, Result, Round  # noqa: E402
from app.formats.swiss import DOWN, UP, Swiss, floats, pair_round  # noqa: E402
from app.formats.tiebreaks import ScoreTable  # noqa: E402

Pairs = list[tuple[int, int | None]]
COLUMNS = ("C.12 down", "C.13 up", "C.14 down", "C.15 up", "mixed pairs", "score diff")


def find_bbp(given: str | None) -> str | None:
    for path in (
        given,
        os.environ.get("BBP_PAIRINGS"),
        shutil.which("bbpPairings.exe"),
        shutil.which("bbpPairings"),
    ):
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return None


class Tournament:
    """A history with the colours bbpPairings gave, and the TRF of it."""

    def __init__(self, players: int, rounds: int) -> None:
        self.players = players
        self.rounds = rounds
        self.entries = list(range(1, players + 1))
        self.history: list[Round] = []
        self.colours: list[dict[int, str]] = []  # per round: entry -> "w" / "b"

    def points(self) -> dict[int, Fraction]:
        table = ScoreTable.build(self.entries, self.history, FMT.points, bye_points=FMT.bye_value)
        return table.points

    def trf(self) -> str:
        pts = self.points()
        lines = ["012 swiss floats benchmark", f"XXR {self.rounds}", "XXC white1"]
        for e in self.entries:
            line = (
                f"001 {e:4d}      {f'P{e:04d}':<33} {3000 - e:4d} {'':3} {'':11} {'':10} "
                f"{float(pts[e]):4.1f} {e:4d}"
            )
            for rnd, colours in zip(self.history, self.colours, strict=True):
                line += "  " + self._cell(rnd, colours, e)
            lines.append(line)
        return "\n".join(lines) + "\n"

    @staticmethod
    def _cell(rnd: Round, colours: dict[int, str], e: int) -> str:
        for g in rnd.games:
            if g.b is None and g.a == e:
                return "0000 - U"
            if e in (g.a, g.b) and g.b is not None and g.result is not None:
                other = g.b if g.a == e else g.a
                side = 0 if g.a == e else 1
                res = "=" if g.result.winner is None else "1" if g.result.winner == side else "0"
                return f"{other:4d} {colours[e]} {res}"
        raise AssertionError(f"entry {e} is not in round {rnd.number}")


FMT = Swiss({"rounds": 99, "points": "1/0.5/0"})


def bbp_pairs(exe: str, t: Tournament) -> tuple[Pairs, dict[int, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "in.trf"), Path(tmp, "out.txt")
        src.write_text(t.trf(), encoding="ascii")
        subprocess.run([exe, "--dutch", str(src), "-p", str(dst)], check=True, capture_output=True)
        rows = dst.read_text(encoding="ascii").split()[1:]
    pairs: Pairs = []
    colours: dict[int, str] = {}
    for w, b in zip(rows[::2], rows[1::2], strict=True):
        if int(b) == 0:
            pairs.append((int(w), None))
        else:
            pairs.append((int(w), int(b)))
            colours[int(w)], colours[int(b)] = "w", "b"
    return pairs, colours


def swiss_pairs(t: Tournament, with_floats: bool) -> Pairs:
    pts = t.points()
    ranked = sorted(t.entries, key=lambda e: (-pts[e], e))
    met = {frozenset((g.a, g.b)) for r in t.history for g in r.games if g.b is not None}
    had_bye = {g.a for r in t.history for g in r.games if g.b is None}
    fl = floats(t.history, FMT.points, FMT.bye_value, t.entries) if with_floats else None
    return pair_round(ranked, pts, met, had_bye, fl)


def count(t: Tournament, pairs: Pairs) -> list[Fraction]:
    pts = t.points()
    before = floats(t.history, FMT.points, FMT.bye_value, t.entries)
    now: dict[int, str | None] = {}
    mixed, spread = 0, Fraction(0)
    for a, b in pairs:
        if b is None:
            now[a] = DOWN
            continue
        hi, lo = (a, b) if pts[a] >= pts[b] else (b, a)
        if pts[hi] != pts[lo]:
            now[hi], now[lo] = DOWN, UP
            mixed += 1
            spread += pts[hi] - pts[lo]
    out = [Fraction(0)] * 4
    for e, f in now.items():
        last, prev = before[e]
        out[0] += f == DOWN and last == DOWN
        out[1] += f == UP and last == UP
        out[2] += f == DOWN and prev == DOWN
        out[3] += f == UP and prev == UP
    return [*out, Fraction(mixed), spread]


def play(
    exe: str, players: int, rounds: int, rng: random.Random, totals: dict[str, list[Fraction]]
) -> int:
    t = Tournament(players, rounds)
    strength = {e: rng.gauss(0, 1) for e in t.entries}
    engines: dict[str, Callable[[], Pairs]] = {
        "swiss, no float criteria": lambda: swiss_pairs(t, False),
        "swiss": lambda: swiss_pairs(t, True),
        "bbpPairings --dutch": lambda: bbp_pairs(exe, t)[0],
    }
    asked = 0
    for k in range(1, rounds + 1):
        if k > 1:
            for name, engine in engines.items():
                totals[name] = [
                    x + y for x, y in zip(totals[name], count(t, engine()), strict=True)
                ]
            asked += 1
        pairs, colours = bbp_pairs(exe, t)
        boards = [Pairing(i, a, b) for i, (a, b) in enumerate(pairs, start=1)]
        results = {}
        for p in boards:
            if p.b is not None:
                d = strength[p.a] - strength[p.b] + rng.gauss(0, 1)
                results[p.board] = Result(None if abs(d) < 0.3 else 0 if d > 0 else 1)
        t.history.append(Round.of(k, boards, results))
        t.colours.append(colours)
    return asked


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bbp")
    parser.add_argument("--players", default="37,100")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    exe = find_bbp(args.bbp)
    if exe is None:
        print(
            "bbpPairings not found (--bbp, $BBP_PAIRINGS or bbpPairings.exe on the PATH): skipped"
        )
        return 0
    rng = random.Random(args.seed)
    for players in (int(x) for x in args.players.split(",")):
        totals = {
            name: [Fraction(0)] * len(COLUMNS)
            for name in ("swiss, no float criteria", "swiss", "bbpPairings --dutch")
        }
        asked = sum(play(exe, players, args.rounds, rng, totals) for _ in range(args.runs))
        print(
            f"{players} players, {args.runs} runs x {args.rounds} rounds "
            f"({asked} rounds paired three ways):"
        )
        print(f"  {'engine':<26}" + "".join(f"{c:>12}" for c in COLUMNS))
        for name, row in totals.items():
            print(f"  {name:<26}" + "".join(f"{float(x):>12g}" for x in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
