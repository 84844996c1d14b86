"""Sword tables: the swords a Margaret-family ruleset knows, as data (code, names, tags, parameter).

A :class:`SwordSpec` is one row of the seed's sword list (``000_8957c91aee815565.txt``,
剣リスト): its printed code, its Japanese name, this project's English name, its kind and its
timing/cost tags exactly as the seed writes them, and its parameter N if it takes one. A
:class:`SwordTable` is a list of them with the lookups the notation needs (by code, by name,
reading a code string left to right). :data:`BASIC` is base Margaret's 15 swords
(``rules/margaret.md`` §2); Margaret Hundred's table starts with the same 15
(``rules/margaret-hundred.md`` §4.1) and adds its own rows.

Matching is on normalized text (``app.rules.amaryllis.vocab.normalize``: NFKC plus the family's
explicit mappings), so a code or name may be written in any width.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from app.rules.amaryllis.vocab import key, normalize

from .model import Sword

KINDS: dict[str, str] = {
    "攻": "attack",
    "補": "support",
    "制": "control",
    "追": "addition",
    "構": "construction",
    "環": "environment",
}
"""The kind tags of the seed's glossary (<攻> = <攻撃> …) and their English identifiers."""

_DELAY = re.compile(r"遅延([0-9]+|N)")
_TRAILING_DIGITS = re.compile(r"(.*?)([0-9]+)")


@dataclass(frozen=True, slots=True)
class SwordSpec:
    """One sword of a table (one row of the seed's 剣リスト).

    Attributes:
        code: the code as printed (``斬``, ``デ``, ``回``); for a parametrised sword the part
            before N (``回`` of ``回3``).
        ja: the Japanese name, without N for a parametrised sword (``回復剣`` of ``回復剣3``).
        en: this project's English name, without N (``Heal Sword`` of ``Heal Sword 3``).
        kind: the kind tag (a key of :data:`KINDS`: ``攻`` attack, ``補`` support, …).
        tags: the timing and cost tags as the seed writes them, without brackets: ``高速``,
            ``遅延4``, ``遅延N`` (delay N = the parameter), ``リミ`` (Limited), ``ピリN``, ….
        param: the smallest allowed N for a parametrised sword (回N: 1), ``None`` when the sword
            takes no parameter.
        codes: further codes accepted on input and printed as ``code`` (``死`` for デス剣).
        param_sep: what stands between the code or name and N (``""``; Hundred's 遅延剣.N: ``.``).
        changes_ap: True for a sword that changes its swordmaster's AP or SPD (加速剣): the
            "あいざわ病" heuristic does not count it among the swords that use up the AP.
    """

    code: str
    ja: str
    en: str
    kind: str
    tags: tuple[str, ...] = ()
    param: int | None = None
    codes: tuple[str, ...] = ()
    param_sep: str = ""
    changes_ap: bool = False

    @property
    def kind_id(self) -> str:
        """``attack``, ``support``, … (:data:`KINDS`)."""
        return KINDS[self.kind]

    @property
    def limited(self) -> bool:
        """<リミ>: the sword vanishes once executed."""
        return "リミ" in self.tags

    @property
    def quick(self) -> bool:
        """<高速>: usable from turn 0."""
        return "高速" in self.tags

    def delay(self, n: int | None = None) -> int | None:
        """The x of <遅延x> (with ``遅延N`` the parameter ``n``), or ``None`` without the tag."""
        for tag in self.tags:
            m = _DELAY.fullmatch(tag)
            if m:
                return n if m.group(1) == "N" else int(m.group(1))
        return None

    def start_turn(self, n: int | None = None) -> int:
        """The first turn in which the sword is usable: 0 with <高速>, x with <遅延x>, else 1
        (``rules/margaret.md`` §2.1; <遅延1> is turn 1, the default)."""
        if self.quick:
            return 0
        delay = self.delay(n)
        return delay if delay is not None and delay > 1 else 1


def _digits(text: str, at: int) -> int:
    end = at
    while end < len(text) and "0" <= text[end] <= "9":
        end += 1
    return end


