"""Margaret Hundred as a :class:`~app.rules.base.Ruleset` (registered as ``margaret-hundred``).

The entry is a :class:`~.model.Swordmaster`, the result a :class:`~.events.HundredResult`,
problems the Amaryllis :class:`~app.rules.amaryllis.problems.Problem` records with this package's
catalogue. An instance carries the league options of ``options.py`` (budget, pool, cost and MP
tables, party cap, procedure limit, Heaven's Door policy). Source: ``rules/margaret-hundred.md``.
"""

from __future__ import annotations

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
from app.rules.margaret.notation import SKILL_LINE, line_content, read_sheet

from . import notation
from .engine import ENGINE_VERSION, battle
from .events import HundredResult, SmState, event_json
from .generate import random_swordmaster
from .model import Swordmaster
from .options import Options, describe, parse_options
from .problems import format_problems
from .report import build_report, display_names
from .table import TABLE

EXAMPLES = {
    "ja": "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣",
    "en": "Wandering Laika: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword",
}

#: sample swordmasters (test battles by mail, the demo): the legal printed ones of §4.6 and
#: rules/margaret.md §6, and a few Hundred sheets within 10 points
#: a party (精霊剣 without an MP cost builds a wisp every turn, H53): the demo's party entry
PARTY_SAMPLE = "5/0/0/3/精速精衝/精霊使い"

SAMPLES: tuple[str, ...] = (
    "デスエリーナ：5/0/0/3/加速剣、加護剣、加護剣、衝撃剣、衝撃剣、デス剣",
    "紫電：5/0/0/4/加速剣、衝撃剣、加熱剣、衝撃剣、加熱剣",
    "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣",
    "武本吉宏：10/0/0/3/加速剣、加熱剣、加熱剣、加熱剣、重撃剣",
    "10/0/0/4/詠爆詠爆/撃鉄",
    "10/0/0/2/黙黙残デ詠膜/司闇",
    "10/2/0/3/駆盾連舞/舞姫",
    "5/0/0/1/精詠鏡回3膜/精霊使い",
)


def _entry(entry: Any) -> Swordmaster:
    if not isinstance(entry, Swordmaster):
        raise TypeError(f"a Margaret Hundred entry is a Swordmaster, not {type(entry).__name__}")
    return entry


def _result(result: Any) -> HundredResult:
    if not isinstance(result, HundredResult):
        raise TypeError(
            f"a Margaret Hundred result is a HundredResult, not {type(result).__name__}"
        )
    return result


def _fighter(s: SmState, shown: str) -> Fighter:
    detail = {
        "id": s.sm,
        "display_name": shown,
        "base_registered": s.base,
        "atk": s.atk,
        "def": s.df,
        "spd": s.spd,
        "swords": list(s.swords),
        "statuses": dict(s.statuses),
    }
    return Fighter(s.name, s.hp, s.max_hp, s.mp, not s.dead and not s.exited, s.exited, detail)


