"""CLI: ``amaryllis battle A B`` and ``amaryllis tournament DIR`` (registered by ``app.cli``).

Both take ``--ruleset NAME`` and otherwise guess the ruleset from the sheets' notation
(``app.rules_commands.pick_ruleset``); they speak only to the ``Ruleset`` interface.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.rules_commands import note_guess, pick_ruleset, ruleset_option

if TYPE_CHECKING:
    from app.rules.base import Ruleset, Sheet


def _read(path: Path) -> tuple[str | None, str | None]:
    """The text of one sheet file, or ``(None, why not)``."""
    from app.sheetfile import read_sheet_file

    try:
        return read_sheet_file(path), None
    except (OSError, ValueError) as exc:
        return None, str(exc)


def _load(rs: Ruleset, text: str | None, error: str | None) -> tuple[Sheet | None, str | None]:
    """Read and validate one sheet: ``(sheet, None)``, or ``(None, errors as text)``."""
    if text is None:
        return None, error
    sheet = rs.parse_sheet(text)
    if not sheet.ok:
        return None, rs.format_problems(sheet.errors, sheet.lang)
    return sheet, None


@click.command("battle")
@click.argument("sheet_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("sheet_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print the result and events as JSON")
@click.option("--lang", type=click.Choice(["ja", "en"]), default=None,
              help="report language (default: the first sheet's)")
@click.option("--html", "as_html", is_flag=True, help="print the HTML report")
@ruleset_option
def battle_command(sheet_a: Path, sheet_b: Path, as_json: bool, lang: str | None,
                   as_html: bool, ruleset_name: str | None) -> None:
    """Fight SHEET_A (side A) against SHEET_B and print the battle report.

    Exit 1 when a sheet is invalid, with the errors of both sheets (on stderr, or as
    ``{"errors": {"A": ..., "B": ...}}`` with ``--json``)."""
    from app.reports.battle import render_battle

    if as_json and as_html:
        raise click.UsageError("--json and --html exclude each other")
    (text_a, read_a), (text_b, read_b) = _read(sheet_a), _read(sheet_b)
    rs, guessed = pick_ruleset(ruleset_name, [t for t in (text_a, text_b) if t is not None])
    note_guess(rs, guessed)
    (a, errors_a), (b, errors_b) = _load(rs, text_a, read_a), _load(rs, text_b, read_b)
    if a is None or b is None:
        errors = {side: text for side, text in (("A", errors_a), ("B", errors_b)) if text}
        if as_json:
            click.echo(json.dumps({"errors": errors}, ensure_ascii=False, indent=1))
        else:
            for side, path in (("A", sheet_a), ("B", sheet_b)):
                if side in errors:
                    click.echo(f"{path}:\n{errors[side]}", err=True)
        sys.exit(1)
    result = rs.battle(a.entry, b.entry)
    if as_json:
        click.echo(json.dumps(rs.result_json(result), ensure_ascii=False, indent=1))
        return
    click.echo(render_battle(a.entry, b.entry, result, lang=lang or a.lang,
                             fmt="html" if as_html else "text", ruleset=rs), nl=False)


@click.command("tournament")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="processes to spread the battles over")
@click.option("--json", "as_json", is_flag=True, help="print standings and battles as JSON")
@click.option("--points", default="3/1/0", show_default=True, help="points per win/draw/loss")
@ruleset_option
def tournament_command(folder: Path, jobs: int, as_json: bool, points: str,
                       ruleset_name: str | None) -> None:
    """Round-robin of every sheet file in FOLDER (each pair once); prints the standings.

    Invalid sheets are listed with their errors and left out. Without --ruleset, the ruleset is
    the one whose notation most of the files are written in.
    """
    from app.league.standings import Points
    from app.tournament import load_field, read_folder, run, standing_json, standings_text

    try:
        pts = Points.parse(points)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--points") from exc
    files = read_folder(folder)
    rs, guessed = pick_ruleset(ruleset_name, [text for _, text, _ in files if text is not None])
    note_guess(rs, guessed)
    field = load_field(files, rs)
    for name, errors in field.invalid:
        click.echo(f"left out {name}:\n{errors}", err=True)
    out = sys.stdout
    if as_json:
        out.write('{"battles": [\n')
        standings = run(field, jobs=jobs, points=pts, battles_out=out)
        out.write("\n],\n")
        invalid: list[dict[str, Any]] = [{"file": n, "errors": e} for n, e in field.invalid]
        out.write('"invalid": ' + json.dumps(invalid, ensure_ascii=False) + ",\n")
        out.write('"standings": ' + json.dumps([standing_json(s) for s in standings],
                                               ensure_ascii=False, indent=1) + "}\n")
        return
    standings = run(field, jobs=jobs, points=pts)
    n = len(field.entries)
    click.echo(f"{n} units, {n * (n - 1) // 2} battles")
    click.echo(standings_text(standings), nl=False)


def register(group: click.Group) -> None:
    """Add ``battle`` and ``tournament`` to ``group``."""
    group.add_command(battle_command)
    group.add_command(tournament_command)
