"""The sheet notation: parse a sheet into a ``Unit`` and print units and states back. Rules §1.3, §3.

Japanese (the seed's notation)::

    グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト
    技術４
    ・シールド（１）：防御力＋２＜リミテッド＞
    ・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞
    ・ブースト（１）：攻撃力＋１

English (this project's notation, ``docs/sheets.md``)::

    Grisk: 10/1/1/2/Shield, Spear, Spear, Boost
    TECH 4
    - Shield (1): DEF+2 <Limited>
    - Spear (1): Direct Attack <Delay 4> <Effect x2>
    - Boost (1): ATK+1

``parse_sheet`` never raises for any string: everything wrong comes back as ``Problem`` records
(every problem at once, each with its line, quote, rule section and fix, in the sheet's language).
``format_sheet`` prints the normalized notation, and ``parse_sheet(format_sheet(u)).unit == u``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .costtext import format_costs
from .events import UnitState
from .lexer import BULLETS, lex
from .model import Action, Unit
from .problems import Problem, format_problems, make_problem
from .validate import validate
from .vocab import STATUS_NAMES, class_name, custom_name, normalize_name, num

__all__ = [
    "SheetError",
    "SheetResult",
    "format_costs",
    "format_problems",
    "format_sheet",
    "format_state",
    "greeting_lines",
    "parse_sheet",
    "parse_unit",
    "valid_name",
]


@dataclass(frozen=True, slots=True)
class SheetResult:
    """The outcome of reading a sheet (``docs/contracts.md``).

    Attributes:
        unit: the unit, or ``None`` when there is any error.
        problems: every problem found (errors and warnings), in line order.
        lang: ``"ja"`` or ``"en"``: the language of the messages (the sheet's notation unless
            overridden).
        name: the unit's name as written on the unit line (normalized), also when the sheet
            has errors; ``""`` when there is no readable unit line.
    """

    unit: Unit | None
    problems: list[Problem] = field(default_factory=list)
    lang: str = "ja"
    name: str = ""

    @property
    def errors(self) -> list[Problem]:
        """The problems that reject the sheet."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        """The problems that do not reject the sheet (e.g. an action defined but not set)."""
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error (``unit`` is then set)."""
        return self.unit is not None and not self.errors


class SheetError(ValueError):
    """A sheet that does not validate; ``problems`` lists every problem (see ``parse_unit``)."""

    def __init__(self, result: SheetResult) -> None:
        self.result = result
        self.problems = result.problems
        first = result.errors[0] if result.errors else None
        super().__init__(
            f"{len(result.errors)} error(s); first: line {first.line}: {first.message}"
            if first
            else "invalid sheet"
        )


def parse_sheet(text: str, *, lang: str | None = None, default_lang: str = "ja") -> SheetResult:
    """Read and validate a sheet (rules §1). Never raises for a ``str``.

    Args:
        text: the sheet text (any size; more than ``lexer.MAX_CHARS`` characters or
            ``lexer.MAX_LINES`` non-blank lines is reported, not read).
        lang: write the messages in this language instead of the sheet's.
        default_lang: the language when the sheet gives no clue (empty text, junk).

    Returns:
        A :class:`SheetResult`. Problems are sorted by line (sheet-wide ones first).

    Raises:
        TypeError: ``text`` is not a ``str``.

    >>> r = parse_sheet("Grisk: 10/1/1/2/Boost\\n- Boost (1): ATK+1")
    >>> r.ok, r.lang, r.unit.tech
    (True, 'en', 4)
    """
    if not isinstance(text, str):
        raise TypeError(f"sheet text must be str, not {type(text).__name__}")
    lexed = lex(text)
    sheet_lang = lexed.lang(default_lang)
    unit, pending = validate(lexed, sheet_lang)
    out_lang = lang or sheet_lang
    problems = [make_problem(p.code, p.line, p.text, out_lang, **p.params) for p in pending]
    problems.sort(key=lambda p: p.line if p.line is not None else 0)
    name = lexed.units[0].name if lexed.units else ""
    return SheetResult(unit=unit, problems=problems, lang=out_lang, name=name)


def greeting_lines(text: str) -> int:
    """How many lines at the start of ``text`` stand before its unit line and hold nothing of a
    sheet: no TECH line, no action line with a known class (a greeting above the sheet in a mail
    body, even one with a colon such as "Hi: 2 questions first").

    Returns 0 when the unit line comes first, when there is no unit line, or when a sheet line
    stands before the unit line (then those lines belong to the sheet and are validated). The mail
    layer blanks these lines, so that line numbers in problems still match the mail.
    """
    lexed = lex(text)
    if not lexed.units:
        return 0
    first = lexed.units[0].line
    # an action line whose class cannot be read ("Thanks! Here is my sheet:") is prose here
    if any(a.line < first and a.cls is not None for a in lexed.actions) or any(
        t[0] < first for t in lexed.techs
    ):
        return 0
    return first - 1


def parse_unit(text: str) -> Unit:
    """The unit of a valid sheet; raises :class:`SheetError` (a ``ValueError``) otherwise."""
    result = parse_sheet(text)
    if result.unit is None:
        raise SheetError(result)
    return result.unit


