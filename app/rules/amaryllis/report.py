"""The battle report of rules §3 in words: every event as the line the report prints, turn by turn,
the state lines, the verdict and why, in Japanese (the seed's style) or English.

These are exactly the texts that the report templates printed from the engine's events before the
reports became generic (``app/reports/battle.py`` renders any :class:`~app.rules.base.BattleReport`;
``tests/reports/battle_corpus.json`` holds the bytes). Base Margaret, fought on this engine
(``rules/margaret.md`` M6), reuses them with its sword names (``rename``).

Pure: no I/O, no templates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from app.rules.base import BattleReport, Outcome, ReportLine, ReportTurn, StateLine

from .events import (
    AttackDone,
    BattleResult,
    Died,
    PoisonDamage,
    Simultaneous,
    StunSpent,
    SupportDone,
    TurnEnded,
    TurnStarted,
    UnitState,
)
from .model import Unit
from .notation import format_state
from .vocab import zen

Rename = Callable[[str], str]
"""Maps an action name as the engine logs it to the name the report prints."""

_SIDES = "AB"
_STAT = {
    "ja": {"atk_up": "攻撃力", "def_up": "防御力", "spd_up": "素早さ"},
    "en": {"atk_up": "ATK", "def_up": "DEF", "spd_up": "SPD"},
}
_STATUS = {
    "ja": {"guard": "ガード", "reflect": "反射", "life": "ライフ"},
    "en": {"guard": "Guard", "reflect": "Reflect", "life": "Life"},
}
SIMULTANEOUS = {"ja": "【同時行動】", "en": "[simultaneous]"}
"""The heading of a simultaneous action (rules §2.3); its halves are the line's children."""


def _same(name: str) -> str:
    return name


def display_names(a: Unit, b: Unit) -> dict[str, str]:
    """``{"A": name, "B": name}``; when both units have the same name (a mirror match) each gets
    its side: ``グリスク（Ａ）`` / ``Grisk (A)`` (the form follows unit A's notation)."""
    return side_names(a.name, b.name, a.lang)


def side_names(name_a: str, name_b: str, lang: str) -> dict[str, str]:
    """:func:`display_names` for two names; ``lang`` picks the side label's form."""
    if name_a != name_b:
        return {"A": name_a, "B": name_b}
    if lang == "ja":
        return {"A": f"{name_a}（Ａ）", "B": f"{name_b}（Ｂ）"}
    return {"A": f"{name_a} (A)", "B": f"{name_b} (B)"}


