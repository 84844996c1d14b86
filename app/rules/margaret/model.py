"""Value types of base Margaret: a sword as carried, and a swordmaster (剣師).

Source: ``rules/margaret.md`` §1. Both are immutable, hashable and picklable; they carry no
parsing (``notation``) and no battle state (the Amaryllis engine runs the battle, ``compile``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

NOTATIONS = ("full", "compact")
"""The two ways to write a swordmaster (``rules/margaret.md`` §4.1, §4.2)."""


class Sword(NamedTuple):
    """One sword in a swordmaster's list (a named tuple: hashing and comparing it costs little,
    and leagues compare swordmasters often).

    Attributes:
        code: the code as printed by its table (``斬``, ``デ`` also for ``死``, ``回``).
        n: the parameter N of a parametrised sword (回N), else ``None``.
    """

    code: str
    n: int | None = None


@dataclass(frozen=True, slots=True)
class Swordmaster:
    """A swordmaster as built on a sheet (``rules/margaret.md`` §1, M1, M2).

    Attributes:
        name: the name, normalized (NFKC, trimmed, single spaces); ``""`` for a compact line
            without a name (M7).
        hp, atk, defense, spd: ability values (HP in HP points, 5 per bonus point).
        skill: 剣技, the number of swords it may carry: stated (M2) or 10 − HP/5 − ATK − DEF −
            SPD (M1).
        swords: the sword list in priority order (M3), one entry per sword carried.
        skill_explicit: True when the sheet stated 剣技 on its own line.
        notation: ``"full"`` or ``"compact"``, how the sheet wrote it (printing default; not part
            of equality).
        lang: ``"ja"`` or ``"en"``, the sheet's language (not part of equality).
    """

    name: str
    hp: int
    atk: int
    defense: int
    spd: int
    skill: int
    swords: tuple[Sword, ...] = ()
    skill_explicit: bool = False
    notation: str = field(default="full", compare=False)
    lang: str = field(default="ja", compare=False)

    @property
    def points(self) -> int:
        """HP/5 + ATK + DEF + SPD + 剣技: 10 on a valid sheet."""
        return self.hp // 5 + self.atk + self.defense + self.spd + self.skill
