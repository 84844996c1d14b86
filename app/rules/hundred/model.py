"""Value types of a Margaret Hundred entry, and the direct construction API.

Source: ``shared/rules/margaret-hundred.md`` §3 (building, parameters) and §4 (the codes). An entry
is a :class:`Swordmaster`: immutable, hashable and picklable, with its swords as :class:`Sword`
values (a code plus N for the parametrised swords). No parsing of whole sheets here (see
``notation.py``): only :func:`read_codes`, a strict reader of a compact code string, used by the
construction API, the build specs and the sheet parser.

>>> m = swordmaster("デスエリーナ", 5, 0, 0, 3, "速護護衝衝デ")
>>> m.swords[0], len(m.swords), m.points
(Sword(code='速', n=None), 6, 10)
>>> swordmaster("X", 10, 0, 0, 1, "回3遅.19ｺｳ死").swords
(Sword(code='回', n=3), Sword(code='遅', n=19), Sword(code='ｺｳ', n=None), Sword(code='デ', n=None))
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from .swords import CODES, SwordDef


class Sword(NamedTuple):
    """One sword on a sheet: its canonical code (``swords.BY_CODE``) and N (``None`` unless the
    sword is parametrised, §3.2)."""

    code: str
    n: int | None = None


@dataclass(frozen=True, slots=True)
class Swordmaster:
    """A registered swordmaster (§3): one sheet, one line.

    Attributes:
        name: its name ("" when the compact form gave none).
        hp: HP in HP points (5 per budget point); ``atk``, ``defense``, ``spd``: ability values.
        swords: the sword list in priority order.
        skill: the stated 剣技 (``rules/margaret.md`` M2), or ``None``.
        lang: ``"ja"`` or ``"en"``: the notation it was written in (not part of equality).
        notation: ``"compact"`` or ``"full"``: the form it was written in (``format_sheet`` prints
            it back the same way; not part of equality).
    """

    name: str
    hp: int
    atk: int
    defense: int
    spd: int
    swords: tuple[Sword, ...] = ()
    skill: int | None = None
    lang: str = field(default="ja", compare=False)
    notation: str = field(default="compact", compare=False)

    @property
    def points(self) -> int:
        """HP/5 + ATK + DEF + SPD + one point per sword (the default cost table, H1)."""
        return self.hp // 5 + self.atk + self.defense + self.spd + len(self.swords)


# longest codes first so that the reader is greedy (ｺｳ/コウ are the only multi-character codes)
_CODE_KEYS = sorted(CODES, key=len, reverse=True)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def read_codes(text: str) -> tuple[Sword, ...]:
    """The swords of a compact code string (``速護護衝衝デ``, ``回3遅.19``), read left to right.

    Parameters are the digits right after a parametrised code, greedily (``回12`` = 回復剣12);
    遅延剣 needs its dot (``遅.19``, H60). Half- and full-width forms are the same (NFKC).

    Raises:
        ValueError: an unknown code, a missing N, N below its minimum, or ``遅`` without the dot
            (the message names the position). The sheet parser reports the same cases as
            problems instead.
    """
    s = _nfkc(text)
    out: list[Sword] = []
    i = 0
    while i < len(s):
        if s[i].isspace():
            i += 1
            continue
        d: SwordDef | None = None
        for key in _CODE_KEYS:
            k = _nfkc(key)
            if s.startswith(k, i):
                d = CODES[key]
                i += len(k)
                break
        if d is None:
            raise ValueError(f"unknown sword code {s[i]!r} at position {i + 1} of {text!r}")
        n: int | None = None
        if d.param is not None:
            if d.period:
                if i >= len(s) or s[i] != ".":
                    raise ValueError(f"{d.code} needs a dot and N ({d.code}.19) in {text!r}")
                i += 1
            j = i
            while j < len(s) and s[j].isdigit() and s[j].isascii():
                j += 1
            if j == i:
                raise ValueError(f"{d.code} needs N (e.g. {d.compact(max(d.param, 1))}) in "
                                 f"{text!r}")
            n = int(s[i:j])
            if n < d.param:
                raise ValueError(f"N of {d.code} must be at least {d.param} in {text!r}")
            i = j
        out.append(Sword(d.code, n))
    return tuple(out)


def swordmaster(name: str, hp: int, atk: int, defense: int, spd: int,
                swords: str | tuple[Sword, ...] = (), *, lang: str = "ja",
                notation: str = "compact") -> Swordmaster:
    """Build a :class:`Swordmaster` directly (tests, build specs): ``swords`` is a compact code
    string (:func:`read_codes`) or a tuple of :class:`Sword`. No budget check: the sheet check
    applies the league's budget (``notation.parse_sheet``)."""
    seq = read_codes(swords) if isinstance(swords, str) else tuple(swords)
    return Swordmaster(name, hp, atk, defense, spd, seq, None, lang, notation)


def parse_spec(spec: str) -> Swordmaster:
    """A compact ``HP/ATK/DEF/SPD/codes/name`` line as a :class:`Swordmaster` (build specs,
    tests). Raises ``ValueError`` on anything else; sheets go through ``notation.parse_sheet``."""
    parts = spec.split("/", 5)
    if len(parts) < 5:
        raise ValueError(f"not a compact spec: {spec!r}")
    hp, atk, df, spd = (int(x) for x in parts[:4])
    return swordmaster(parts[5] if len(parts) > 5 else "", hp, atk, df, spd, parts[4])
