"""Offline round-robin over a folder of sheet files (``amaryllis tournament DIR``).

Every valid sheet meets every other once; invalid sheets are reported and left out. Battles run
without the event log, spread over ``jobs`` processes by rows of the pairing triangle; results
stream out in a fixed order (pairs (i, j), i < j, by file name), so the output does not depend on
``jobs``. Standings use the league's rules (``app.league.standings``: points, head-to-head,
Sonneborn-Berger, HP margin).
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from app.league.standings import GameResult, Points, Score, compute
from app.rules.amaryllis import parse_sheet
from app.rules.amaryllis.engine import battle, result_json
from app.rules.amaryllis.model import Unit
from app.sheetfile import read_sheet_file


@dataclass(frozen=True)
class Field:
    """The sheets of a folder: ``names`` and ``units`` of the valid ones (sorted by file name) and
    ``invalid``: (file name, printable errors) of the others."""

    names: list[str]
    units: list[Unit]
    invalid: list[tuple[str, str]]


def load_field(folder: Path) -> Field:
    """Read and validate every regular, non-hidden file in ``folder`` (sorted by name).

    Raises ``NotADirectoryError`` when ``folder`` is not a folder.
    """
    from app.rules.amaryllis import format_problems

    if not folder.is_dir():
        raise NotADirectoryError(str(folder))
    names: list[str] = []
    units: list[Unit] = []
    invalid: list[tuple[str, str]] = []
    for path in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        try:
            text = read_sheet_file(path)
        except (OSError, ValueError) as exc:
            invalid.append((path.name, str(exc)))
            continue
        sheet = parse_sheet(text)
        if sheet.unit is None:
            invalid.append((path.name, format_problems(sheet.errors, sheet.lang)))
        else:
            names.append(path.name)
            units.append(sheet.unit)
    return Field(names, units, invalid)


# -- worker side -------------------------------------------------------------------------------

_UNITS: list[Unit] = []


def _init(units: list[Unit]) -> None:
    global _UNITS
    _UNITS = units


def _row(i: int) -> tuple[int, list[dict[str, object]]]:
    """Battles of unit i against every later unit, as ``result_json`` dicts without events."""
    a = _UNITS[i]
    return i, [result_json(battle(a, b, log=False), events=False) for b in _UNITS[i + 1:]]


def _rows(units: list[Unit], jobs: int) -> Iterator[tuple[int, list[dict[str, object]]]]:
    """Yield (i, results of row i) for every row, in order of i."""
    n = len(units)
    if jobs <= 1 or n < 3:
        _init(units)
        for i in range(n):
            yield _row(i)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(jobs, initializer=_init, initargs=(units,)) as pool:
        yield from pool.imap(_row, range(n), chunksize=max(1, n // (jobs * 16)))


# -- driver ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A line of the offline standings: file name, unit name and the league :class:`Score`."""

    file: str
    unit: str
    score: Score


def run(field: Field, *, jobs: int = 1, points: Points = Points(),
        battles_out: IO[str] | None = None) -> list[Standing]:
    """Fight every pair of ``field`` once and return the standings, best first.

    When ``battles_out`` is given, each battle is written to it as a JSON object
    (``{"a": file, "b": file, "winner": "A"|"B"|null, "reason", "turns", "final"}``), separated by
    ``,\\n``, as soon as its row is done; nothing else is kept in memory but the compact results.
    """
    games: list[GameResult] = []
    first = True
    for i, results in _rows(field.units, jobs):
        for k, res in enumerate(results):
            j = i + 1 + k
            winner = res["winner"]
            final = res["final"]
            games.append(GameResult(i, j, None if winner is None else "AB".index(winner),  # type: ignore[arg-type]
                                    final["A"]["hp"], final["B"]["hp"]))  # type: ignore[index]
            if battles_out is not None:
                if not first:
                    battles_out.write(",\n")
                first = False
                battles_out.write(json.dumps({"a": field.names[i], "b": field.names[j], **res},
                                             ensure_ascii=False))
    scores = compute(list(range(len(field.units))), games, points)
    return [Standing(field.names[s.entry], field.units[s.entry].name, s) for s in scores]


def standing_json(s: Standing) -> dict[str, object]:
    """A standings line as JSON: rank, file, unit, points, wins, draws, losses and tiebreaks."""
    sc = s.score
    return {
        "rank": sc.rank, "file": s.file, "unit": s.unit, "points": sc.points, "wins": sc.wins,
        "draws": sc.draws, "losses": sc.losses, "head_to_head": sc.head_to_head,
        "sonneborn_berger": float(sc.sonneborn_berger), "hp_margin": sc.hp_margin,
    }


def standings_text(standings: list[Standing]) -> str:
    """The standings as a plain-text table."""
    width = max([len(s.file) for s in standings] + [4])
    lines = [f"{'rank':>4}  {'file':<{width}}  {'pts':>5}  {'W':>4} {'D':>4} {'L':>4}  "
             f"{'SB':>8}  {'HP+/-':>6}  unit"]
    for s in standings:
        sc = s.score
        rank = f"{sc.rank}{'=' if sc.shared else ''}"
        lines.append(f"{rank:>4}  {s.file:<{width}}  {sc.points:>5}  {sc.wins:>4} {sc.draws:>4} "
                     f"{sc.losses:>4}  {float(sc.sonneborn_berger):>8.1f}  {sc.hp_margin:>6}  {s.unit}")
    return "\n".join(lines) + "\n"