def event_text(event: object, names: Mapping[str, str], lang: str, rename: Rename = _same) -> str:
    """The report line of one engine event (not a turn marker nor a simultaneous group).

    ``names`` maps ``"A"``/``"B"`` to the display names; ``rename`` maps action names. Raises
    ``TypeError`` for anything else than a battle event.
    """
    ja = lang == "ja"
    z: Callable[[int], str] = zen_int if ja else str
    if isinstance(event, SupportDone):
        who, action = names[_SIDES[event.side]], rename(event.action)
        stat, status = _STAT[lang], _STATUS[lang]
        if ja:
            text = f"{who}が{action}を実行　⇒"
            if event.cls in stat:
                text += f"{stat[event.cls]}{z(event.value)}"
            elif event.cls in status:
                text += f"状態「{status[event.cls]}」付与"
            else:
                text += f"ＨＰ全回復　⇒ＨＰ{z(event.value)}"
            return text + (f"　（{action}は消滅）" if event.removed else "")
        text = f"{who} uses {action} =>"
        if event.cls in stat:
            text += f" {stat[event.cls]} {event.value}"
        elif event.cls in status:
            text += f" gains {status[event.cls]} ({event.value})"
        else:
            text += f" full heal => HP {event.value}"
        return text + (f" ({action} is used up)" if event.removed else "")
    if isinstance(event, AttackDone):
        side = _SIDES[event.side]
        first = _SIDES[1 - event.side]
        action = rename(event.action)
        refl = [_SIDES[r] for r in event.reflected_by]
        if ja:
            text = f"{names[side]}が{action}で{names[first]}を攻撃"
            for r in refl:
                text += f"　⇒{names[r]}の反射で{names['B' if r == 'A' else 'A']}へ"
            if event.guarded:
                text += f"　⇒ガード発動（{z(event.raw)}→{z(event.damage)}）"
            if event.failed:
                text += "　⇒攻撃失敗"
            else:
                text += "　⇒"
                if refl:
                    text += f"{names[_SIDES[event.target]]}に"
                text += f"{z(event.damage)}ダメージ　⇒ＨＰ{z(event.hp)}"
                if event.stun:
                    text += "　⇒状態「スタン」付与" + (
                        f"×{z(event.stun)}" if event.stun > 1 else ""
                    )
                if event.poison:
                    text += "　⇒状態「毒」付与" + (
                        f"×{z(event.poison)}" if event.poison > 1 else ""
                    )
            return text + (f"　（{action}は消滅）" if event.removed else "")
        text = f"{names[side]} attacks {names[first]} with {action}"
        for r in refl:
            text += f" => reflected by {names[r]}"
        if event.guarded:
            text += f" => Guard ({event.raw} -> {event.damage})"
        if event.failed:
            text += " => fails"
        else:
            text += f" => {event.damage} damage"
            if refl:
                text += f" to {names[_SIDES[event.target]]}"
            text += f" => HP {event.hp}"
            if event.stun:
                text += " => Stun" + (f" x{event.stun}" if event.stun > 1 else "")
            if event.poison:
                text += " => Poison" + (f" x{event.poison}" if event.poison > 1 else "")
        return text + (f" ({action} is used up)" if event.removed else "")
    if isinstance(event, PoisonDamage):
        who = names[_SIDES[event.side]]
        if ja:
            return f"{who}に毒で{z(event.damage)}ダメージ　⇒ＨＰ{z(event.hp)}"
        return f"{who} takes {event.damage} Poison damage => HP {event.hp}"
    if isinstance(event, StunSpent):
        who = names[_SIDES[event.side]]
        if ja:
            return f"{who}はスタンで行動できない　（スタン残り{z(event.stun_left)}）"
        return f"{who} is stunned and loses the action ({event.stun_left} Stun left)"
    if isinstance(event, Died):
        who = names[_SIDES[event.side]]
        if event.revived:
            if ja:
                return f"{who}のライフが発動　⇒{who}復活　⇒ＨＰ１　（ライフは消滅）"
            return f"{who}'s Life triggers => {who} revives => HP 1 (Life is used up)"
        return f"{who}死亡　（ＨＰ{z(event.hp)}）" if ja else f"{who} dies (HP {event.hp})"
    raise TypeError(f"not a battle event: {event!r}")


def zen_int(value: int) -> str:
    """A number the Japanese way: full-width digits and minus (``-1`` → ``－１``)."""
    return zen(str(value))


_KIND = {
    SupportDone: "support",
    AttackDone: "attack",
    PoisonDamage: "status",
    StunSpent: "stun",
    Died: "death",
}


def event_line(
    event: object, names: Mapping[str, str], lang: str, rename: Rename = _same
) -> ReportLine:
    """One event as a :class:`ReportLine`; a simultaneous action is one line (its heading) whose
    children are its halves in processing order (rules §2.3)."""
    if isinstance(event, Simultaneous):
        return ReportLine(
            SIMULTANEOUS[lang],
            "simultaneous",
            None,
            tuple(event_line(e, names, lang, rename) for e in event.events),
        )
    side = getattr(event, "side", None)
    return ReportLine(
        event_text(event, names, lang, rename),
        _KIND.get(type(event), "action"),
        side if isinstance(side, int) else None,
    )


def state_line(
    state: UnitState, name: str, max_hp: int, lang: str, rename: Rename = _same
) -> StateLine:
    """The state line of a unit after a turn (rules §3) under its display ``name``."""
    shown = (
        state
        if name == state.name and rename is _same
        else replace(state, name=name, actions=tuple(rename(x) for x in state.actions))
    )
    return StateLine(name, format_state(shown, lang), state.hp, max_hp, not state.dead, state.dead)


