"""Offline tournament over a folder of sheet files (``amaryllis tournament DIR``), for any
ruleset (the ``Ruleset`` interface only) and any format (the ``Format`` interface of
``app.formats``, the same code as leagues).

:func:`run_format` asks the format for the next round after each round, fights its boards
without the event log, spread over ``jobs`` processes, and streams each battle out in board
order, so the output does not depend on ``jobs``. Each battle is the ruleset's ``battle --json``
object (``Ruleset.public_json`` without events) plus the two files, the round and the board.
A ruleset with orders (``takes_orders``) reads ``X.orders.txt`` beside ``X.txt`` and fights each
pairing with both sides' orders for that opponent and the pairing's lead draw (``Field.inputs``).
A round robin's standings use the league's rules (``app.league.standings``: points,
head-to-head, Sonneborn-Berger, HP margin = the ruleset's ``Outcome.margin``); other formats'
are the format's own (``Format.standings``). :func:`run` is the older all-pairs round robin
(pairs (i, j), i < j, by rows of the triangle), kept for callers of the library.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from app.league.standings import GameResult, Points, Score, compute
from app.rules.base import BattleInputs, Ruleset
from app.sheetfile import read_sheet_file

ORDERS_SUFFIX = ".orders.txt"
"""An orders file beside a sheet ``X.txt`` is ``X.orders.txt`` (rulesets with orders)."""


@dataclass(frozen=True)
class Field:
    """The sheets of a folder under one ruleset: ``names`` and ``entries`` of the valid ones
    (sorted by file name), ``invalid``: (file name, printable errors) of the others."""

    ruleset: Ruleset
    names: list[str]
    entries: list[Any]
    invalid: list[tuple[str, str]]
    orders: list[Any] | None = None
    """Rulesets with orders: each entry's parsed orders (``OrdersSheet.orders``, or ``None``)."""
    unit_names: list[str] | None = None
    """Rulesets with orders: each entry's unit name as on its sheet (``Sheet.name``)."""
    seed: str = ""
    """Rulesets with orders: the published seed of the lead draws (``--seed``)."""

    @property
    def units(self) -> list[Any]:
        """The entries (the name this field had when it held Amaryllis units only)."""
        return self.entries

    def inputs(self, i: int, j: int) -> BattleInputs | None:
        """The battle inputs of entry ``i`` (side A) against ``j``: each side's orders for that
        opponent and the draw of the pairing from the file names without extension (G20), or
        ``None`` for a ruleset without orders."""
        if self.orders is None or self.unit_names is None:
            return None
        rs = self.ruleset
        stem = [n[:-4] if n.endswith(".txt") else n for n in (self.names[i], self.names[j])]
        return BattleInputs((rs.orders_for(self.orders[i], self.unit_names[j]),
                             rs.orders_for(self.orders[j], self.unit_names[i])),
                            rs.lead_draw(self.seed, stem[0], stem[1]))


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
               ruleset: Ruleset | None = None, *, seed: str = "") -> Field:
    """Read and validate every sheet of a folder (a path, or :func:`read_folder`'s list) with
    ``ruleset`` (default: the one most files are written in, as ``check`` guesses). For a
    ruleset with orders, ``X.orders.txt`` is ``X.txt``'s orders file (an invalid one leaves
    the entry out) and ``seed`` the published seed of the lead draws.

    Raises ``NotADirectoryError`` when a path is not a folder.
    """
    files = read_folder(source) if isinstance(source, Path) else source
    if ruleset is None:
        from app.rules_commands import pick_ruleset

        ruleset = pick_ruleset(None, [t for _, t, _ in files if t is not None])[0]
    orders_files: dict[str, tuple[str | None, str | None]] = {}
    if ruleset.takes_orders:  # X.orders.txt beside X.txt (§5 of the Magicalized rules)
        orders_files = {n[:-len(ORDERS_SUFFIX)]: (t, e) for n, t, e in files
                        if n.endswith(ORDERS_SUFFIX)}
        files = [f for f in files if not f[0].endswith(ORDERS_SUFFIX)]
    names: list[str] = []
    entries: list[Any] = []
    invalid: list[tuple[str, str]] = []
    orders: list[Any] = []
    units: list[str] = []
    for name, text, error in files:
        if text is None:
            invalid.append((name, error or "unreadable"))
            continue
        sheet = ruleset.parse_sheet(text)
        if not sheet.ok:
            invalid.append((name, ruleset.format_problems(sheet.errors, sheet.lang)))
            continue
        parsed = None
        stem = name[:-4] if name.endswith(".txt") else name
        if stem in orders_files:
            otext, oerror = orders_files.pop(stem)
            if otext is None:
                invalid.append((stem + ORDERS_SUFFIX, oerror or "unreadable"))
                continue
            osheet = ruleset.parse_orders(otext)
            if not osheet.ok:
                invalid.append((stem + ORDERS_SUFFIX,
                                ruleset.format_problems(osheet.errors, osheet.lang)))
                continue
            parsed = osheet.orders
        names.append(name)
        entries.append(sheet.entry)
        orders.append(parsed)
        units.append(sheet.name)
    for stem in orders_files:
        invalid.append((stem + ORDERS_SUFFIX, f"no sheet {stem}.txt beside it"))
    if ruleset.takes_orders:
        return Field(ruleset, names, entries, invalid, orders, units, seed)
    return Field(ruleset, names, entries, invalid)


