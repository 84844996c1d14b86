"""Offline tournament over a folder of sheet files (``amaryllis tournament DIR``), for any
ruleset (the ``Ruleset`` interface only) and any format (the ``Format`` interface of
``app.formats``, the same code as leagues).

:func:`run_format` asks the format for the next round after each round, fights its boards
without the event log, spread over ``jobs`` processes, and streams each battle out in board
order, so the output does not depend on ``jobs``. Each battle is the ruleset's ``battle --json``
object (``Ruleset.public_json`` without events) plus the two files, the round and the board.
The standings are the format's own (``Format.standings``: a round robin's points, head-to-head,
Sonneborn-Berger and HP margin = the ruleset's ``Outcome.margin``; a Swiss Buchholz; …), exactly
as a league of that format ranks them. Nothing here names a format: what differs is read from
the format's capabilities (``fights_on_entry``, ``decides_draws``).

A ruleset with orders (``takes_orders``) reads ``X.orders.txt`` beside ``X.txt`` and fights each
pairing with both sides' orders for that opponent and the pairing's lead draw (``Field.inputs``);
its battles put the earlier file on side A, whatever side the format paired it on
(``rules/margaret-magicalized.md`` G61), the result turned back for the format.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from app.cli.sheetfile import read_sheet_file
from app.rules.base import BattleInputs, Ruleset

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
        return BattleInputs(
            (
                rs.orders_for(self.orders[i], self.unit_names[j]),
                rs.orders_for(self.orders[j], self.unit_names[i]),
            ),
            rs.lead_draw(self.seed, stem[0], stem[1]),
        )


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


def load_field(
    source: Path | list[tuple[str, str | None, str | None]],
    ruleset: Ruleset | None = None,
    *,
    seed: str = "",
) -> Field:
    """Read and validate every sheet of a folder (a path, or :func:`read_folder`'s list) with
    ``ruleset`` (default: the one most files are written in, as ``check`` guesses). For a
    ruleset with orders, ``X.orders.txt`` is ``X.txt``'s orders file (an invalid one leaves
    the entry out) and ``seed`` the published seed of the lead draws.

    Raises ``NotADirectoryError`` when a path is not a folder.
    """
    files = read_folder(source) if isinstance(source, Path) else source
    if ruleset is None:
        from app.cli.rules import pick_ruleset

        ruleset = pick_ruleset(None, [t for _, t, _ in files if t is not None])[0]
    orders_files: dict[str, tuple[str | None, str | None]] = {}
    if ruleset.takes_orders:  # X.orders.txt beside X.txt (§5 of the Magicalized rules)
        orders_files = {
            n[: -len(ORDERS_SUFFIX)]: (t, e) for n, t, e in files if n.endswith(ORDERS_SUFFIX)
        }
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
        sheet = ruleset.read_sheet(text)  # the reader mail uses (headers, greeting, BOM)
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
                invalid.append(
                    (stem + ORDERS_SUFFIX, ruleset.format_problems(osheet.errors, osheet.lang))
                )
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

_RULESET: Ruleset | None = None
_ENTRIES: list[Any] = []
_JSON = False
_FIELD: Field | None = None


def _init(ruleset: Ruleset, entries: list[Any], as_json: bool, field: Field | None = None) -> None:
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


# -- the driver: the same ``app.formats`` code as leagues -------------------------------------


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

    def __init__(
        self,
        ruleset: Ruleset,
        entries: list[Any],
        jobs: int,
        as_json: bool,
        field: Field | None = None,
    ) -> None:
        self.pool: Any = None
        _init(ruleset, entries, as_json, field)
        if jobs > 1 and len(entries) >= 3:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            ctx = multiprocessing.get_context(method)
            self.pool = ctx.Pool(
                jobs, initializer=_init, initargs=(ruleset, entries, as_json, field)
            )
            self.jobs = jobs

    def fight(
        self, tasks: list[tuple[int, int]]
    ) -> Iterator[tuple[dict[str, Any], int | None, int]]:
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
    or ``waiting-for-entries``), and, in a format that fights entries on arrival, who was
    pushed off (``(arrival, entry, place)``)."""

    rounds: list[Any]
    standings: Any
    stop: str
    pushed_off: list[tuple[int, int, int]]


