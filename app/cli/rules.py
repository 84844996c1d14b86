"""CLI commands of this part (registered by ``app.cli``): ``amaryllis check SHEET``, and the
``--ruleset``/``--option``/``--options`` choice shared with ``battle``, ``tournament`` and
``league create``, and the ``KEY=VALUE`` reading of their ``--option``/``--format-option`` flags
(:func:`key_value`).

The commands speak only to the :class:`~app.rules.base.Ruleset` interface: ``--ruleset NAME``
picks one by name or alias; without it the ruleset is guessed from the sheet's notation
(``app.rules.guess_ruleset``), and the default ruleset reads a sheet that no notation claims.
``--option KEY=VALUE`` / ``--options FILE.toml`` give the ruleset the same league options a
league takes (a Margaret Hundred league's budget, pool, MP table, …), so an organizer can check
a sheet against a league's settings offline.
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


def _option_value(text: str) -> Any:
    """A ``--option`` value: a TOML value when it reads as one (``12``, ``true``,
    ``["斬", "衝"]``, ``{"精" = 3}``), else the text itself (``basic``, ``between-rounds``)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def read_options(pairs: tuple[str, ...], path: str | None) -> dict[str, Any]:
    """League options from an ``--options FILE.toml`` (read first) and ``--option KEY=VALUE``
    pairs (later ones win; a dotted key ``mp_costs.精=3`` sets one entry of a table). Raises
    ``click.BadParameter`` for a pair without ``=`` or a file that is not TOML."""
    import tomllib

    options: dict[str, Any] = {}
    if path:
        try:
            with open(path, "rb") as fh:
                options = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise click.BadParameter(f"{path}: {exc}", param_hint="--options") from exc
    for pair in pairs:
        key, value = key_value(pair, "--option")
        head, dot, sub = key.partition(".")
        if dot:
            table = options.get(head)
            options[head] = {
                **(table if isinstance(table, dict) else {}),
                sub: _option_value(value),
            }
        else:
            options[head] = _option_value(value)
    return options


def option_flags(func: Any) -> Any:
    """The ``--option KEY=VALUE`` (repeatable) and ``--options FILE.toml`` flags: the
    ruleset's league options (``docs/hundred.md``)."""
    func = click.option(
        "--options",
        "options_file",
        metavar="FILE.toml",
        default=None,
        help="the ruleset's league options from a TOML file",
    )(func)
    return click.option(
        "--option",
        "option_pairs",
        metavar="KEY=VALUE",
        multiple=True,
        help="one league option of the ruleset (repeatable; docs/hundred.md)",
    )(func)


def ruleset_option(func: Any) -> Any:
    """The ``--ruleset NAME`` option of the offline commands, with the ruleset's league options
    (:func:`option_flags`)."""
    return click.option(
        "--ruleset", "ruleset_name", metavar="NAME", default=None, help=RULESET_HELP
    )(option_flags(func))


def pick_ruleset(
    name: str | None, texts: Sequence[str], options: dict[str, Any] | None = None
) -> tuple[Ruleset, bool]:
    """The ruleset to read ``texts`` with (holding the league ``options``), and whether it was
    guessed.

    ``name`` given: that ruleset (``click.BadParameter`` listing the known names when there is
    none). Otherwise the ruleset whose notation most of ``texts`` are written in (ties: the one
    that reads most of them without an error, then the registry order), or the default ruleset
    when none is recognized. Raises ``click.BadParameter`` for options the ruleset refuses
    (naming the option).
    """
    from app.rules import all_rulesets, ruleset

    def with_options(rs_name: str | None) -> Ruleset:
        try:
            return ruleset(rs_name, options)
        except ValueError as exc:
            hint = "--ruleset" if "unknown ruleset" in str(exc) else "--option"
            raise click.BadParameter(str(exc), param_hint=hint) from exc

    if name is not None:
        return with_options(name), False
    rulesets = (
        [with_options(cls.name) for cls in all_rulesets()]
        if not options
        else [with_options(cls.name) for cls in all_rulesets() if _takes(cls, options)]
    )
    if not rulesets:
        raise click.BadParameter(
            "no ruleset takes these options; name it with --ruleset", param_hint="--option"
        )
    votes = [0] * len(rulesets)
    for done, t in enumerate(texts, start=1):
        for i, rs in enumerate(rulesets):
            votes[i] += rs.recognizes(rs.sheet_text(t).text)
        # the count stops once the leader is further ahead than the texts left can close: the
        # full count would pick the same ruleset (half the reading, for a folder of one game)
        first, second = sorted(votes, reverse=True)[:2] if len(votes) > 1 else (votes[0], -1)
        if first - second > len(texts) - done:
            break
    # among the rulesets that recognize as many sheets, the one that reads the most of them
    # without an error (a Hundred sheet that uses one basic sword looks like Margaret too)
    # (counted only when several share the most votes: it decides nothing otherwise)
    tied = [i for i, v in enumerate(votes) if v and v == max(votes)]
    valid = [
        sum(1 for t in texts if rs.recognizes(rs.sheet_text(t).text) and rs.read_sheet(t).ok)
        if len(tied) > 1 and i in tied
        else 0
        for i, rs in enumerate(rulesets)
    ]
    best = max(range(len(rulesets)), key=lambda i: (votes[i], valid[i], -i))
    if votes[best] == 0:
        return with_options(None), True
    return rulesets[best], True