# -- worker side -------------------------------------------------------------------------------

Row = tuple[int, list[tuple[dict[str, Any], int | None, int]]]

_RULESET: Ruleset | None = None
_ENTRIES: list[Any] = []
_JSON = False
_FIELD: Field | None = None


def _init(ruleset: Ruleset, entries: list[Any], as_json: bool,
          field: Field | None = None) -> None:
    global _RULESET, _ENTRIES, _JSON, _FIELD
    _RULESET, _ENTRIES, _JSON, _FIELD = ruleset, entries, as_json, field


def _fight(i: int, j: int) -> Any:
    """Entry i (side A) against entry j, without the log (with their orders and the lead draw
    for a ruleset with orders)."""
    rs = _RULESET
    assert rs is not None
    inputs = _FIELD.inputs(i, j) if _FIELD is not None else None
    if inputs is None:
        return rs.battle(_ENTRIES[i], _ENTRIES[j], log=False)
    return rs.fight(_ENTRIES[i], _ENTRIES[j], inputs, log=False)


def _row(i: int) -> Row:
    """Battles of entry i against every later entry: (``result_json`` without events, or ``{}``
    when no JSON is printed; winner; margin) each."""
    rs = _RULESET
    assert rs is not None
    out = []
    for j in range(i + 1, len(_ENTRIES)):
        result = _fight(i, j)
        winner, margin = rs.winner_and_margin(result)
        out.append((rs.public_json(result, events=False) if _JSON else {}, winner, margin))
    return i, out


def _rows(ruleset: Ruleset, entries: list[Any], jobs: int, as_json: bool,
          field: Field | None = None) -> Iterator[Row]:
    """Yield (i, results of row i) for every row, in order of i."""
    n = len(entries)
    if jobs <= 1 or n < 3:
        _init(ruleset, entries, as_json, field)
        for i in range(n):
            yield _row(i)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(jobs, initializer=_init, initargs=(ruleset, entries, as_json, field)) as pool:
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
    for i, results in _rows(field.ruleset, field.entries, jobs, battles_out is not None, field):
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


# -- any format (``--format``): the same ``app.formats`` code as leagues ------------------------


def _pair(task: tuple[int, int]) -> tuple[dict[str, Any], int | None, int]:
    """One battle of the field by indices ``(i, j)``: (``result_json`` or ``{}``, winner,
    margin)."""
    rs = _RULESET
    assert rs is not None
    result = _fight(task[0], task[1])
    winner, margin = rs.winner_and_margin(result)
    return (rs.public_json(result, events=False) if _JSON else {}), winner, margin