def run_format(
    field: Field,
    fmt: Any,
    *,
    jobs: int = 1,
    battles_out: IO[str] | None = None,
    max_rounds: int = 100_000,
) -> FormatRun:
    """Play ``field`` under the format instance ``fmt`` (``app.formats.Format``): ask
    ``fmt.next_round`` for the pairings after every round, as a league does, fight them, and
    stop at ``Finished`` or ``NotYet("waiting-for-entries")`` (the hill: every file has
    challenged, in file-name order).

    Entry ids are 1-based positions in the file-name order (so a knockout draw is re-checked
    with ``sha256("<seed>/knockout-draw/<round>/<id>")``). Every battle is written to
    ``battles_out`` as it is fought: ``{"a", "b", "round", "board", **result_json}`` and, in a
    knockout, ``"decided": {"winner": file, "by": "win"|"margin"|"lot"}`` (the stated rule of a
    drawn battle), separated by ``,\\n``. For a ruleset with orders, ``a`` is the earlier file
    and the result carries its ``lead``; a whole schedule known at close (a round robin) is
    written at the end, in the order of the pairs of files (G61). Raises ``RuntimeError`` past ``max_rounds`` (a format
    that never finishes).
    """
    from app.formats import Finished, NotYet, Result, RoundPairings

    ids = list(range(1, len(field.entries) + 1))
    history: list[Any] = []
    pushed: list[tuple[int, int, int]] = []
    state = fmt.load_state(None) if fmt.keeps_state else None
    orders = field.ruleset.takes_orders
    # a ruleset with orders lists a whole schedule's battles in the order of the pairs of
    # files, (1, 2), (1, 3), …, (2, 3), … (G61), not in the order the rounds play them
    held: list[tuple[tuple[int, int], dict[str, Any]]] | None = (
        [] if orders and fmt.pairs_at_close and battles_out is not None else None
    )
    fighter = _Fighter(field.ruleset, field.entries, jobs, battles_out is not None, field)
    first = True
    pending: list[str] = []  # encoded battles not written yet (written a round at a time)
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
            # a ruleset with orders fights the earlier file on side A (G61): the pairing's
            # sides swapped for the battle, its result turned back for the format
            swap = {board: orders and a > b for board, a, b in boards}
            results: dict[int, Result] = {}
            fought = fighter.fight(
                [(b - 1, a - 1) if swap[board] else (a - 1, b - 1) for board, a, b in boards]
            )
            for (board, a, b), (res, winner, margin) in zip(boards, fought, strict=True):
                result = Result(winner, margin)
                results[board] = result.flipped() if swap[board] else result
                if battles_out is not None:
                    first_a, first_b = (b, a) if swap[board] else (a, b)
                    row: dict[str, Any] = {
                        "a": field.names[first_a - 1],
                        "b": field.names[first_b - 1],
                        "round": answer.round,
                        "board": board,
                        **res,
                    }
                    if fmt.decides_draws:
                        rnd = answer.to_round({board: results[board]})
                        game = next(g for g in rnd.games if g.pairing.board == board)
                        d = fmt.decide(answer.round, game)
                        assert d is not None
                        row["decided"] = {"winner": field.names[d.winner - 1], "by": d.by}
                    if held is not None:
                        held.append(((first_a, first_b), row))
                        continue
                    pending.append(_encode(row))
                    if len(pending) >= _WRITE_EVERY:
                        first = _write(battles_out, pending, first)
            if battles_out is not None:
                first = _write(battles_out, pending, first)
            rnd = answer.to_round(results)
            history.append(rnd)
            if fmt.fights_on_entry:  # an arrival: the format updates its kept state
                update = fmt.apply_entry(
                    state,
                    answer.pairings[0].a,
                    {g.b: g.result for g in rnd.games if g.b is not None},
                )
                state = update.state
                pushed.extend((answer.round, p.entry, p.place) for p in update.pushed_off)
    finally:
        fighter.close()
    if held is not None and battles_out is not None:  # G61's order: the pairs of the files
        battles_out.write(
            ",\n".join(_encode(row) for _pair, row in sorted(held, key=lambda x: x[0]))
        )
    return FormatRun(history, fmt.standings(ids, history, state=state), stop, pushed)


