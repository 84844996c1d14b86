"""Amaryllis as a :class:`~app.rules.base.Ruleset` (registered as ``amaryllis``).

A thin adapter over the modules of this package: the entry is the :class:`~.model.Unit` of a
valid sheet, the result the engine's :class:`~.events.BattleResult`, problems the
:class:`~.problems.Problem` records. Nothing here changes a rule; ``result_json`` is the engine's
``battle --json`` object unchanged, and ``report`` gives the texts the reports have always printed.
Source: ``rules/amaryllis.md``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from app.rules.base import (
    BattleReport,
    Fighter,
    Outcome,
    ProblemLike,
    RandomSource,
    Ruleset,
    Sheet,
    has_stat_slashes,
    register,
)

from . import costtext, notation, problems
from .engine import ENGINE_VERSION, result_json
from .engine import battle as _battle
from .events import BattleResult, UnitState
from .generate import random_unit
from .lexer import is_theki_line, is_unit_line, lex
from .model import Unit
from .report import build_report, display_names
from .samples import GRISK_EN, GRISK_JA, SAMPLES

_JUDGE = {"death": "death", "overkill": "overkill", "hp": "hp"}


def _fighter(state: UnitState, max_hp: int) -> Fighter:
    detail = {
        "atk": state.atk,
        "def": state.defense,
        "spd": state.spd,
        "actions": list(state.actions),
        "guard": state.guard,
        "reflect": state.reflect,
        "life": state.life,
        "stun": state.stun,
        "poison": state.poison,
    }
    return Fighter(state.name, state.hp, max_hp, 0, not state.dead, state.dead, detail)


def outcome_of(result: BattleResult) -> Outcome:
    """The generic :class:`Outcome` of an Amaryllis (or base Margaret) battle result.

    ``termination`` is the engine's reason; ``by`` the judge (a draw: ``overkill`` when both
    died, else ``hp``); ``margin`` final HP of A − final HP of B (rules §2.5, the league's HP
    tiebreak); ``turns`` the engine's last turn. A dead unit is ``alive=False, exited=True``.
    """
    a, b = result.final
    reason = result.reason.value
    by = _JUDGE.get(reason) or ("overkill" if a.dead and b.dead else "hp")
    return Outcome(
        winner=result.winner,
        termination=reason,
        turns=result.turns,
        margin=a.hp - b.hp,
        final=((_fighter(a, result.max_hp[0]),), (_fighter(b, result.max_hp[1]),)),
        by=by,
    )


def _unit(entry: Any) -> Unit:
    if not isinstance(entry, Unit):
        raise TypeError(f"an Amaryllis entry is a Unit, not {type(entry).__name__}")
    return entry


def _result(result: Any) -> BattleResult:
    if not isinstance(result, BattleResult):
        raise TypeError(f"an Amaryllis result is a BattleResult, not {type(result).__name__}")
    return result


@register
class Amaryllis(Ruleset):
    """Amaryllis (seed 001): one unit a side, actions built from classes and customizations
    priced against TECH (``rules/amaryllis.md``). Takes no league options."""

    name: ClassVar[str] = "amaryllis"
    aliases: ClassVar[tuple[str, ...]] = ("アマリリス",)
    titles: ClassVar[Mapping[str, str]] = {"ja": "アマリリス", "en": "Amaryllis"}
    engine_version: ClassVar[str] = ENGINE_VERSION
    #: its reports have never printed the record nor the final fighters (the state lines do)
    final_lines: ClassVar[bool] = False
    report_record: ClassVar[bool] = False

    def describe(self, lang: str) -> list[str]:
        """The ruleset record (``rules/margaret-hundred.md`` §12.10, Amaryllis column)."""
        if lang == "ja":
            return [
                "ルール：アマリリス",
                "ボーナス１０点（ＨＰ×５、攻撃力、防御力、素早さ、技術）",
                "アクション：１０クラス＋カスタマイズ、コスト合計≦技術",
                "１対１、第０〜第２０ターン",
            ]
        return [
            "Ruleset: Amaryllis",
            "10 bonus points (HP x5, ATK, DEF, SPD, TECH)",
            "actions: 10 classes + customizations, total cost <= TECH",
            "one unit a side, turns 0-20",
        ]

    # -- sheets ---------------------------------------------------------------------------------

    def parse_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """``notation.parse_sheet`` as a :class:`Sheet` (entry: the ``Unit``). A non-``str`` is
        read as the empty sheet (this method never raises)."""
        result = notation.parse_sheet(text if isinstance(text, str) else "", lang=lang)
        return Sheet(self.name, result.unit, tuple(result.problems), result.lang, result.name)

    def format_sheet(self, entry: Any, lang: str | None = None) -> str:
        """The normalized notation (``notation.format_sheet``)."""
        return notation.format_sheet(_unit(entry), lang)

    def format_costs(self, entry: Any, lang: str | None = None) -> str:
        """The cost breakdown against TECH (``costtext.format_costs``)."""
        return costtext.format_costs(_unit(entry), lang)

    def format_problems(self, problems_: Sequence[ProblemLike], lang: str) -> str:
        """One block per problem (``problems.format_problems``)."""
        return problems.format_problems(problems_, lang)

    def label(self, entry: Any) -> str:
        """The unit's name."""
        return _unit(entry).name

    def starts_sheet(self, line: str) -> bool:
        """True for a unit line (``lexer.is_unit_line``: a name, its colon, the stats) whose
        stats, after that colon, have HP/ATK/DEF/SPD's slashes (``base.has_stat_slashes`` on
        them: ``1///:1`` names a unit ``1///`` and has no stats)."""
        return is_unit_line(line) and has_stat_slashes(
            unicodedata.normalize("NFKC", line).partition(":")[2]
        )

    def greeting_lines(self, text: str) -> int:
        """Prose lines above the unit line (``notation.greeting_lines``)."""
        return notation.greeting_lines(text)

    def recognizes(self, text: str) -> bool:
        """True when ``text`` has a unit line together with an action line or a TECH line, or
        a unit line that sets no action, or is THEKI's one-line Amaryllis form. A unit line that
        only lists names with no action line defining them is not enough (that is how a base
        Margaret sheet in full form looks, ``rules/margaret.md`` §4.1)."""
        if not isinstance(text, str):
            return False
        lines = text.splitlines()
        if any(is_theki_line(line) for line in lines[:50]):
            return True
        lexed = lex(text)
        if not lexed.units:
            return False
        return bool(lexed.actions or lexed.techs or not lexed.units[0].names)

    def example_sheet(self, lang: str) -> str:
        """The seed's グリスク, in ``lang``'s notation."""
        return GRISK_JA if lang == "ja" else GRISK_EN

    def sample_sheets(self) -> list[str]:
        """グリスク, ヌト, ミラ and Bolt (``samples.SAMPLES``)."""
        return list(SAMPLES)

    def random_entry(self, rng: RandomSource, name: str | None = None) -> Unit:
        """``generate.random_unit``: every class and customization, within TECH."""
        return random_unit(rng, name)

    # -- battles --------------------------------------------------------------------------------

    def battle(self, a: Any, b: Any, *, log: bool = True) -> BattleResult:
        """``engine.battle`` (rules §2)."""
        return _battle(_unit(a), _unit(b), log=log)

    def outcome(self, result: Any) -> Outcome:
        """See :func:`outcome_of`."""
        return outcome_of(_result(result))

    def winner_and_margin(self, result: Any) -> tuple[int | None, int]:
        """The winner and final HP of A − final HP of B, without building the outcome."""
        res = _result(result)
        return res.winner, res.final[0].hp - res.final[1].hp

    def result_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """``engine.result_json``: ``{"winner", "reason", "turns", "final": {"A": {...},
        "B": {...}}, "events"}`` (``final.A``/``final.B`` are objects, one unit each)."""
        return result_json(_result(result), events=events)

    def report(self, a: Any, b: Any, result: Any, *, lang: str) -> BattleReport:
        """The report of rules §3 (``report.build_report``); no header, as Amaryllis reports
        have always been printed. Raises ``ValueError`` for a result without a log."""
        ua, ub, res = _unit(a), _unit(b), _result(result)
        names = display_names(ua, ub)
        return build_report(
            res,
            outcome_of(res),
            names=names,
            lang=lang,
            sheets=(notation.format_sheet(ua, lang), notation.format_sheet(ub, lang)),
        )
