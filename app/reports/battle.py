"""The battle report: the turn-by-turn log of rules §3, rendered with Jinja in Japanese (the seed's
style) or English, as text or HTML.

Templates: ``templates/reports/battle.<lang>.<txt|html>``; the event phrases are macros in
``templates/reports/battle_lines.<lang>.txt`` so that a translator edits only templates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from app.reports.render import render
from app.rules.amaryllis import format_sheet, format_state
from app.rules.amaryllis.engine import event_json, result_json
from app.rules.amaryllis.events import BattleResult, TurnEnded, TurnStarted
from app.rules.amaryllis.model import Unit

_ZEN = str.maketrans("0123456789-", "０１２３４５６７８９－")


def zen(value: int | str) -> str:
    """Full-width digits and minus sign, as the Japanese notation prints numbers: ``-1`` → ``－１``."""
    return str(value).translate(_ZEN)


@dataclass(frozen=True)
class TurnBlock:
    """One turn of the report.

    Attributes:
        turn: 0-20.
        events: the turn's action events as JSON-ready dicts (``engine.event_json``), in order.
        states: the state lines of units A and B after the turn (``format_state``).
    """

    turn: int
    events: list[dict[str, object]]
    states: list[str]


@dataclass(frozen=True)
class BattleReportContext:
    """Everything ``battle.<lang>.*`` templates may use.

    Attributes:
        names: ``{"A": unit A's name, "B": unit B's name}``.
        sheets: the normalized sheets of A and B (``format_sheet``), or ``[]`` to leave them out.
        turns: the turn blocks; turn 0 only when something happened in it.
        result: ``result_json(result, events=False)``: winner "A"/"B"/None, reason, turns, final.
        title: an optional heading (e.g. league and round), or ``""``.
        z: a function printing a number the Japanese way (full-width), identity in English.
    """

    names: dict[str, str]
    sheets: list[str]
    turns: list[TurnBlock]
    result: dict[str, object]
    title: str
    z: Callable[[object], str]


def display_names(a: Unit, b: Unit) -> dict[str, str]:
    """``{"A": name, "B": name}``; when both units have the same name (a mirror match) each gets
    its side: ``グリスク（A）`` / ``Grisk (A)``."""
    if a.name != b.name:
        return {"A": a.name, "B": b.name}
    if a.lang == "ja":
        return {"A": f"{a.name}（Ａ）", "B": f"{b.name}（Ｂ）"}
    return {"A": f"{a.name} (A)", "B": f"{b.name} (B)"}


def turn_blocks(result: BattleResult, lang: str,
                names: dict[str, str] | None = None) -> list[TurnBlock]:
    """Split a logged result's events into turn blocks (turn 0 dropped when empty). ``names``
    (from :func:`display_names`) replaces the unit names on the state lines.

    Raises ``ValueError`` when the result was computed with ``log=False``.
    """
    if not result.events:
        raise ValueError("the battle was resolved without a log; run it with log=True")
    blocks: list[TurnBlock] = []
    current: list[dict[str, object]] = []
    for event in result.events:
        if isinstance(event, TurnStarted):
            current = []
        elif isinstance(event, TurnEnded):
            if event.turn > 0 or current:
                states = [format_state(replace(s, name=names["AB"[i]]) if names else s, lang)
                          for i, s in enumerate(event.states)]
                blocks.append(TurnBlock(event.turn, current, states))
        else:
            current.append(event_json(event))
    return blocks


def render_battle(
    a: Unit,
    b: Unit,
    result: BattleResult,
    *,
    lang: str,
    fmt: str = "text",
    title: str = "",
    sheets: bool = True,
) -> str:
    """Render the report of ``result`` (a battle of ``a`` against ``b`` run with ``log=True``).

    ``lang`` is ``"ja"`` or ``"en"``; ``fmt`` ``"text"`` or ``"html"``. Raises ``ValueError`` for an
    unknown language or format, or a result without a log.
    """
    names = display_names(a, b)
    context = BattleReportContext(
        names=names,
        sheets=[format_sheet(a, lang), format_sheet(b, lang)] if sheets else [],
        turns=turn_blocks(result, lang, names),
        result=result_json(result, events=False),
        title=title,
        z=zen if lang == "ja" else str,
    )
    return render("battle", context, lang=lang, fmt=fmt)
