"""Base Margaret (15 swords) as a :class:`~app.rules.base.Ruleset` (registered as ``margaret``).

Sheets: the full and compact notations over the 15-sword table (``notation``, ``validate``).
Battles: each swordmaster compiled to its Amaryllis unit and fought on the Amaryllis engine
(Ruling M6, ``compile``), so a result is the engine's ``BattleResult``. What differs from
Amaryllis is only how the result is told: ``turns`` is 0 when the death check after turn 0
decided the battle (M10), ``final.A``/``final.B`` are lists of swordmasters (§7), and the report
names swords in its own language under a header with the ruleset record.
Source: ``rules/margaret.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

from app.rules.amaryllis.engine import ENGINE_VERSION as AMARYLLIS_ENGINE
from app.rules.amaryllis.engine import battle as amaryllis_battle
from app.rules.amaryllis.engine import event_json
from app.rules.amaryllis.events import BattleResult, UnitState
from app.rules.amaryllis.report import build_report, report_turns, side_names
from app.rules.amaryllis.vocab import num
from app.rules.base import (
    BattleReport,
    Fighter,
    Outcome,
    ProblemLike,
    RandomSource,
    ReportTurn,
    Ruleset,
    Sheet,
    has_stat_slashes,
    register,
)

from .compile import to_unit
from .generate import random_swordmaster
from .model import Sword, Swordmaster
from .notation import (
    SKILL_LINE,
    format_swordmaster,
    is_swordmaster_line,
    label,
    line_content,
    line_form,
)
from .problems import format_margaret_problems
from .samples import COMPACT, EXAMPLE_EN, EXAMPLE_JA, FULL
from .swords import BASIC
from .validate import BUDGET, parse_sheet

ENGINE_VERSION = f"m1-a{AMARYLLIS_ENGINE}"
"""This ruleset's engine version: the Margaret layer's (``m1``) on the Amaryllis engine's."""

_JUDGE = {"death": "death", "overkill": "overkill", "hp": "hp"}
_TECH_LINE = re.compile(r"(?i)(技術|tech)\s*[:=]?\s*[+-]?[0-9]+")


def _master(entry: Any) -> Swordmaster:
    if not isinstance(entry, Swordmaster):
        raise TypeError(f"a Margaret entry is a Swordmaster, not {type(entry).__name__}")
    return entry


def _result(result: Any) -> BattleResult:
    if not isinstance(result, BattleResult):
        raise TypeError(f"a Margaret result is a BattleResult, not {type(result).__name__}")
    return result


@lru_cache(maxsize=1024)
def _sword_of(name: str) -> Sword | None:
    """The sword whose Japanese name the engine logged (``回復剣3`` → 回3)."""
    hit = BASIC.by_name(name)
    if hit is None:
        return None
    spec, digits, _ = hit
    return Sword(spec.code, int(digits) if digits else None)


def _rename(name: str, lang: str) -> str:
    sword = _sword_of(name)
    return name if sword is None else BASIC.sword_name(sword, lang)


_CODE_OF: dict[str, str] = {}


def _code(name: str) -> str:
    """The code of the sword the engine logged by its Japanese name (``回復剣3`` → ``回3``)."""
    code = _CODE_OF.get(name)
    if code is None:
        sword = _sword_of(name)
        code = name if sword is None else BASIC.code(sword)
        if len(_CODE_OF) < 4096:
            _CODE_OF[name] = code
    return code


def _codes(actions: Sequence[str]) -> list[str]:
    return [_code(name) for name in actions]


def _fighter_json(state: UnitState, max_hp: int) -> dict[str, Any]:
    """``Fighter.to_json`` of :func:`_fighter`, built directly (tournaments print many)."""
    return {
        "name": state.name,
        "hp": state.hp,
        "max_hp": max_hp,
        "mp": 0,
        "alive": not state.dead,
        "exited": state.dead,
        "atk": state.atk,
        "def": state.defense,
        "spd": state.spd,
        "swords": _codes(state.actions),
        "guard": state.guard,
        "reflect": state.reflect,
        "life": state.life,
        "stun": state.stun,
        "poison": state.poison,
    }


