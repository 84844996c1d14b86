"""CLI: ``amaryllis battle A B`` and ``amaryllis tournament DIR`` (registered by ``app.cli``).

Both take ``--ruleset NAME`` and otherwise guess the ruleset from the sheets' notation
(``app.cli.rules.pick_ruleset``); they speak only to the ``Ruleset`` interface.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.cli.rules import key_value, note_guess, ruleset_from_flags, ruleset_option

if TYPE_CHECKING:
    from app.rules.base import Ruleset, Sheet


def _read(path: Path) -> tuple[str | None, str | None]:
    """The text of one sheet file, or ``(None, why not)``."""
    from app.cli.sheetfile import read_sheet_file

    try:
        return read_sheet_file(path), None
    except (OSError, ValueError) as exc:
        return None, str(exc)


def _load_orders(rs: Ruleset, path: Path | None) -> tuple[Any | None, str | None]:
    """The orders of an offline battle from an orders file (``Ruleset.orders_for(…, None)``):
    ``(orders, None)``, ``(None, None)`` without a file, or ``(None, errors as text)``."""
    if path is None:
        return None, None
    text, error = _read(path)
    if text is None:
        return None, error
    sheet = rs.parse_orders(text)
    if not sheet.ok:
        return None, rs.format_problems(sheet.errors, sheet.lang)
    try:
        return rs.orders_for(sheet.orders, None), None
    except ValueError as exc:
        return None, str(exc)


def _load(rs: Ruleset, text: str | None, error: str | None) -> tuple[Sheet | None, str | None]:
    """Read and validate one sheet: ``(sheet, None)``, or ``(None, errors as text)``."""
    if text is None:
        return None, error
    sheet = rs.read_sheet(text)  # the reader mail uses (headers, greeting, BOM)
    if not sheet.ok:
        return None, rs.format_problems(sheet.errors, sheet.lang)
    return sheet, None


@click.command("battle")
@click.argument("sheet_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("sheet_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print the result and events as JSON")
@click.option(
    "--lang",
    type=click.Choice(["ja", "en"]),
    default=None,
    help="report language (default: the first sheet's)",
)
@click.option("--html", "as_html", is_flag=True, help="print the HTML report")
@click.option(
    "--orders-a",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="side A's orders file (rulesets with orders)",
)
@click.option(
    "--orders-b",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="side B's orders file (rulesets with orders)",
)
@click.option(
    "--lead",
    type=click.Choice(["A", "B"]),
    default=None,
    help="the side the ruleset's draw favours (default A; rulesets with orders)",
)
@ruleset_option
def battle_command(
    sheet_a: Path,
    sheet_b: Path,
    as_json: bool,
    lang: str | None,
    as_html: bool,
    orders_a: Path | None,
    orders_b: Path | None,
    lead: str | None,
    ruleset_name: str | None,
    option_pairs: tuple[str, ...],
    options_file: str | None,
) -> None:
    """Fight SHEET_A (side A) against SHEET_B and print the battle report.

    Exit 1 when a sheet or an orders file is invalid, with the errors of both sides (on stderr,
    or as ``{"errors": {"A": ..., "B": ...}}`` with ``--json``)."""
    from app.reports.battle import render_report
    from app.rules.base import BattleInputs

    if as_json and as_html:
        raise click.UsageError("--json and --html exclude each other")
    (text_a, read_a), (text_b, read_b) = _read(sheet_a), _read(sheet_b)
    rs, guessed = ruleset_from_flags(
        ruleset_name, [t for t in (text_a, text_b) if t is not None], option_pairs, options_file
    )
    note_guess(rs, guessed)
    if (orders_a or orders_b or lead) and not rs.takes_orders:
        raise click.UsageError(f"ruleset {rs.name} takes no orders (--orders-a/-b, --lead)")
    (a, errors_a), (b, errors_b) = _load(rs, text_a, read_a), _load(rs, text_b, read_b)
    (oa, errors_oa), (ob, errors_ob) = _load_orders(rs, orders_a), _load_orders(rs, orders_b)
    errors_a = "\n".join(x for x in (errors_a, errors_oa) if x) or None
    errors_b = "\n".join(x for x in (errors_b, errors_ob) if x) or None
    if a is None or b is None or errors_a or errors_b:
        errors = {side: text for side, text in (("A", errors_a), ("B", errors_b)) if text}
        if as_json:
            click.echo(json.dumps({"errors": errors}, ensure_ascii=False, indent=1))
        else:
            for side, path in (("A", sheet_a), ("B", sheet_b)):
                if side in errors:
                    click.echo(f"{path}:\n{errors[side]}", err=True)
        sys.exit(1)
    if rs.takes_orders:
        result = rs.fight(a.entry, b.entry, BattleInputs((oa, ob), 1 if lead == "B" else 0))
    else:
        result = rs.battle(a.entry, b.entry)
    if as_json:
        click.echo(json.dumps(rs.public_json(result), ensure_ascii=False, indent=1))
        return
    out_lang = lang or a.lang
    report = rs.report_for(a.entry, b.entry, result, lang=out_lang, side=0)
    if rs.takes_orders:  # offline, whoever runs it holds both orders: both private blocks
        other = rs.report_for(a.entry, b.entry, result, lang=out_lang, side=1)
        report = replace(report, private=report.private + other.private)
    click.echo(render_report(report, fmt="html" if as_html else "text"), nl=False)


def format_options(
    fmt_name: str,
    *,
    points: str | None,
    rounds: int | None,
    size: int | None,
    updates: int | None,
    double: bool,
    double_elimination: bool,
    reseed_every_round: bool,
    seed: str | None,
    extra: tuple[str, ...],
) -> dict[str, Any]:
    """The ``app.formats`` options given on the command line for format ``fmt_name`` (the
    dedicated flags plus ``--format-option KEY=VALUE``). Raises ``click.UsageError`` for a flag
    the format does not take (``--rounds`` with a knockout) or a malformed ``KEY=VALUE``."""
    from app.formats import find_format

    try:
        cls = find_format(fmt_name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--format") from exc
    known = {o.name for o in cls.option_specs} | {"seed"}
    opts: dict[str, Any] = {}
    flags: list[tuple[str, str, Any]] = [
        ("--points", "points", points),
        ("--rounds", "rounds", rounds),
        ("--size", "size", size),
        ("--updates", "updates", updates),
        ("--double", "double", double or None),
        ("--double-elimination", "double_elimination", double_elimination or None),
        ("--reseed-every-round", "reseed_every_round", reseed_every_round or None),
        ("--seed", "seed", seed),
    ]
    for flag, key, value in flags:
        if value is None:
            continue
        if key not in known:
            raise click.UsageError(
                f"{flag} is not an option of format {cls.name} "
                f"(its options: {', '.join(sorted(known))})"
            )
        opts[key] = value
    opts.update(key_value(item, "--format-option") for item in extra)
    return opts


@click.command("tournament")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="processes to spread the battles over",
)
@click.option("--json", "as_json", is_flag=True, help="print standings and battles as JSON")
@click.option(
    "--format",
    "fmt_name",
    default=None,
    metavar="NAME",
    help="how the files are paired: round-robin (default), swiss, knockout, hill, "
    "accumulating, … (docs/formats.md)",
)
@click.option("--points", default=None, help="points per win/draw/loss (default 3/1/0)")
@click.option("--rounds", type=click.IntRange(min=1), default=None, help="swiss: rounds")
@click.option("--size", type=click.IntRange(min=2), default=None, help="hill: its size")
@click.option("--updates", type=click.IntRange(min=1), default=None, help="accumulating: updates")
@click.option("--double", is_flag=True, help="round-robin: double round robin")
@click.option("--double-elimination", is_flag=True, help="knockout: double elimination")
@click.option("--reseed-every-round", is_flag=True, help="knockout: re-draw every round")
@click.option(
    "--seed",
    default=None,
    help="the published seed of the draws (knockout; the lead draws of rulesets with orders)",
)
@click.option(
    "--format-option",
    "format_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="any other option of the format (e.g. tiebreaks=buchholz,margin)",
)
@ruleset_option
def tournament_command(
    folder: Path,
    jobs: int,
    as_json: bool,
    fmt_name: str | None,
    points: str | None,
    rounds: int | None,
    size: int | None,
    updates: int | None,
    double: bool,
    double_elimination: bool,
    reseed_every_round: bool,
    seed: str | None,
    format_option: tuple[str, ...],
    ruleset_name: str | None,
    option_pairs: tuple[str, ...],
    options_file: str | None,
) -> None:
    """Play every sheet file in FOLDER under a format (default: a round robin, each pair once);
    prints the standings.

    The pairings come from the same ``app.formats`` code as leagues: the format is asked for the
    next round after each round (entry ids are the files' 1-based positions in name order; a
    hill takes the files as challengers one by one in that order). Invalid sheets are listed
    with their errors and left out. Without --ruleset, the ruleset is the one whose notation
    most of the files are written in.
    """
    from app.cli.tournament import (
        STOPS,
        count,
        format_standing_json,
        format_standings_text,
        load_field,
        read_folder,
        run_format,
    )
    from app.formats import DEFAULT_FORMAT, find_format

    fmt_name = fmt_name or DEFAULT_FORMAT
    opts = format_options(
        fmt_name,
        points=points,
        rounds=rounds,
        size=size,
        updates=updates,
        double=double,
        double_elimination=double_elimination,
        reseed_every_round=reseed_every_round,
        seed=seed,
        extra=format_option,
    )
    try:
        fmt = find_format(fmt_name)(opts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    files = read_folder(folder)
    rs, guessed = ruleset_from_flags(
        ruleset_name, [text for _, text, _ in files if text is not None], option_pairs, options_file
    )
    note_guess(rs, guessed)
    field = load_field(files, rs, seed=seed or "")
    for name, errors in field.invalid:
        click.echo(f"left out {name}:\n{errors}", err=True)
    out = sys.stdout
    if as_json:
        out.write('{"battles": [\n')
    played = run_format(field, fmt, jobs=jobs, battles_out=out if as_json else None)
    battles = sum(1 for r in played.rounds for g in r.games if g.b is not None)
    if as_json:
        out.write("\n],\n")
        invalid: list[dict[str, Any]] = [{"file": n, "errors": e} for n, e in field.invalid]
        out.write('"invalid": ' + json.dumps(invalid, ensure_ascii=False) + ",\n")
        about = {
            "name": fmt.name,
            "options": fmt.options,
            "describe": fmt.describe("en"),
            "rounds": len(played.rounds),
            "stop": played.stop,
            "columns": [c.key for c in fmt.columns()],
        }
        out.write('"format": ' + json.dumps(about, ensure_ascii=False) + ",\n")
        byes = [
            {"round": r.number, "file": field.names[g.a - 1]}
            for r in played.rounds
            for g in r.games
            if g.b is None
        ]
        out.write('"byes": ' + json.dumps(byes, ensure_ascii=False) + ",\n")
        if fmt.fights_on_entry:
            offs = [
                {"challenge": c, "file": field.names[e - 1], "place": p}
                for c, e, p in played.pushed_off
            ]
            out.write('"pushed_off": ' + json.dumps(offs, ensure_ascii=False) + ",\n")
        rows = [format_standing_json(field, r) for r in played.standings.rows]
        out.write('"standings": ' + json.dumps(rows, ensure_ascii=False, indent=1) + "}\n")
        return
    for line in fmt.describe("en"):
        click.echo(f"# {line}")
    stopped = STOPS.get(played.stop) or played.stop.replace("-", " ") or "nothing to play"
    click.echo(
        f"{count(len(field.entries), 'unit')}, {count(len(played.rounds), 'round')}, "
        f"{count(battles, 'battle')}; stopped: {stopped}"
    )
    click.echo(format_standings_text(field, fmt, played), nl=False)


def register(group: click.Group) -> None:
    """Add ``battle`` and ``tournament`` to ``group``."""
    group.add_command(battle_command)
    group.add_command(tournament_command)