@dataclass(frozen=True, slots=True)
class CodeToken:
    """One item read from a code string (:meth:`SwordTable.read_codes`).

    ``spec`` is ``None`` for an unknown character (``text`` holds it); ``n`` is the parameter
    (``None`` when the sword takes none or when its digits are missing); ``digits`` the digits
    as written (``""`` when missing).
    """

    text: str
    spec: SwordSpec | None
    n: int | None = None
    digits: str = ""


class SwordTable:
    """An ordered, immutable table of swords with the lookups of the notation.

    ``swords`` are the rows in the order of the rules' list; codes and names (both languages)
    must be unique after normalization. Raises ``ValueError`` on a clash.
    """

    __slots__ = ("name", "swords", "_by_code", "_by_key", "_by_param_key", "_max_code", "_printed")

    def __init__(self, name: str, swords: Sequence[SwordSpec]) -> None:
        self.name = name
        self.swords: tuple[SwordSpec, ...] = tuple(swords)
        self._by_code: dict[str, SwordSpec] = {}
        self._by_key: dict[str, tuple[SwordSpec, str]] = {}
        self._by_param_key: dict[str, tuple[SwordSpec, str]] = {}
        for spec in self.swords:
            for code in (spec.code, *spec.codes):
                norm = normalize(code)
                if norm in self._by_code:
                    raise ValueError(f"code {code!r} is used twice in {name}")
                self._by_code[norm] = spec
            for word, lang in ((spec.ja, "ja"), (spec.en, "en")):
                k = key(word)
                if k in self._by_key:
                    raise ValueError(f"sword name {word!r} is used twice in {name}")
                self._by_key[k] = (spec, lang)
                if spec.param is not None:
                    self._by_param_key[k + key(spec.param_sep)] = (spec, lang)
        self._max_code = max((len(c) for c in self._by_code), default=1)
        self._printed = frozenset(spec.code for spec in self.swords)

    def __iter__(self) -> Iterator[SwordSpec]:
        return iter(self.swords)

    def __len__(self) -> int:
        return len(self.swords)

    def __contains__(self, sword: object) -> bool:
        return isinstance(sword, Sword) and sword.code in self._printed

    def spec(self, sword: Sword) -> SwordSpec:
        """The row of ``sword`` (by its printed code). Raises ``KeyError`` for another table's."""
        spec = self._by_code.get(normalize(sword.code))
        if spec is None or spec.code != sword.code:
            raise KeyError(sword.code)
        return spec

    def by_code(self, code: str) -> SwordSpec | None:
        """The row whose code (or extra code) is ``code`` after normalization, or ``None``."""
        return self._by_code.get(normalize(code))

    def code(self, sword: Sword) -> str:
        """``sword`` as written in a code string: ``斬``, ``回3``."""
        spec = self.spec(sword)
        return spec.code if sword.n is None else f"{spec.code}{spec.param_sep}{sword.n}"

    def sword_name(self, sword: Sword, lang: str) -> str:
        """``sword``'s name in ``lang``: ``回復剣3`` / ``Heal Sword 3``."""
        spec = self.spec(sword)
        base = spec.ja if lang == "ja" else spec.en
        if sword.n is None:
            return base
        if spec.param_sep:
            return f"{base}{spec.param_sep}{sword.n}"
        return f"{base}{sword.n}" if lang == "ja" else f"{base} {sword.n}"

    def by_name(self, text: str) -> tuple[SwordSpec, str, str] | None:
        """Read one sword name (``斬撃剣``, ``回復剣3``, ``Heal Sword 3``, any width or case).

        Returns ``(spec, digits, lang)``: ``digits`` the parameter as written (``""`` when
        missing; always ``""`` for a sword without parameter) and ``lang`` the language of the
        name; ``None`` when ``text`` names no sword of the table.
        """
        k = key(text)
        hit = self._by_key.get(k)
        if hit is not None:
            return hit[0], "", hit[1]
        m = _TRAILING_DIGITS.fullmatch(k)
        if m:
            hit = self._by_param_key.get(m.group(1))
            if hit is not None:
                return hit[0], m.group(2), hit[1]
        return None

    def read_codes(self, text: str) -> list[CodeToken]:
        """Read a code string left to right (``rules/margaret.md`` M7): at each place the
        longest code of the table; a parametrised code takes the run of digits after it
        (greedily, after ``param_sep``); whitespace is skipped; any other character is an
        unknown token. Linear in ``len(text)`` (codes are short)."""
        s = normalize(text)
        out: list[CodeToken] = []
        i = 0
        while i < len(s):
            if s[i].isspace():
                i += 1
                continue
            spec = None
            for width in range(min(self._max_code, len(s) - i), 0, -1):
                spec = self._by_code.get(s[i : i + width])
                if spec is not None:
                    break
            if spec is None:
                out.append(CodeToken(s[i], None))
                i += 1
                continue
            start = i
            i += width
            if spec.param is None:
                out.append(CodeToken(s[start:i], spec))
                continue
            at = i + len(spec.param_sep)
            if s.startswith(spec.param_sep, i) and at < len(s) and s[at].isdigit():
                end = _digits(s, at)
                digits = s[at:end]
                i = end
                n = int(digits) if len(digits) <= 6 else None
                out.append(CodeToken(s[start:i], spec, n, digits))
            else:
                out.append(CodeToken(s[start:i], spec))
        return out

    def codes_text(self, sep: str = " ") -> str:
        """Every code, parameters as N, for messages: ``斬 高 重 … 回N``."""
        return sep.join(
            s.code + (s.param_sep + "N" if s.param is not None else "") for s in self.swords
        )

    def names_text(self, lang: str) -> str:
        """Every name in ``lang``, parameters as N: ``斬撃剣、…、回復剣N``."""
        sep = "、" if lang == "ja" else ", "
        out = []
        for s in self.swords:
            base = s.ja if lang == "ja" else s.en
            if s.param is not None:
                base += s.param_sep + ("N" if lang == "ja" or s.param_sep else " N")
            out.append(base)
        return sep.join(out)

    def names(self) -> Iterable[str]:
        """Every name of every sword in both languages (for suggestions)."""
        for s in self.swords:
            yield s.ja
            yield s.en