def turns_of(result: BattleResult) -> int:
    """The final turn number T of ``rules/margaret.md`` §7: 0 when the battle ended at the
    death check after turn 0 (M10; the Amaryllis engine places it at the start of turn 1),
    otherwise the turn in which it ended (20 when turn 20 ran out)."""
    return 0 if result.ended_at == "start" else result.turns


def _fighter(state: UnitState, max_hp: int) -> Fighter:
    detail = {
        "atk": state.atk,
        "def": state.defense,
        "spd": state.spd,
        "swords": _codes(state.actions),
        "guard": state.guard,
        "reflect": state.reflect,
        "life": state.life,
        "stun": state.stun,
        "poison": state.poison,
    }
    return Fighter(state.name, state.hp, max_hp, 0, not state.dead, state.dead, detail)


def _mark_swords(data: Any) -> Any:
    """An Amaryllis event (``engine.event_json``) with each action also as its sword code."""
    if isinstance(data, list):
        return [_mark_swords(x) for x in data]
    if not isinstance(data, dict):
        return data
    out = {k: _mark_swords(v) for k, v in data.items()}
    if "action" in out and isinstance(out["action"], str):
        sword = _sword_of(out["action"])
        if sword is not None:
            out["sword"] = BASIC.code(sword)
    if "actions" in out and isinstance(out["actions"], list):
        out["swords"] = _codes(out["actions"])
    return out


def _fold_turn_zero(turns: list[ReportTurn]) -> list[ReportTurn]:
    """M10: the death check that the engine runs at the start of turn 1 is reported as the
    death check after turn 0: its lines join turn 0's, under the states it left."""
    zero = [t for t in turns if t.turn == 0]
    one = [t for t in turns if t.turn == 1]
    if not one:
        return turns
    lines = (zero[0].lines if zero else ()) + one[0].lines
    return [ReportTurn(0, lines, one[0].states)]