class _Fighter:
    """Fights a list of boards, in a pool of ``jobs`` processes when more than one (opened once
    for the whole tournament), results in board order."""

    def __init__(self, ruleset: Ruleset, entries: list[Any], jobs: int, as_json: bool,
                 field: Field | None = None) -> None:
        self.pool: Any = None
        _init(ruleset, entries, as_json, field)
        if jobs > 1 and len(entries) >= 3:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            ctx = multiprocessing.get_context(method)
            self.pool = ctx.Pool(jobs, initializer=_init,
                                 initargs=(ruleset, entries, as_json, field))
            self.jobs = jobs

    def fight(self, tasks: list[tuple[int, int]]) -> Iterator[tuple[dict[str, Any], int | None, int]]:
        if self.pool is None or len(tasks) < 2:
            return map(_pair, tasks)
        return self.pool.imap(_pair, tasks, chunksize=max(1, len(tasks) // (self.jobs * 8)))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


@dataclass(frozen=True)
class FormatRun:
    """What :func:`run_format` played: the rounds (``app.formats.Round``, entry ids are 1-based
    positions in ``field.names``), the format's standings, why it stopped (``Finished.reason``
    or ``waiting-for-entries``), and the hill's push-offs (``(challenge, entry, place)``)."""

    rounds: list[Any]
    standings: Any
    stop: str
    pushed_off: list[tuple[int, int, int]]


def run_format(field: Field, fmt: Any, *, jobs: int = 1,
               battles_out: IO[str] | None = None, max_rounds: int = 100_000) -> FormatRun:
    """Play ``field`` under the format instance ``fmt`` (``app.formats.Format``): ask
    ``fmt.next_round`` for the pairings after every round, as a league does, fight them, and
    stop at ``Finished`` or ``NotYet("waiting-for-entries")`` (the hill: every file has
    challenged, in file-name order).

    Entry ids are 1-based positions in the file-name order (so a knockout draw is re-checked
    with ``sha256("<seed>/knockout-draw/<round>/<id>")``). Every battle is written to
    ``battles_out`` as it is fought: ``{"a", "b", "round", "board", **result_json}`` and, in a
    knockout, ``"decided": {"winner": file, "by": "win"|"margin"|"lot"}`` (the stated rule of a
    drawn battle), separated by ``,\\n``. Raises ``RuntimeError`` past ``max_rounds`` (a format
    that never finishes).
    """
    from app.formats import Finished, NotYet, Result, RoundPairings
    from app.formats.hill import Hill, HillState
    from app.formats.knockout import Knockout

    ids = list(range(1, len(field.entries) + 1))
    history: list[Any] = []
    pushed: list[tuple[int, int, int]] = []
    hill_state = HillState() if isinstance(fmt, Hill) else None
    fighter = _Fighter(field.ruleset, field.entries, jobs, battles_out is not None, field)
    first = True
    stop = ""
    try:
        while True:
            if len(history) >= max_rounds:
                raise RuntimeError(f"the format asked for more than {max_rounds} rounds")
            answer = fmt.next_round(ids, history)
            if isinstance(answer, Finished):
                stop = answer.reason
                break
            if isinstance(answer, NotYet):
                # the last round is always complete here: only "waiting-for-entries"
                stop = answer.reason
                break
            assert isinstance(answer, RoundPairings)
            boards = [(p.board, p.a, p.b) for p in answer.pairings if p.b is not None]
            results: dict[int, Result] = {}
            fought = fighter.fight([(a - 1, b - 1) for _, a, b in boards])
            for (board, a, b), (res, winner, margin) in zip(boards, fought, strict=True):
                results[board] = Result(winner, margin)
                if battles_out is not None:
                    row: dict[str, Any] = {"a": field.names[a - 1], "b": field.names[b - 1],
                                           "round": answer.round, "board": board, **res}
                    if isinstance(fmt, Knockout):
                        rnd = answer.to_round({board: results[board]})
                        game = next(g for g in rnd.games if g.pairing.board == board)
                        d = fmt.decide(answer.round, game)
                        assert d is not None
                        row["decided"] = {"winner": field.names[d.winner - 1], "by": d.by}
                    if not first:
                        battles_out.write(",\n")
                    first = False
                    battles_out.write(json.dumps(row, ensure_ascii=False))
            rnd = answer.to_round(results)
            history.append(rnd)
            if hill_state is not None:
                challenger = answer.pairings[0].a
                update = fmt.challenge(hill_state, challenger,
                                       {g.b: g.result for g in rnd.games if g.b is not None})
                hill_state = update.state
                pushed.extend((answer.round, p.entry, p.place) for p in update.pushed_off)
    finally:
        fighter.close()
    table = fmt.table(hill_state) if hill_state is not None else fmt.standings(ids, history)
    return FormatRun(history, table, stop, pushed)


def format_standing_json(field: Field, row: Any) -> dict[str, Any]:
    """A format's standings row (``app.formats.StandingRow``) as JSON with the file and unit:
    ``rank``, ``rank_text``, ``file``, ``unit``, ``points``, ``played``, ``wins``, ``draws``,
    ``losses``, ``byes``, ``tiebreaks`` ``{name: value}``, ``detail`` (format extras)."""
    data = row.to_json()
    return {"rank": row.rank, "rank_text": row.rank_text, "file": field.names[row.entry - 1],
            "unit": field.ruleset.label(field.entries[row.entry - 1]),
            **{k: data[k] for k in ("points", "played", "wins", "draws", "losses", "byes",
                                    "tiebreaks", "detail")}}


def format_standings_text(field: Field, run_: FormatRun) -> str:
    """A format's standings as a plain-text table (tiebreak columns as the format names them;
    a hill adds its push-offs)."""
    from app.formats.base import fraction_text

    rows = run_.standings.rows
    cols = list(run_.standings.columns)
    width = max([len(field.names[r.entry - 1]) for r in rows] + [4])
    head = (f"{'rank':>4}  {'file':<{width}}  {'pts':>6}  {'W':>4} {'D':>4} {'L':>4} {'bye':>3}"
            + "".join(f"  {c[:10]:>10}" for c in cols) + "  unit")
    if any("updates" in r.detail for r in rows):
        head += "  (points per update)"
    lines = [head]
    for r in rows:
        tb = "".join(f"  {fraction_text(v):>10}" for _, v in r.tiebreaks)
        lines.append(f"{r.rank_text:>4}  {field.names[r.entry - 1]:<{width}}  "
                     f"{fraction_text(r.points):>6}  {r.wins:>4} {r.draws:>4} {r.losses:>4} "
                     f"{r.byes:>3}{tb}  {field.ruleset.label(field.entries[r.entry - 1])}"
                     + (f"  ({' + '.join('-' if u is None else str(u) for u in r.detail['updates'])})"
                        if "updates" in r.detail else ""))
    for challenge, entry, place in run_.pushed_off:
        lines.append(f"challenge {challenge}: {field.names[entry - 1]} pushed off "
                     f"(place {place})")
    return "\n".join(lines) + "\n"


def round_robin_standings(field: Field, rounds: list[Any], points: Points) -> list[Standing]:
    """The league standings (:func:`app.league.standings.compute`: points, head-to-head,
    Sonneborn-Berger, HP margin) of the games of ``rounds`` (``run_format``'s, 1-based ids):
    the round robin's table, unchanged from before formats."""
    games = [GameResult(g.a - 1, g.b - 1, g.result.winner, g.result.margin, 0)
             for r in rounds for g in r.games if g.b is not None and g.result is not None]
    scores = compute(list(range(len(field.entries))), games, points)
    return [Standing(field.names[s.entry], field.ruleset.label(field.entries[s.entry]), s)
            for s in scores]
