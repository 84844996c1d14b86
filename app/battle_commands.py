"""CLI: ``amaryllis battle A B`` and ``amaryllis tournament DIR`` (registered by ``app.cli``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


def _load(path: Path):  # type: ignore[no-untyped-def]
    """Read and validate one sheet file: ``(unit, None)``, or ``(None, errors as text)``."""
    from app.rules.amaryllis import format_problems, parse_sheet
    from app.sheetfile import read_sheet_file

    try:
        text = read_sheet_file(path)
    except (OSError, ValueError) as exc:
        return None, str(exc)
    sheet = parse_sheet(text)
    if sheet.unit is None:
        return None, format_problems(sheet.errors, sheet.lang)
    return sheet.unit, None


@click.command("battle")
@click.argument("sheet_a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("sheet_b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print the result and events as JSON")
@click.option("--lang", type=click.Choice(["ja", "en"]), default=None,
              help="report language (default: the first sheet's)")
@click.option("--html", "as_html", is_flag=True, help="print the HTML report")
def battle_command(sheet_a: Path, sheet_b: Path, as_json: bool, lang: str | None,
                   as_html: bool) -> None:
    """Fight SHEET_A (side A) against SHEET_B and print the battle report.

    Exit 1 when a sheet is invalid, with the errors of both sheets (on stderr, or as
    ``{"errors": {"A": ..., "B": ...}}`` with ``--json``)."""
    from app.reports.battle import render_battle
    from app.rules.amaryllis import battle, result_json

    if as_json and as_html:
        raise click.UsageError("--json and --html exclude each other")
    (a, errors_a), (b, errors_b) = _load(sheet_a), _load(sheet_b)
    if a is None or b is None:
        errors = {side: text for side, text in (("A", errors_a), ("B", errors_b)) if text}
        if as_json:
            click.echo(json.dumps({"errors": errors}, ensure_ascii=False, indent=1))
        else:
            for side, path in (("A", sheet_a), ("B", sheet_b)):
                if side in errors:
                    click.echo(f"{path}:\n{errors[side]}", err=True)
        sys.exit(1)
    result = battle(a, b)
    if as_json:
        click.echo(json.dumps(result_json(result), ensure_ascii=False, indent=1))
        return
    click.echo(render_battle(a, b, result, lang=lang or a.lang, fmt="html" if as_html else "text"),
               nl=False)


@click.command("tournament")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="processes to spread the battles over")
@click.option("--json", "as_json", is_flag=True, help="print standings and battles as JSON")
@click.option("--points", default="3/1/0", show_default=True, help="points per win/draw/loss")
def tournament_command(folder: Path, jobs: int, as_json: bool, points: str) -> None:
    """Round-robin of every sheet file in FOLDER (each pair once); prints the standings.

    Invalid sheets are listed with their errors and left out.
    """
    from app.league.standings import Points
    from app.tournament import load_field, run, standing_json, standings_text

    try:
        pts = Points.parse(points)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--points") from exc
    field = load_field(folder)
    for name, errors in field.invalid:
        click.echo(f"left out {name}:\n{errors}", err=True)
    out = sys.stdout
    if as_json:
        out.write('{"battles": [\n')
        standings = run(field, jobs=jobs, points=pts, battles_out=out)
        out.write("\n],\n")
        out.write('"invalid": ' + json.dumps([{"file": n, "errors": e} for n, e in field.invalid],
                                             ensure_ascii=False) + ",\n")
        out.write('"standings": ' + json.dumps([standing_json(s) for s in standings],
                                               ensure_ascii=False, indent=1) + "}\n")
        return
    standings = run(field, jobs=jobs, points=pts)
    click.echo(f"{len(field.units)} units, {len(field.units) * (len(field.units) - 1) // 2} battles")
    click.echo(standings_text(standings), nl=False)


def register(group: click.Group) -> None:
    """Add ``battle`` and ``tournament`` to ``group``."""
    group.add_command(battle_command)
    group.add_command(tournament_command)
