"""CLI commands of this part (registered by ``app.cli``): ``amaryllis check SHEET``."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def check_sheet(text: str, lang: str | None = None) -> tuple[bool, str]:
    """Validate a sheet and return ``(ok, report)``.

    The report is the normalized sheet and its cost breakdown (plus any warnings) when the sheet
    is valid, else every problem (rules §1.3). ``lang`` overrides the sheet's language.
    """
    from app.rules.amaryllis import format_costs, format_problems, format_sheet, parse_sheet

    result = parse_sheet(text, lang=lang)
    out_lang = result.lang
    if result.unit is None:
        head = ("このシートは受け付けられません。" if out_lang == "ja"
                else "This sheet is not valid.")
        return False, head + "\n\n" + format_problems(result.problems, out_lang)
    parts = [format_sheet(result.unit, out_lang), format_costs(result.unit, out_lang)]
    if result.warnings:
        parts.append(format_problems(result.warnings, out_lang))
    return True, "\n\n".join(parts)


@click.command("check")
@click.argument("sheet", type=click.Path(exists=True, dir_okay=False, allow_dash=True,
                                         path_type=Path))
@click.option("--lang", type=click.Choice(["ja", "en"]), default=None,
              help="output language (default: the sheet's)")
def check_command(sheet: Path, lang: str | None) -> None:
    """Validate SHEET: print the normalized sheet and its costs (exit 0), or every error (exit 1).

    The file may be UTF-8, Shift_JIS/CP932, EUC-JP or ISO-2022-JP; "-" reads standard input.
    """
    from app.sheetfile import MAX_BYTES, decode_sheet_bytes, read_sheet_file

    try:
        if str(sheet) == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise ValueError(f"the input is too large (more than {MAX_BYTES:,} bytes)")
            text = decode_sheet_bytes(data)
        else:
            text = read_sheet_file(sheet)
    except (OSError, ValueError) as exc:
        click.echo(f"{sheet}: {exc}", err=True)
        sys.exit(1)
    ok, report = check_sheet(text, lang)
    click.echo(report)
    sys.exit(0 if ok else 1)


def register(group: click.Group) -> None:
    """Add this part's commands to ``group``."""
    group.add_command(check_command)