@register
class MargaretHundred(Ruleset):
    """Margaret Hundred 1.6.a (seed 000): 100 swords, MP, builds and parties.

    Args:
        options: league options (``options.py``); ``None`` or ``{}`` for the 1.6.a defaults.

    Raises:
        ValueError: an option is unknown or out of range (the message names it).
    """

    name: ClassVar[str] = "margaret-hundred"
    aliases: ClassVar[tuple[str, ...]] = (
        "hundred",
        "mh",
        "マーガレット・ハンドレッド",
        "ハンドレッド",
    )
    titles: ClassVar[Mapping[str, str]] = {
        "ja": "マーガレット・ハンドレッド",
        "en": "Margaret Hundred",
    }
    engine_version: ClassVar[str] = ENGINE_VERSION
    party: ClassVar[bool] = True

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self._opts: Options = parse_options(options)

    @property
    def settings(self) -> Options:
        """The validated options as an :class:`~.options.Options` record."""
        return self._opts

    @property
    def options(self) -> dict[str, Any]:
        """Every option, normalized and JSON-ready (defaults included)."""
        return self._opts.to_json()

    def describe(self, lang: str) -> list[str]:
        """The §12.10 record: pool, budget and costs, MP table, party cap, procedure limit,
        Heaven's Door policy (every report header, ``league show``)."""
        return describe(self._opts, lang)

    # -- sheets ---------------------------------------------------------------------------------

    def parse_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """Read and validate a sheet against the league options (``notation.parse_sheet``)."""
        r = notation.parse_sheet(
            text if isinstance(text, str) else "", options=self._opts, lang=lang
        )
        return Sheet(self.name, r.entry, r.problems, r.lang, r.name)

    def format_sheet(self, entry: Any, lang: str | None = None) -> str:
        """The normalized sheet, in the notation it was written in."""
        return notation.format_sheet(_entry(entry), lang)

    def format_costs(self, entry: Any, lang: str | None = None) -> str:
        """The point breakdown against the league's budget and cost table (H1)."""
        m = _entry(entry)
        return notation.format_costs(m, self._opts, lang or m.lang)

    def format_problems(self, problems: Sequence[ProblemLike], lang: str) -> str:
        """One block per problem: line, quote, rule and fix."""
        return format_problems(problems, lang)

    def label(self, entry: Any) -> str:
        """The swordmaster's name (its sheet line when it has none)."""
        m = _entry(entry)
        return m.name or notation.format_sheet(m).split("\n")[0]

    def starts_sheet(self, line: str) -> bool:
        """True for a swordmaster line in either notation with HP/ATK/DEF/SPD's slashes
        (``base.has_stat_slashes``; linear in ``len(line)``)."""
        return (
            isinstance(line, str) and notation.is_swordmaster_line(line) and has_stat_slashes(line)
        )

    def greeting_lines(self, text: str) -> int:
        """Lines above the swordmaster line, blank ones included (the mail layer blanks them),
        unless a 剣技 line stands there (then it belongs to the sheet: 0)."""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if self.starts_sheet(line):
                above = (line_content(x) for x in lines[:i])
                return 0 if any(s and SKILL_LINE.fullmatch(s) for s in above) else i
        return 0

    def recognizes(self, text: str) -> bool:
        """True when ``text`` holds a swordmaster line whose swords all read as Hundred codes or
        names and no other line that is not the 剣技 line. A base Margaret sheet is a Hundred
        sheet of the basic pool and is recognized too (a guess that counts votes prefers base
        Margaret, earlier in ``RULESET_MODULES``); a THEKI line or an Amaryllis sheet with its
        action lines is not."""
        if not isinstance(text, str) or len(text) > 1_000_000:
            return False
        read = read_sheet(text, TABLE)
        if read.master is None:
            return False
        bad = {"unknown-code", "unknown-sword", "extra-line", "theki-notation"}
        return not any(p.code in bad for p in read.pending)

    def example_sheet(self, lang: str) -> str:
        """徘徊するライカ in ``lang``'s full form."""
        return EXAMPLES["ja" if lang == "ja" else "en"]

    def sample_sheets(self) -> list[str]:
        """Sample sheets that are valid under this league's options."""
        return [s for s in SAMPLES if self.parse_sheet(s).ok] or [self.example_sheet("ja")]

    def random_entry(self, rng: RandomSource, name: str | None = None) -> Swordmaster:
        """A random valid swordmaster of this league's pool, budget and costs
        (``generate.random_swordmaster``)."""
        return random_swordmaster(rng, self._opts, name=name)

    # -- battles --------------------------------------------------------------------------------

    def battle(self, a: Any, b: Any, *, log: bool = True) -> HundredResult:
        """``engine.battle`` under the league options (§8)."""
        return battle(_entry(a), _entry(b), log=log, options=self._opts)

    def outcome(self, result: Any) -> Outcome:
        """The generic outcome: termination = the §8.12 reason, ``by`` the judge, ``margin``
        side A's judge total over side B's (HP sums; for the overkill judge B's overkill minus
        A's), the final parties, and the judge totals, Push, Heaven's Door request in
        ``detail``."""
        r = _result(result)
        names = display_names(r.roster, "en")
        final = tuple(tuple(_fighter(s, names[(s.side, s.sm)]) for s in side) for side in r.final)
        ta, tb = r.totals
        margin = tb - ta if r.by == "overkill" else ta - tb
        return Outcome(
            r.winner, r.reason, r.turns, margin, (final[0], final[1]), r.by, self._detail(r)
        )

    def demo_options(self) -> dict[str, Any]:
        """A party cap of 4, so the demo's report headers print a non-default record."""
        return {"party_cap": 4}

    def demo_sheets(self) -> list[str]:
        """Seven sample swordmasters and a party (精霊剣 without an MP cost builds a wisp
        every turn, H53)."""
        return [*self.sample_sheets()[:7], PARTY_SAMPLE]

    def rewrite_request(self, outcome: Outcome) -> tuple[int, int] | None:
        """The Heaven's Door request of ``outcome`` (H58), ``(side rewritten, side whose
        registered swordmaster it takes)``; ``None`` without one or under the ``ignore``
        policy."""
        hd = outcome.detail.get("heavens_door") if outcome.detail else None
        if not isinstance(hd, Mapping) or self._opts.heavens_door == "ignore":
            return None
        return "AB".index(str(hd["rewrite"])), "AB".index(str(hd["with"]))

    def without_rewrites(self) -> MargaretHundred:
        """This ruleset under the ``ignore`` Heaven's Door policy (a league that plays no later
        battle to rewrite, H58): the record says so and outcomes carry no request."""
        if self._opts.heavens_door == "ignore":
            return self
        return MargaretHundred({**self.options, "heavens_door": "ignore"})

    def winner_and_margin(self, result: Any) -> tuple[int | None, int]:
        """``(winner, margin)`` of :meth:`outcome`, without building the final parties."""
        r = _result(result)
        ta, tb = r.totals
        return r.winner, (tb - ta if r.by == "overkill" else ta - tb)

    def _detail(self, r: HundredResult) -> dict[str, Any]:
        hd = None
        if r.heavens_door is not None and self._opts.heavens_door != "ignore":
            hd = {
                "rewrite": "AB"[r.heavens_door],
                "with": "AB"[1 - r.heavens_door],
                "policy": self._opts.heavens_door,
            }
        return {
            "totals": {"A": r.totals[0], "B": r.totals[1]},
            "push": {"A": r.push[0], "B": r.push[1]},
            "heavens_door": hd,
            "where": r.where,
            "procedures": r.procedures,
            "max_turn_procedures": r.max_turn_procedures,
            "limit_hits": r.limit_hits,
        }

    def result_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """The ``battle --json`` object of §8.12: ``winner`` (``"A"``/``"B"``/``None``),
        ``reason``, ``turns``, ``by``, ``final.A``/``final.B`` (lists: present front first, then
        exited in exit order; each with ``name``, ``hp``, ``max_hp``, ``mp``, ``alive``,
        ``exited`` and more), the judge totals, Push, the Heaven's Door request, the options,
        and ``events`` when asked."""
        r = _result(result)
        oc = self.outcome(r)
        out: dict[str, Any] = {
            "ruleset": self.name,
            "engine_version": ENGINE_VERSION,
            "winner": None if r.winner is None else "AB"[r.winner],
            "reason": r.reason,
            "turns": r.turns,
            "by": r.by,
            "final": {
                "A": [f.to_json() for f in oc.final[0]],
                "B": [f.to_json() for f in oc.final[1]],
            },
            **self._detail(r),
            "options": self.options,
        }
        if events:
            out["events"] = [event_json(e) for e in r.events]
        return out

    def report(self, a: Any, b: Any, result: Any, *, lang: str) -> BattleReport:
        """The report of §12.12 with the ruleset record as header. Raises ``ValueError`` for a
        result without a log."""
        ma, mb, r = _entry(a), _entry(b), _result(result)
        return build_report(
            r,
            self.outcome(r),
            lang=lang,
            header=tuple(self.describe(lang)),
            sheets=(notation.format_sheet(ma, lang), notation.format_sheet(mb, lang)),
            hd_policy=self._opts.heavens_door,
        )
