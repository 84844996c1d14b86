"""Value types of an Amaryllis unit: action classes, customizations, actions and units.

Source: rules §1 (``shared/rules/amaryllis.md``). All types are immutable and hashable; they carry
no parsing or rendering logic (see ``notation``) and no battle state (see ``engine``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Kind(enum.Enum):
    """Whether an action targets the enemy (attack) or the acting unit (support). Rules §1.1."""

    ATTACK = "attack"
    SUPPORT = "support"


class ActionClass(enum.Enum):
    """The ten action classes of rules §1.1.

    ``value`` is a stable identifier used in JSON and the database. ``base_cost`` is the class cost
    (for the ``+N`` classes the base cost is ``N`` and ``base_cost`` is ``None``).
    """

    DIRECT = "direct"  # 直接攻撃: X = own ATK, damage X - target DEF
    PIERCING = "piercing"  # 防御無視攻撃: X = own ATK, damage X
    HALVING = "halving"  # ＨＰ減殺: X = target's current HP, damage ceil(X / 2)
    ATK_UP = "atk_up"  # 攻撃力＋N
    DEF_UP = "def_up"  # 防御力＋N
    SPD_UP = "spd_up"  # 素早さ＋N
    GUARD = "guard"  # ガード与え
    REFLECT = "reflect"  # 反射与え
    LIFE = "life"  # ライフ与え (must be Limited)
    HEAL = "heal"  # ＨＰ回復 (must be Limited)

    @property
    def kind(self) -> Kind:
        """ATTACK for the three attack classes, SUPPORT otherwise."""
        return Kind.ATTACK if self in _ATTACKS else Kind.SUPPORT

    @property
    def base_cost(self) -> int | None:
        """Base cost in TECH points; ``None`` for ATK+N/DEF+N/SPD+N whose base cost is N."""
        return _BASE_COST[self]

    @property
    def takes_n(self) -> bool:
        """True for ATK+N, DEF+N and SPD+N."""
        return self in _WITH_N

    @property
    def must_be_limited(self) -> bool:
        """True for give Life and full heal (rules §1.1 ＜リミテッド必須＞)."""
        return self in (ActionClass.LIFE, ActionClass.HEAL)


_ATTACKS = frozenset({ActionClass.DIRECT, ActionClass.PIERCING, ActionClass.HALVING})
_WITH_N = frozenset({ActionClass.ATK_UP, ActionClass.DEF_UP, ActionClass.SPD_UP})
_BASE_COST: dict[ActionClass, int | None] = {
    ActionClass.DIRECT: 1,
    ActionClass.PIERCING: 3,
    ActionClass.HALVING: 3,
    ActionClass.ATK_UP: None,
    ActionClass.DEF_UP: None,
    ActionClass.SPD_UP: None,
    ActionClass.GUARD: 1,
    ActionClass.REFLECT: 4,
    ActionClass.LIFE: 2,
    ActionClass.HEAL: 2,
}


@dataclass(frozen=True, slots=True)
class Action:
    """A named, customized action (rules §1.1-§1.2).

    Attributes:
        name: the player's name for it, normalized (NFKC, trimmed).
        cls: the action class.
        n: N of ATK+N/DEF+N/SPD+N (>= 1 when valid), else ``None``.
        limited: リミテッド; removed after one execution; cost ÷2.
        delay: 遅延起動N; usable from turn N (N >= 2); cost ÷N. ``None`` when absent.
        quick: 高速起動; usable from turn 0; cost ×2.
        effect: 効果N倍; attacks only; X ×N; cost ×N². ``None`` when absent.
        stun: number of スタン与え enchantments (each cost ×2, each gives one Stun on >= 1 damage).
        poison: number of 毒与え enchantments (each cost ×2, each gives one Poison on >= 1 damage).
        declared_cost: the cost written on the sheet in brackets, or ``None``.
    """

    name: str
    cls: ActionClass
    n: int | None = None
    limited: bool = False
    delay: int | None = None
    quick: bool = False
    effect: int | None = None
    stun: int = 0
    poison: int = 0
    declared_cost: int | None = field(default=None, compare=False)

    @property
    def kind(self) -> Kind:
        """Attack or support, from the class."""
        return self.cls.kind

    @property
    def start_turn(self) -> int:
        """First turn (0-20) in which the action is usable: 0 if Quick, N if Delay N, else 1."""
        if self.quick:
            return 0
        if self.delay is not None:
            return self.delay
        return 1

    @property
    def multiplier(self) -> int:
        """Effect N, or 1 without 効果N倍."""
        return self.effect if self.effect is not None else 1


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit as built on a sheet (rules §1).

    Attributes:
        name: unit name.
        hp, atk, defense, spd, tech: ability values (HP in HP points, i.e. 5 per bonus point).
        loadout: the actions set on the unit, in list order; one entry per set copy.
        definitions: every action defined on the sheet, in sheet order (a defined action need not
            be set).
        tech_explicit: True when the sheet stated TECH on its own line.
        lang: ``"ja"`` or ``"en"``, the notation the sheet was written in.
    """

    name: str
    hp: int
    atk: int
    defense: int
    spd: int
    tech: int
    loadout: tuple[Action, ...] = ()
    definitions: tuple[Action, ...] = ()
    tech_explicit: bool = False
    lang: str = "ja"

    @property
    def bonus_points(self) -> int:
        """HP/5 + ATK + DEF + SPD + TECH; 10 on a valid sheet."""
        return self.hp // 5 + self.atk + self.defense + self.spd + self.tech