def _takes(cls: type[Ruleset], options: dict[str, Any]) -> bool:
    """True when ruleset class ``cls`` accepts ``options``."""
    try:
        cls(options)
    except (ValueError, TypeError):
        return False
    return True


def ruleset_from_flags(
    name: str | None, texts: Sequence[str], option_pairs: tuple[str, ...], options_file: str | None
) -> tuple[Ruleset, bool]:
    """:func:`pick_ruleset` with the options of ``--option``/``--options``."""
    return pick_ruleset(name, texts, read_options(option_pairs, options_file) or None)


def note_guess(ruleset: Ruleset, guessed: bool) -> None:
    """Say on stderr which ruleset was guessed, unless it is the default one."""
    from app.rules import DEFAULT_RULESET

    if guessed and ruleset.name != DEFAULT_RULESET:
        click.echo(
            f"ruleset: {ruleset.name} (guessed from the notation; --ruleset to choose)", err=True
        )


def check_orders(text: str, ruleset: Ruleset, lang: str | None = None) -> tuple[bool, str]:
    """Validate an orders text of a ruleset with orders and return ``(ok, report)``: the
    normalized orders (plus any warnings) when valid, else every problem with its line, rule
    and fix."""
    sheet = ruleset.parse_orders(text, lang=lang)
    if not sheet.ok:
        head = (
            "この命令は受け付けられません。"
            if sheet.lang == "ja"
            else "These orders are not valid."
        )
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


def check_sheet(
    text: str, lang: str | None = None, ruleset: Ruleset | None = None
) -> tuple[bool, str]:
    """Validate a sheet and return ``(ok, report)``.

    The report is the normalized sheet and its cost breakdown (plus any warnings) when the sheet
    is valid, else every problem with its line, rule and fix. ``lang`` overrides the sheet's
    language; ``ruleset`` defaults to the one guessed from the notation.
    """
    rs = ruleset if ruleset is not None else pick_ruleset(None, [text])[0]
    sheet = rs.read_sheet(text, lang=lang)  # the reader mail uses (headers, greeting, BOM)
    out_lang = sheet.lang
    if not sheet.ok:
        head = (
            "このシートは受け付けられません。" if out_lang == "ja" else "This sheet is not valid."
        )
        return False, head + "\n\n" + rs.format_problems(sheet.problems, out_lang)
    parts = [rs.format_sheet(sheet.entry, out_lang), rs.format_costs(sheet.entry, out_lang)]
    if sheet.warnings:
        parts.append(rs.format_problems(sheet.warnings, out_lang))
    return True, "\n\n".join(parts)


@click.command("check")
@click.argument(
    "sheet", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path)
)
@click.option(
    "--lang",
    type=click.Choice(["ja", "en"]),
    default=None,
    help="output language (default: the sheet's)",
)
@ruleset_option
def check_command(
    sheet: Path,
    lang: str | None,
    ruleset_name: str | None,
    option_pairs: tuple[str, ...],
    options_file: str | None,
) -> None:
    """Validate SHEET: print the normalized sheet and its costs (exit 0), or every error (exit 1).

    The file may be UTF-8, Shift_JIS/CP932, EUC-JP or ISO-2022-JP; "-" reads standard input.
    ``--option``/``--options`` check it against a league's options (budget, pool, …). An
    orders file of a ruleset with orders (its HAND/ORDERS lines) is checked as orders.
    """
    from app.cli.sheetfile import read_sheet_source

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
    rs, guessed = ruleset_from_flags(ruleset_name, [text], option_pairs, options_file)
    note_guess(rs, guessed)
    ok, report = check_sheet(text, lang, rs)
    click.echo(report)
    sys.exit(0 if ok else 1)


def register(group: click.Group) -> None:
    """Add this part's commands to ``group``."""
    group.add_command(check_command)