@register
class Margaret(Ruleset):
    """Base Margaret (マーガレット): one swordmaster a side, 10 bonus points, one sword per point
    of 剣技 from the 15 basic swords, no MP (``rules/margaret.md``). Takes no league options."""

    name: ClassVar[str] = "margaret"
    aliases: ClassVar[tuple[str, ...]] = ("マーガレット", "marguerite")
    titles: ClassVar[Mapping[str, str]] = {"ja": "マーガレット", "en": "Margaret"}
    engine_version: ClassVar[str] = ENGINE_VERSION

    def describe(self, lang: str) -> list[str]:
        """The ruleset record (``rules/margaret.md`` §7; ``rules/margaret-hundred.md`` §12.10):
        pool, budget, party size, MP costs."""
        codes = BASIC.codes_text()
        if lang == "ja":
            return [
                "ルール：マーガレット（剣１５種）",
                f"剣：ベーシックの１５種（{codes}）",
                f"予算：{num(BUDGET, 'ja')}点（ＨＰ×５、攻撃力、防御力、素早さ、剣１本につき剣技１）",
                "剣師：１対１",
                "ＭＰコスト：なし",
            ]
        return [
            "Ruleset: Margaret (15 swords)",
            f"pool: the 15 basic swords ({codes})",
            f"budget: {BUDGET} points (HP x5, ATK, DEF, SPD, 1 per sword)",
            "one swordmaster a side",
            "MP costs: none",
        ]

    # -- sheets ---------------------------------------------------------------------------------

    def parse_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """``validate.parse_sheet`` over the 15 basic swords."""
        return parse_sheet(text, lang=lang, table=BASIC, ruleset=self.name)

    def format_sheet(self, entry: Any, lang: str | None = None) -> str:
        """The normalized sheet in the notation it was written in (``format_swordmaster``)."""
        return format_swordmaster(_master(entry), BASIC, lang)

    def format_costs(self, entry: Any, lang: str | None = None) -> str:
        """The budget: abilities, one point per sword, total against 10 (M1, M2)."""
        m = _master(entry)
        lang = lang or m.lang
        spent = m.hp // 5 + m.atk + m.defense + m.spd
        count = len(m.swords)
        left = BUDGET - spent - count
        z = (lambda v: num(v, "ja")) if lang == "ja" else str
        if lang == "ja":
            lines = [
                "ポイントの内訳",
                f"・能力：ＨＰ{z(m.hp)}÷５＝{z(m.hp // 5)}、攻撃力{z(m.atk)}、"
                f"防御力{z(m.defense)}、素早さ{z(m.spd)}：{z(spent)}点",
                f"・剣技{z(m.skill)}：剣{z(count)}本×１＝{z(count)}点",
                f"合計{z(spent + count)}／{z(BUDGET)}点（残り{z(left)}）",
            ]
        else:
            lines = [
                "Points",
                f"- abilities: HP {m.hp}/5 = {m.hp // 5}, ATK {m.atk}, DEF {m.defense}, "
                f"SPD {m.spd}: {spent}",
                f"- SKILL {m.skill}: {count} sword(s) x1 = {count}",
                f"Total {spent + count} / {BUDGET} ({left} left)",
            ]
        return "\n".join(lines)

    def format_problems(self, problems: Sequence[ProblemLike], lang: str) -> str:
        """One block per problem, sections of ``rules/margaret.md``."""
        return format_margaret_problems(problems, lang)

    def label(self, entry: Any) -> str:
        """The name, or the compact form of a swordmaster without one."""
        return label(_master(entry), BASIC)

    def starts_sheet(self, line: str) -> bool:
        """True for a swordmaster line, full or compact (M7), not THEKI's Amaryllis form, with
        HP/ATK/DEF/SPD's slashes (``base.has_stat_slashes``)."""
        return is_swordmaster_line(line) and has_stat_slashes(line)

    def greeting_lines(self, text: str) -> int:
        """The lines above the swordmaster line, blank ones included (the mail layer blanks
        them); 0 when a 剣技 line stands above it (it belongs to the sheet, M2)."""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if self.starts_sheet(line):
                above = (line_content(x) for x in lines[:i])
                return 0 if any(s and SKILL_LINE.fullmatch(s) for s in above) else i
        return 0

    def recognizes(self, text: str) -> bool:
        """True when ``text`` holds a swordmaster line (M7) that reads as base Margaret: a compact
        line opening with four numbers, or a full line whose list names a sword or is empty; and
        no Amaryllis action line (``名前：クラス…``) nor TECH line below it. THEKI's form is not Margaret
        (§4.4). Lines above the swordmaster line (a greeting) are not looked at."""
        if not isinstance(text, str):
            return False
        lines = text.splitlines()[:1000]
        first = next((i for i, line in enumerate(lines) if self.starts_sheet(line)), None)
        if first is None:
            return False
        for line in lines[first + 1 :]:
            s = line_content(line)
            if s is None or SKILL_LINE.fullmatch(s):
                continue
            if (":" in s and "/" not in s) or _TECH_LINE.fullmatch(s):
                return False  # an action line or a TECH line: the unit line above is Amaryllis
        s = line_content(lines[first]) or ""
        if line_form(s) == "compact":
            fields = s.split("/", 5)
            if len(fields) < 4 or not all(f.strip().lstrip("+-").isdigit() for f in fields[:4]):
                return False
            codes = fields[4].strip() if len(fields) > 4 else ""
            tokens = BASIC.read_codes(codes) if codes else []
            # one of the 15 codes (or none): a compact line of only Hundred codes is not Margaret
            return not tokens or any(t.spec is not None for t in tokens)
        fields = s.partition(":")[2].split("/", 4)
        if len(fields) < 5 or not fields[4].strip():
            return True  # no sword list: the same sheet in both notations
        for item in fields[4].split("/")[0].split(","):
            if BASIC.by_name(item) is not None:
                return True
            tokens = BASIC.read_codes(item)
            if tokens and all(t.spec is not None for t in tokens):
                return True
        return False

    def example_sheet(self, lang: str) -> str:
        """徘徊するライカ in full form, in ``lang``'s sword names."""
        return EXAMPLE_JA if lang == "ja" else EXAMPLE_EN

    def sample_sheets(self) -> list[str]:
        """The ten legal sheets of ``rules/margaret.md`` §6, full form then compact form."""
        return list(FULL) + list(COMPACT)

    def random_entry(self, rng: RandomSource, name: str | None = None) -> Swordmaster:
        """``generate.random_swordmaster``: a legal swordmaster over the 15 swords."""
        return random_swordmaster(rng, name)

    # -- battles --------------------------------------------------------------------------------

    def battle(self, a: Any, b: Any, *, log: bool = True) -> BattleResult:
        """The Amaryllis battle of the two compiled swordmasters (M6)."""
        ma, mb = _master(a), _master(b)
        return amaryllis_battle(
            to_unit(ma, label(ma, BASIC)), to_unit(mb, label(mb, BASIC)), log=log
        )

    def outcome(self, result: Any) -> Outcome:
        """Winner, reason, T (M10), margin = final HP of A − final HP of B, the two swordmasters
        (a dead one has exited with its final HP), and the judge in ``by``."""
        res = _result(result)
        a, b = res.final
        reason = res.reason.value
        by = _JUDGE.get(reason) or ("overkill" if a.dead and b.dead else "hp")
        return Outcome(
            winner=res.winner,
            termination=reason,
            turns=turns_of(res),
            margin=a.hp - b.hp,
            final=((_fighter(a, res.max_hp[0]),), (_fighter(b, res.max_hp[1]),)),
            by=by,
        )

    def winner_and_margin(self, result: Any) -> tuple[int | None, int]:
        """The winner and final HP of A − final HP of B, without building the outcome."""
        res = _result(result)
        return res.winner, res.final[0].hp - res.final[1].hp

    def result_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """The ``battle --json`` object of ``rules/margaret.md`` §7: ``winner`` (``"A"``,
        ``"B"``, ``None``), ``reason``, ``turns`` (M10), ``by``, ``final.A``/``final.B`` as
        lists of one swordmaster each (``name``, ``hp``, ``max_hp``, ``mp``, ``alive``,
        ``exited``, then ``atk``, ``def``, ``spd``, ``swords`` left as codes and the status
        counts), and with ``events`` the Amaryllis engine's log (M6; each action also as its
        ``sword`` code)."""
        res = _result(result)
        a, b = res.final
        reason = res.reason.value
        out: dict[str, Any] = {
            "winner": None if res.winner is None else "AB"[res.winner],
            "reason": reason,
            "turns": turns_of(res),
            "by": _JUDGE.get(reason) or ("overkill" if a.dead and b.dead else "hp"),
            "final": {
                "A": [_fighter_json(a, res.max_hp[0])],
                "B": [_fighter_json(b, res.max_hp[1])],
            },
        }
        if events:
            out["events"] = [_mark_swords(event_json(e)) for e in res.events]
        return out

    def report(self, a: Any, b: Any, result: Any, *, lang: str) -> BattleReport:
        """The report in the seed's style: the ruleset record, both sheets, every turn's
        actions and state lines (swords named in ``lang``), the result and why. The death check
        after turn 0 is told in turn 0 (M10). Raises ``ValueError`` without a log."""
        ma, mb, res = _master(a), _master(b), _result(result)
        names = side_names(label(ma, BASIC), label(mb, BASIC), lang)

        def rename(name: str) -> str:
            return _rename(name, lang)

        turns = report_turns(res, names, lang, rename)
        m10 = res.ended_at == "start"
        if m10:
            turns = _fold_turn_zero(turns)
        return build_report(
            res,
            self.outcome(res),
            names=names,
            lang=lang,
            header=tuple(self.describe(lang)),
            sheets=(self.format_sheet(ma, lang), self.format_sheet(mb, lang)),
            rename=rename,
            turns=turns,
            turn_shown=0 if m10 else None,
        )