#: one encoder for every battle (``json.dumps`` with options builds a new one per call)
_encode = json.JSONEncoder(ensure_ascii=False).encode

#: battles encoded before they are written (besides at the end of each round): one write per
#: thousand battles, not two per battle (each a system call when stdout is unbuffered, as under
#: ``PYTHONUNBUFFERED``), and at most about half a megabyte held
_WRITE_EVERY = 1000


def _write(out: IO[str], pending: list[str], first: bool) -> bool:
    """Write the ``pending`` battles to ``out`` (``,\n`` between battles; ``first``: none has
    been written yet) and empty the list; returns the new ``first``."""
    if not pending:
        return first
    out.write(("" if first else ",\n") + ",\n".join(pending))
    pending.clear()
    return False


#: why a tournament stopped, in words (``FormatRun.stop``: ``Finished``/``NotYet`` codes)
STOPS = {
    "all-rounds-played": "every round played",
    "champion": "a champion is decided",
    "too-few-entries": "fewer than two valid sheets",
    "no-legal-pairing": "no pairing without a repeated pair is left",
    "waiting-for-entries": "every file has arrived",
}


def format_standing_json(field: Field, row: Any) -> dict[str, Any]:
    """A format's standings row (``app.formats.StandingRow``) as JSON with the file and unit:
    ``rank``, ``rank_text``, ``file``, ``unit``, ``points``, ``played``, ``wins``, ``draws``,
    ``losses``, ``byes``, ``tiebreaks`` ``{name: value}``, ``detail`` (format extras)."""
    data = row.to_json()
    return {
        "rank": row.rank,
        "rank_text": row.rank_text,
        "file": field.names[row.entry - 1],
        "unit": field.ruleset.label(field.entries[row.entry - 1]),
        **{
            k: data[k]
            for k in ("points", "played", "wins", "draws", "losses", "byes", "tiebreaks", "detail")
        },
    }


def count(n: int, word: str) -> str:
    """``1 round``, ``3 rounds``: ``n`` and an English noun, plural unless ``n`` is 1 (the nouns
    this command prints take an ``s``)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def format_standings_text(field: Field, fmt: Any, run_: FormatRun) -> str:
    """The format's standings as a plain-text table: rank, file, the primary score, wins,
    draws, losses, byes, then every column of the format (``Format.columns``: head-to-head and
    Sonneborn-Berger, Buchholz, a knockout's status, points per update, …), each headed by its
    full title (``Column.title``, never a cut one) and as wide as its header and values; then
    who was pushed off, if anyone."""
    from app.formats.base import fraction_text

    rows = run_.standings.rows
    cols = fmt.columns()
    names = [field.names[r.entry - 1] for r in rows]
    head = [
        "rank",
        "file",
        fmt.primary_column().title("en"),
        "wins",
        "draws",
        "losses",
        "byes",
        *(c.title("en") for c in cols),
        "unit",
    ]
    body = []
    for r, name in zip(rows, names, strict=True):
        values = [dict(r.tiebreaks).get(c.key, r.detail.get(c.key)) for c in cols]
        body.append(
            [
                r.rank_text,
                name,
                fraction_text(r.points),
                str(r.wins),
                str(r.draws),
                str(r.losses),
                str(r.byes),
                *(c.text(v, "en") for c, v in zip(cols, values, strict=True)),
                field.ruleset.label(field.entries[r.entry - 1]),
            ]
        )
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    left = {1, len(head) - 1}  # the file and the unit read left-aligned

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    lines = [line(head), *(line(b) for b in body)]
    for arrival, entry, place in run_.pushed_off:
        lines.append(f"arrival {arrival}: {field.names[entry - 1]} pushed off (place {place})")
    return "\n".join(lines) + "\n"
