"""The entry of Margaret Hundred, and the direct construction API.

The entry is base Margaret's :class:`~app.rules.margaret.model.Swordmaster` with its swords as
:class:`~app.rules.margaret.model.Sword` values (a code plus N for the parametrised swords,
``rules/margaret-hundred.md`` §3.2), read over the Hundred table (``table.TABLE``). Immutable,
hashable and picklable. ``skill`` is 剣技: stated on the sheet (``skill_explicit``) or what the
budget leaves after HP/5 + ATK + DEF + SPD (M1); the engine does not read it.

The construction API builds swordmasters without a sheet (tests, the build specs of §4.6):

>>> m = swordmaster("デスエリーナ", 5, 0, 0, 3, "速護護衝衝デ")
>>> m.swords[0], len(m.swords)
(Sword(code='速', n=None), 6)
>>> swordmaster("X", 10, 0, 0, 1, "回3遅.19ｺｳ死").swords
(Sword(code='回', n=3), Sword(code='遅', n=19), Sword(code='ｺｳ', n=None), Sword(code='デ', n=None))
"""

from __future__ import annotations

from app.rules.margaret.model import Sword, Swordmaster

from .table import TABLE

__all__ = ["Sword", "Swordmaster", "parse_spec", "read_codes", "swordmaster"]


def read_codes(text: str) -> tuple[Sword, ...]:
    """The swords of a compact code string (``速護護衝衝デ``, ``回3遅.19``), read by the Hundred
    table left to right (M7, H60: parameters greedy, 遅延剣's dot required).

    Raises:
        ValueError: an unknown code, a missing N or N below its minimum (the sheet parser
            reports the same cases as problems instead).
    """
    out: list[Sword] = []
    for token in TABLE.read_codes(text):
        spec = token.spec
        if spec is None:
            raise ValueError(f"unknown sword code {token.text!r} in {text!r}")
        if spec.param is None:
            out.append(Sword(spec.code))
            continue
        if token.n is None:
            raise ValueError(f"{spec.code} needs N (e.g. {spec.code}{spec.param_sep}3) in {text!r}")
        if token.n < spec.param:
            raise ValueError(f"N of {spec.code} must be at least {spec.param} in {text!r}")
        out.append(Sword(spec.code, token.n))
    return tuple(out)


def swordmaster(
    name: str,
    hp: int,
    atk: int,
    defense: int,
    spd: int,
    swords: str | tuple[Sword, ...] = (),
    *,
    lang: str = "ja",
    notation: str = "compact",
) -> Swordmaster:
    """A :class:`Swordmaster` built directly: ``swords`` is a compact code string
    (:func:`read_codes`) or a tuple of :class:`Sword`. 剣技 is the number of swords; no budget
    is checked (the sheet check applies the league's)."""
    seq = read_codes(swords) if isinstance(swords, str) else tuple(swords)
    return Swordmaster(name, hp, atk, defense, spd, len(seq), seq, False, notation, lang)


def parse_spec(spec: str) -> Swordmaster:
    """A compact ``HP/ATK/DEF/SPD/codes/name`` line as a :class:`Swordmaster` (build specs,
    tests). Raises ``ValueError`` on anything else; sheets go through ``notation.parse_sheet``."""
    parts = spec.split("/", 5)
    if len(parts) < 5:
        raise ValueError(f"not a compact spec: {spec!r}")
    hp, atk, df, spd = (int(x) for x in parts[:4])
    return swordmaster(parts[5] if len(parts) > 5 else "", hp, atk, df, spd, parts[4])