_NUMERIC = re.compile(r"[+-]?[0-9]+")
_FORBIDDEN = set(":/,()<>")


def valid_name(name: str) -> bool:
    """True when ``name`` can be written on a sheet and read back unchanged (rules §1.3).

    A name is in normalized form (NFKC, trimmed, single spaces), is not empty, holds none of
    ``: / , ( ) < >`` (nor their full-width forms, which normalize to them), no control
    characters, does not start with a bullet, ``#`` or ``//``, and is not a bare number.
    """
    if not name or name != normalize_name(name) or _NUMERIC.fullmatch(name):
        return False
    if name[0] in BULLETS or name[0] == "#" or name.startswith("//"):
        return False
    if any(c in _FORBIDDEN or ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in name):
        return False
    return name.lower() not in ("tech", "技術")


def _customs(action: Action, lang: str) -> list[str]:
    out: list[str] = []
    if action.limited:
        out.append(custom_name("limited", None, lang))
    if action.delay is not None:
        out.append(custom_name("delay", action.delay, lang))
    if action.quick:
        out.append(custom_name("quick", None, lang))
    if action.effect is not None:
        out.append(custom_name("effect", action.effect, lang))
    out += [custom_name("stun", None, lang)] * action.stun
    out += [custom_name("poison", None, lang)] * action.poison
    return out


@functools.lru_cache(maxsize=1024)  # pure; a league prints each unit's sheet in ~200 reports
def format_sheet(unit: Unit, lang: str | None = None) -> str:
    """The normalized notation of ``unit`` in ``lang`` (default ``unit.lang``). Rules §1.3.

    The unit line, a TECH line when the sheet stated TECH (``unit.tech_explicit``), then one line
    per defined action with its computed cost. Japanese uses full-width digits and punctuation.

    >>> print(format_sheet(parse_unit("Grisk: 10/1/1/2/Boost\\n- Boost: ATK+1"), "ja"))
    Grisk：１０／１／１／２／Boost
    ・Boost（１）：攻撃力＋１
    """
    from .costs import action_cost

    lang = lang or unit.lang
    stats = (unit.hp, unit.atk, unit.defense, unit.spd)
    names = [a.name for a in unit.loadout]
    if lang == "ja":
        line = f"{unit.name}：" + "／".join(num(v, lang) for v in stats)
        if names:
            line += "／" + "、".join(names)
        lines = [line]
        if unit.tech_explicit:
            lines.append(f"技術{num(unit.tech, lang)}")
        for a in unit.definitions:
            customs = "".join(f"＜{c}＞" for c in _customs(a, lang))
            lines.append(
                f"・{a.name}（{num(action_cost(a), lang)}）："
                f"{class_name(a.cls, a.n, lang)}{customs}"
            )
    else:
        line = f"{unit.name}: " + "/".join(str(v) for v in stats)
        if names:
            line += "/" + ", ".join(names)
        lines = [line]
        if unit.tech_explicit:
            lines.append(f"TECH {unit.tech}")
        for a in unit.definitions:
            customs = "".join(f" <{c}>" for c in _customs(a, lang))
            lines.append(f"- {a.name} ({action_cost(a)}): {class_name(a.cls, a.n, lang)}{customs}")
    return "\n".join(lines)


_STATUS_ORDER = ("life", "guard", "reflect", "stun", "poison")


@functools.lru_cache(maxsize=8192)  # pure; quiet turns and every battle repeat states
def format_state(state: UnitState, lang: str) -> str:
    """A state line of a battle report (rules §3, ``docs/contracts.md``).

    ``グリスク：－１／４／３／２／スピア、スピア、ブースト`` or
    ``Nut: 10/3/1/1/Magic Sword, Absolute Sword <Life>``; statuses in the order Life, Guard,
    Reflect, Stun, Poison, with a count when more than one (``＜ライフ＞＜ガード×２＞``,
    ``<Life><Guard x2>``). With no action left the list and its slash are left out.

    >>> from app.rules.amaryllis.events import UnitState
    >>> format_state(UnitState("ヌト", 10, 3, 1, 1, ("魔法剣", "絶対剣"), life=1), "ja")
    'ヌト：１０／３／１／１／魔法剣、絶対剣\\u3000＜ライフ＞'
    """
    stats = (state.hp, state.atk, state.defense, state.spd)
    statuses = []
    for ident in _STATUS_ORDER:
        count = getattr(state, ident)
        if count <= 0:
            continue
        word = STATUS_NAMES[ident][lang]
        if count > 1:
            word += f"×{num(count, lang)}" if lang == "ja" else f" x{count}"
        statuses.append(word)
    if lang == "ja":
        line = f"{state.name}：" + "／".join(num(v, lang) for v in stats)
        if state.actions:
            line += "／" + "、".join(state.actions)
        if statuses:
            line += "\u3000" + "".join(f"＜{s}＞" for s in statuses)
    else:
        line = f"{state.name}: " + "/".join(str(v) for v in stats)
        if state.actions:
            line += "/" + ", ".join(state.actions)
        if statuses:
            line += " " + "".join(f"<{s}>" for s in statuses)
    return line