BASIC = SwordTable(
    "margaret",
    (
        # code, name, kind and tags from the seed's 剣リスト（ベーシック） (rules/margaret.md §2.2)
        SwordSpec("斬", "斬撃剣", "Slash Sword", "攻"),
        SwordSpec("高", "高速剣", "Swift Sword", "攻", ("高速", "リミ")),
        SwordSpec("重", "重撃剣", "Heavy Sword", "攻", ("遅延4",)),
        SwordSpec("衝", "衝撃剣", "Shock Sword", "攻", ("遅延2",)),
        SwordSpec("毒", "蟲毒剣", "Venom Sword", "攻", ("リミ",)),
        SwordSpec("絶", "絶対剣", "Absolute Sword", "攻", ("遅延3",)),
        SwordSpec("魔", "魔法剣", "Magic Sword", "攻", ("遅延2", "リミ")),
        SwordSpec("デ", "デス剣", "Death Sword", "攻", ("遅延6", "リミ"), codes=("死",)),  # M4
        SwordSpec("熱", "加熱剣", "Heat Sword", "補"),
        SwordSpec("護", "加護剣", "Ward Sword", "補"),
        SwordSpec("速", "加速剣", "Haste Sword", "補", changes_ap=True),
        SwordSpec("盾", "盾の剣", "Shield Sword", "補"),
        SwordSpec("鏡", "鏡の剣", "Mirror Sword", "補", ("遅延2", "リミ")),
        SwordSpec("命", "命の剣", "Life Sword", "補", ("リミ",)),
        SwordSpec("回", "回復剣", "Heal Sword", "補", ("遅延N", "リミ"), param=1),  # M5: N >= 1
    ),
)
"""Base Margaret's 15 swords, in the seed's order (``rules/margaret.md`` §2.2)."""
