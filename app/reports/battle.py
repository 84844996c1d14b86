"""The battle report of any ruleset: a :class:`~app.rules.base.BattleReport` (the ruleset's
texts: header, sheets, each turn's lines and state lines, verdict and why) rendered with Jinja as
text or HTML, in the report's language.

Templates: ``templates/reports/battle.{txt,html}`` (one file for both languages), generic over ``BattleReport``: they
lay the texts out and add only the words of the layout (``第１ターン``/``Turn 1``, ``結果``/
``Result``). Rulesets write the lines (``Ruleset.report``); this module imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.reports.render import render
from app.rules import ruleset as default_ruleset
from app.rules.base import BattleReport, ReportTurn, Ruleset

_ZEN = str.maketrans("0123456789-", "０１２３４５６７８９－")


def zen(value: object) -> str:
    """Full-width digits and minus sign, as the Japanese notation prints numbers: ``-1`` → ``－１``."""
    return str(value).translate(_ZEN)


@dataclass(frozen=True)
class BattleReportView:
    """Everything the ``reports/battle.*`` templates may use.

    Attributes:
        report: the ruleset's report (the fields below are its own, for the templates).
        names: ``{"A": …, "B": …}``, the two sides' display names.
        header: the ruleset record, one line each (may be empty: Amaryllis prints none).
        sheets: the two normalized sheets, or ``()`` to leave them out.
        turns: the turns, each with its lines (a line's ``children`` are printed indented under
            it) and both parties' state lines.
        verdict: the result in words; explanation: why, one line each.
        title: an optional heading (league and round, test battle), or ``""``.
        z: prints a number the Japanese way (full-width) in Japanese, ``str`` in English.
        url: the battle's page on the web, or ``""`` (the HTML part links to it).
    """

    report: BattleReport
    names: Mapping[str, str]
    header: tuple[str, ...]
    sheets: tuple[str, ...]
    turns: tuple[ReportTurn, ...]
    verdict: str
    explanation: tuple[str, ...]
    title: str
    z: Callable[[object], str]
    url: str = ""


def render_report(
    report: BattleReport, *, fmt: str = "text", title: str = "", sheets: bool = True, url: str = ""
) -> str:
    """Render ``report`` in its language as ``fmt`` (``"text"`` or ``"html"``).

    ``sheets=False`` leaves out the two sheets; ``url`` is a link to the battle's page (HTML
    only). Raises ``ValueError`` for an unknown language or format.
    """
    view = BattleReportView(
        report=report,
        names=report.names,
        header=report.header,
        sheets=report.sheets if sheets else (),
        turns=report.turns,
        verdict=report.verdict,
        explanation=report.explanation,
        title=title,
        z=zen if report.lang == "ja" else str,
        url=url,
    )
    return render("battle", view, lang=report.lang, fmt=fmt)


def render_battle(
    a: Any,
    b: Any,
    result: Any,
    *,
    lang: str,
    fmt: str = "text",
    title: str = "",
    sheets: bool = True,
    ruleset: Ruleset | None = None,
) -> str:
    """Render the report of ``result``, a logged battle of entry ``a`` against ``b``.

    ``ruleset`` is the ruleset that fought it (``Ruleset.report``); without one, the default
    ruleset (:data:`app.rules.DEFAULT_RULESET`), for callers that do not know rulesets yet.
    ``lang`` is ``"ja"`` or ``"en"``, ``fmt`` ``"text"`` or ``"html"``. Raises ``ValueError``
    for an unknown language or format, or a result without a log.
    """
    rs = ruleset if ruleset is not None else default_ruleset()
    return render_report(rs.report(a, b, result, lang=lang), fmt=fmt, title=title, sheets=sheets)
