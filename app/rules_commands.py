"""CLI commands of this part (registered by ``app.cli``): ``amaryllis check SHEET``, and the
``--ruleset`` choice shared with ``battle`` and ``tournament``, and the ``KEY=VALUE`` reading of
their ``--option``/``--format-option`` flags (:func:`key_value`).

The commands speak only to the :class:`~app.rules.base.Ruleset` interface: ``--ruleset NAME``
picks one by name or alias; without it the ruleset is guessed from the sheet's notation
(``app.rules.guess_ruleset``), and the default ruleset reads a sheet that no notation claims.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from app.rules.base import Ruleset

RULESET_HELP = "ruleset of the sheets, by name or alias (default: guessed from their notation)"


def key_value(item: str, param_hint: str) -> tuple[str, str]:
    """``KEY=VALUE`` as ``(key, value)``, both stripped. Raises ``click.BadParameter`` (naming
    ``param_hint``, the flag) when there is no ``=`` or the key is empty."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint=param_hint)
    return key.strip(), value.strip()


def ruleset_option(func: Any) -> Any:
    """The ``--ruleset NAME`` option of the offline commands."""
    return click.option("--ruleset", "ruleset_name", metavar="NAME", default=None,
                        help=RULESET_HELP)(func)


def pick_ruleset(name: str | None, texts: Sequence[str]) -> tuple[Ruleset, bool]:
    """The ruleset to read ``texts`` with, and whether it was guessed.

    ``name`` given: that ruleset (``click.BadParameter`` listing the known names when there is
    none). Otherwise the ruleset whose notation most of ``texts`` are written in (ties: the one
    that reads most of them without an error, then the registry order), or the default ruleset
    when none is recognized.
    """
    from app.rules import all_rulesets, ruleset

    if name is not None:
        try:
            return ruleset(name), False
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--ruleset") from exc
    rulesets = [cls() for cls in all_rulesets()]
    votes = [sum(1 for t in texts if rs.recognizes(t)) for rs in rulesets]
    # among the rulesets that recognize as many sheets, the one that reads the most of them
    # without an error (a Hundred sheet that uses one basic sword looks like Margaret too)
    valid = [sum(1 for t in texts if rs.recognizes(t) and rs.parse_sheet(t).ok) if votes[i] else 0
             for i, rs in enumerate(rulesets)]
    best = max(range(len(rulesets)), key=lambda i: (votes[i], valid[i], -i))
    if votes[best] == 0:
        return ruleset(), True
    return rulesets[best], True


def note_guess(ruleset: Ruleset, guessed: bool) -> None:
    """Say on stderr which ruleset was guessed, unless it is the default one."""
    from app.rules import DEFAULT_RULESET

    if guessed and ruleset.name != DEFAULT_RULESET:
        click.echo(f"ruleset: {ruleset.name} (guessed from the notation; --ruleset to choose)",
                   err=True)


def check_orders(text: str, ruleset: Ruleset, lang: str | None = None) -> tuple[bool, str]:
    """Validate an orders text of a ruleset with orders and return ``(ok, report)``: the
    normalized orders (plus any warnings) when valid, else every problem with its line, rule
    and fix."""
    sheet = ruleset.parse_orders(text, lang=lang)
    if not sheet.ok:
        head = ("この命令は受け付けられません。" if sheet.lang == "ja"
                else "These orders are not valid.")
        return False, head + "\n\n" + ruleset.format_problems(sheet.problems, sheet.lang)
    parts = [ruleset.format_orders(sheet.orders, sheet.lang).rstrip("\n")]
    if sheet.warnings:
        parts.append(ruleset.format_problems(sheet.warnings, sheet.lang))
    return True, "\n\n".join(parts)


def orders_ruleset(name: str | None, text: str) -> Ruleset | None:
    """The ruleset with orders that ``text`` is an orders text of (``Ruleset.is_orders``): the
    named one, or without a name the first registered that recognizes it; ``None`` when the text
    is not an orders text."""
    from app.rules import all_rulesets, ruleset

    if name is not None:
        try:
            rs = ruleset(name)
        except ValueError:
            return None
        return rs if rs.takes_orders and rs.is_orders(text) else None
    for cls in all_rulesets():
        if cls.takes_orders and ruleset(cls.name).is_orders(text):
            return ruleset(cls.name)
    return None


def check_sheet(text: str, lang: str | None = None,
                ruleset: Ruleset | None = None) -> tuple[bool, str]:
    """Validate a sheet and return ``(ok, report)``.

    The report is the normalized sheet and its cost breakdown (plus any warnings) when the sheet
    is valid, else every problem with its line, rule and fix. ``lang`` overrides the sheet's
    language; ``ruleset`` defaults to the one guessed from the notation.
    """
    rs = ruleset if ruleset is not None else pick_ruleset(None, [text])[0]
    sheet = rs.parse_sheet(text, lang=lang)
    out_lang = sheet.lang
    if not sheet.ok:
        head = ("このシートは受け付けられません。" if out_lang == "ja"
                else "This sheet is not valid.")
        return False, head + "\n\n" + rs.format_problems(sheet.problems, out_lang)
    parts = [rs.format_sheet(sheet.entry, out_lang), rs.format_costs(sheet.entry, out_lang)]
    if sheet.warnings:
        parts.append(rs.format_problems(sheet.warnings, out_lang))
    return True, "\n\n".join(parts)


@click.command("check")
@click.argument("sheet", type=click.Path(exists=True, dir_okay=False, allow_dash=True,
                                         path_type=Path))
@click.option("--lang", type=click.Choice(["ja", "en"]), default=None,
              help="output language (default: the sheet's)")
@ruleset_option
def check_command(sheet: Path, lang: str | None, ruleset_name: str | None) -> None:
    """Validate SHEET: print the normalized sheet and its costs (exit 0), or every error (exit 1).

    The file may be UTF-8, Shift_JIS/CP932, EUC-JP or ISO-2022-JP; "-" reads standard input. An
    orders file of a ruleset with orders (its HAND/ORDERS lines) is checked as orders.
    """
    from app.sheetfile import read_sheet_source

    try:
        text = read_sheet_source(sheet)
    except (OSError, ValueError) as exc:
        click.echo(f"{sheet}: {exc}", err=True)
        sys.exit(1)
    ors = orders_ruleset(ruleset_name, text)
    if ors is not None:
        note_guess(ors, ruleset_name is None)
        ok, report = check_orders(text, ors, lang)
        click.echo(report)
        sys.exit(0 if ok else 1)
    rs, guessed = pick_ruleset(ruleset_name, [text])
    note_guess(rs, guessed)
    ok, report = check_sheet(text, lang, rs)
    click.echo(report)
    sys.exit(0 if ok else 1)


def register(group: click.Group) -> None:
    """Add this part's commands to ``group``."""
    group.add_command(check_command)
