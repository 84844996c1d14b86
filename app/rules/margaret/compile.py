"""A base Margaret swordmaster as the Amaryllis unit that fights the same battle (Ruling M6).

``rules/margaret.md`` §2.2 gives, for each of the 15 swords, one Amaryllis action (class and
customizations) of cost 1 whose behaviour is identical; a swordmaster with 剣技 k is the Amaryllis
unit with the same HP/ATK/DEF/SPD, TECH k and its swords as actions in the same order (§2.2,
"Every base sword is an Amaryllis action of cost exactly 1"). Each action is named by the
sword's Japanese name (``加速剣``, ``回復剣3``), as the same swordmaster written as an Amaryllis
sheet would name it (§4.3); reports print the name in their own language.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from app.rules.amaryllis.model import Action, ActionClass, Unit

from .model import Sword, Swordmaster
from .swords import BASIC, SwordTable

_C = ActionClass

# code -> the Amaryllis action (named when used); rules/margaret.md §2.2, Amaryllis column
_ACTIONS: dict[str, Action] = {
    "斬": Action("", _C.DIRECT),  # 直接攻撃
    "高": Action("", _C.DIRECT, quick=True, limited=True),  # ＜高速起動＞＜リミテッド＞
    "重": Action("", _C.DIRECT, delay=4, effect=2),  # ＜遅延起動４＞＜効果２倍＞
    "衝": Action("", _C.DIRECT, delay=2, stun=1),  # ＜遅延起動２＞＜スタン与え＞
    "毒": Action("", _C.DIRECT, limited=True, poison=1),  # ＜リミテッド＞＜毒与え＞
    "絶": Action("", _C.PIERCING, delay=3),  # 防御無視攻撃＜遅延起動３＞
    "魔": Action("", _C.HALVING, limited=True, delay=2),  # ＨＰ減殺＜リミテッド＞＜遅延起動２＞
    "デ": Action(
        "", _C.HALVING, effect=2, delay=6, limited=True
    ),  # ＨＰ減殺＜効果２倍＞＜遅延起動６＞＜リミテッド＞
    "熱": Action("", _C.ATK_UP, n=1),  # 攻撃力＋１
    "護": Action("", _C.DEF_UP, n=1),  # 防御力＋１
    "速": Action("", _C.SPD_UP, n=1),  # 素早さ＋１
    "盾": Action("", _C.GUARD),  # ガード与え
    "鏡": Action("", _C.REFLECT, delay=2, limited=True),  # 反射与え＜遅延起動２＞＜リミテッド＞
    "命": Action("", _C.LIFE, limited=True),  # ライフ与え＜リミテッド＞
}


@lru_cache(maxsize=4096)
def sword_action(sword: Sword, table: SwordTable = BASIC) -> Action:
    """The Amaryllis action of one base sword (§2.2), named by its Japanese name.

    回N: ＨＰ回復＜リミテッド＞, with ＜遅延起動N＞ for N ≥ 2 (Amaryllis has no 遅延起動1, and
    "usable from turn 1" is the default). Raises ``KeyError`` for a sword outside the 15.
    Cached (actions are immutable).
    """
    name = table.sword_name(sword, "ja")
    if sword.code == "回":
        n = sword.n if sword.n is not None else 1
        return Action(name, _C.HEAL, limited=True, delay=n if n >= 2 else None)
    return replace(_ACTIONS[sword.code], name=name)


@lru_cache(maxsize=65536)
def to_unit(master: Swordmaster, name: str | None = None) -> Unit:
    """The Amaryllis unit of ``master`` (M6): same abilities, TECH = 剣技, the swords as
    actions in list order; ``name`` replaces the unit's name (default: the swordmaster's).
    Cached: leagues fight the same swordmasters many times."""
    loadout = tuple(sword_action(s) for s in master.swords)
    definitions = tuple(sword_action(s) for s in dict.fromkeys(master.swords))
    return Unit(
        name=master.name if name is None else name,
        hp=master.hp,
        atk=master.atk,
        defense=master.defense,
        spd=master.spd,
        tech=master.skill,
        loadout=loadout,
        definitions=definitions,
        tech_explicit=master.skill_explicit,
        lang=master.lang,
    )
