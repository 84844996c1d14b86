"""Offline round-robin over a folder of sheet files (``amaryllis tournament DIR``), for any
ruleset (the ``Ruleset`` interface only).

Every valid sheet meets every other once; invalid sheets are reported and left out. Battles run
without the event log, spread over ``jobs`` processes by rows of the pairing triangle; results
stream out in a fixed order (pairs (i, j), i < j, by file name), so the output does not depend on
``jobs``. Each battle is the ruleset's ``battle --json`` object (``Ruleset.result_json`` without
events) plus the two files. Standings use the league's rules (``app.league.standings``: points,
head-to-head, Sonneborn-Berger, HP margin = the ruleset's ``Outcome.margin``).
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from app.league.standings import GameResult, Points, Score, compute
from app.rules.base import Ruleset
from app.sheetfile import read_sheet_file


@dataclass(frozen=True)
class Field:
    """The sheets of a folder under one ruleset: ``names`` and ``entries`` of the valid ones
    (sorted by file name), ``invalid``: (file name, printable errors) of the others."""

    ruleset: Ruleset
    names: list[str]
    entries: list[Any]
    invalid: list[tuple[str, str]]

    @property
    def units(self) -> list[Any]:
        """The entries (the name this field had when it held Amaryllis units only)."""
        return self.entries


def read_folder(folder: Path) -> list[tuple[str, str | None, str | None]]:
    """Every regular, non-hidden file of ``folder``, sorted by name, as ``(name, text, None)``
    or ``(name, None, why it cannot be read)``. Raises ``NotADirectoryError``."""
    if not folder.is_dir():
        raise NotADirectoryError(str(folder))
    out: list[tuple[str, str | None, str | None]] = []
    for path in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        try:
            out.append((path.name, read_sheet_file(path), None))
        except (OSError, ValueError) as exc:
            out.append((path.name, None, str(exc)))
    return out


def load_field(source: Path | list[tuple[str, str | None, str | None]],
               ruleset: Ruleset | None = None) -> Field:
    """Read and validate every sheet of a folder (a path, or :func:`read_folder`'s list) with
    ``ruleset`` (default: the one most files are written in, as ``check`` guesses).

    Raises ``NotADirectoryError`` when a path is not a folder.
    """
    files = read_folder(source) if isinstance(source, Path) else source
    if ruleset is None:
        from app.rules_commands import pick_ruleset

        ruleset = pick_ruleset(None, [t for _, t, _ in files if t is not None])[0]
    names: list[str] = []
    entries: list[Any] = []
    invalid: list[tuple[str, str]] = []
    for name, text, error in files:
        if text is None:
            invalid.append((name, error or "unreadable"))
            continue
        sheet = ruleset.parse_sheet(text)
        if not sheet.ok:
            invalid.append((name, ruleset.format_problems(sheet.errors, sheet.lang)))
        else:
            names.append(name)
            entries.append(sheet.entry)
    return Field(ruleset, names, entries, invalid)


# -- worker side -------------------------------------------------------------------------------

Row = tuple[int, list[tuple[dict[str, Any], int | None, int]]]

_RULESET: Ruleset | None = None
_ENTRIES: list[Any] = []
_JSON = False


def _init(ruleset: Ruleset, entries: list[Any], as_json: bool) -> None:
    global _RULESET, _ENTRIES, _JSON
    _RULESET, _ENTRIES, _JSON = ruleset, entries, as_json


def _row(i: int) -> Row:
    """Battles of entry i against every later entry: (``result_json`` without events, or ``{}``
    when no JSON is printed; winner; margin) each."""
    rs = _RULESET
    assert rs is not None
    a = _ENTRIES[i]
    out = []
    for b in _ENTRIES[i + 1:]:
        result = rs.battle(a, b, log=False)
        winner, margin = rs.winner_and_margin(result)
        out.append((rs.result_json(result, events=False) if _JSON else {}, winner, margin))
    return i, out


def _rows(ruleset: Ruleset, entries: list[Any], jobs: int, as_json: bool) -> Iterator[Row]:
    """Yield (i, results of row i) for every row, in order of i."""
    n = len(entries)
    if jobs <= 1 or n < 3:
        _init(ruleset, entries, as_json)
        for i in range(n):
            yield _row(i)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(jobs, initializer=_init, initargs=(ruleset, entries, as_json)) as pool:
        yield from pool.imap(_row, range(n), chunksize=max(1, n // (jobs * 16)))


# -- driver ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A line of the offline standings: file name, entry label and the league :class:`Score`."""

    file: str
    unit: str
    score: Score


def run(field: Field, *, jobs: int = 1, points: Points = Points(),
        battles_out: IO[str] | None = None) -> list[Standing]:
    """Fight every pair of ``field`` once and return the standings, best first.

    When ``battles_out`` is given, each battle is written to it as a JSON object
    (``{"a": file, "b": file, **result_json}``: for Amaryllis ``winner``, ``reason``, ``turns``,
    ``final``; for Margaret also ``by``, ``final.A``/``final.B`` being lists), separated by
    ``,\\n``, as soon as its row is done; nothing else is kept in memory but the compact results.
    """
    games: list[GameResult] = []
    first = True
    for i, results in _rows(field.ruleset, field.entries, jobs, battles_out is not None):
        for k, (res, winner, margin) in enumerate(results):
            j = i + 1 + k
            games.append(GameResult(i, j, winner, 0, 0, margin))  # the ruleset's tiebreak margin
            if battles_out is not None:
                if not first:
                    battles_out.write(",\n")
                first = False
                battles_out.write(json.dumps({"a": field.names[i], "b": field.names[j], **res},
                                             ensure_ascii=False))
    scores = compute(list(range(len(field.entries))), games, points)
    return [Standing(field.names[s.entry], field.ruleset.label(field.entries[s.entry]), s)
            for s in scores]


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