def report_turns(
    result: BattleResult, names: Mapping[str, str], lang: str, rename: Rename = _same
) -> list[ReportTurn]:
    """The turns of a logged result: each turn's lines and both state lines after it; turn 0
    only when something happened in it.

    Raises ``ValueError`` when the result was computed with ``log=False``.
    """
    if not result.events:
        raise ValueError("the battle was resolved without a log; run it with log=True")
    turns: list[ReportTurn] = []
    current: list[ReportLine] = []
    for event in result.events:
        if isinstance(event, TurnStarted):
            current = []
        elif isinstance(event, TurnEnded):
            if event.turn > 0 or current:
                states = tuple(
                    (state_line(s, names[_SIDES[i]], result.max_hp[i], lang, rename),)
                    for i, s in enumerate(event.states)
                )
                turns.append(ReportTurn(event.turn, tuple(current), (states[0], states[1])))
        else:
            current.append(event_line(event, names, lang, rename))
    return turns


def verdict(winner: int | None, names: Mapping[str, str], lang: str) -> str:
    """``ヌトの勝利`` / ``Nut wins``, or ``引き分け`` / ``Draw``."""
    if winner is None:
        return "引き分け" if lang == "ja" else "Draw"
    name = names[_SIDES[winner]]
    return f"{name}の勝利" if lang == "ja" else f"{name} wins"


def explanation(
    result: BattleResult, names: Mapping[str, str], lang: str, turns: int | None = None
) -> str:
    """Why the battle ended so (rules §2.5), in one line: who died, or the HP compared.

    ``turns`` overrides the turn printed (base Margaret's M10); default ``result.turns``.
    """
    t = result.turns if turns is None else turns
    a, b = result.final
    na, nb = names["A"], names["B"]
    reason = result.reason.value
    if lang == "ja":
        hp = f"{na}{zen_int(a.hp)}、{nb}{zen_int(b.hp)}"
        if reason == "death":
            loser = names["B" if result.winner == 0 else "A"]
            return f"（第{zen_int(t)}ターン、{loser}死亡）"
        if reason == "overkill":
            return f"（第{zen_int(t)}ターン、両者死亡。ＨＰ比較　{hp}）"
        if reason == "hp":
            return f"（第２０ターン終了。ＨＰ比較　{hp}）"
        return f"（第{zen_int(t)}ターン{'、両者死亡' if a.dead else '終了'}。ＨＰ同値　{hp}）"
    hp = f"{na} {a.hp}, {nb} {b.hp}"
    if reason == "death":
        loser = names["B" if result.winner == 0 else "A"]
        return f"(turn {t}: {loser} died)"
    if reason == "overkill":
        return f"(turn {t}: both died; HP compared: {hp})"
    if reason == "hp":
        return f"(turn 20 over; HP compared: {hp})"
    return f"(turn {t}{': both died' if a.dead else ' over'}; equal HP: {hp})"


def build_report(
    result: BattleResult,
    outcome: Outcome,
    *,
    names: Mapping[str, str],
    sheets: tuple[str, str],
    lang: str,
    header: tuple[str, ...] = (),
    rename: Rename = _same,
    turns: list[ReportTurn] | None = None,
    turn_shown: int | None = None,
) -> BattleReport:
    """Assemble the :class:`BattleReport` of a logged ``result``.

    ``turns`` replaces the turns read from the log (a ruleset that regroups them), and
    ``turn_shown`` the turn number of the explanation. Raises ``ValueError`` for a result
    without a log.
    """
    return BattleReport(
        lang=lang,
        header=header,
        names=dict(names),
        sheets=sheets,
        turns=tuple(turns if turns is not None else report_turns(result, names, lang, rename)),
        verdict=verdict(result.winner, names, lang),
        explanation=(explanation(result, names, lang, turn_shown),),
        outcome=outcome,
    )
