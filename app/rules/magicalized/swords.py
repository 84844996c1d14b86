"""Margaret Magicalized as data: sword lists 1 and 2, statuses, enchantments and the 18 cards.

Source: ``shared/rules/margaret-magicalized.md`` §1.2-§1.5 and G1-G5, G63 (the seed
``002_61fb61e8f4cc2702.txt``). Nothing here runs: ``engine.py`` reads these records.

* **List 1** (:data:`LIST1`) is the basic 15 of ``margaret.md`` §2.2 with the five changes of
  §1.2: 重撃剣 <遅延3>, 盾の剣 gives Shield, 回復剣 ``<補><危殆><リミ>`` with no N, no 高速剣,
  and 導来剣 ``<制><高速><リミ>`` added. デス剣's code is ``死`` as the seed's list prints it
  (``デ`` is accepted too, G2).
* **List 2** (:data:`LIST2`) enters play only through 黄昏の軌跡を: 滅奏剣, 魂の剣, 押分剣.
* 高速剣 is kept in :data:`SWORDS` (as ``in_list = 0``) only so that a sheet naming it gets a
  precise error (§4.1).

Cards are named by a one-character code (this page's, §1.5), their Japanese name, their English
name or a one-word English alias (usable inside a rule, where words are separated by spaces).
"""

from __future__ import annotations

from dataclasses import dataclass

# sword kinds in the priority order of a simultaneous action (Hundred §8.10: skip > support >
# control > attack); Magicalized has no addition, construction or environment swords
SKIP, SUPPORT, CONTROL, ATTACK = 0, 1, 2, 4
KIND_TAG = {SUPPORT: "補", CONTROL: "制", ATTACK: "攻"}


@dataclass(frozen=True, slots=True)
class SwordDef:
    """One sword of lists 1-2 (data only).

    Attributes:
        code: the canonical code (``斬``, ``死``).
        name: the Japanese name; ``en``: the English name (base Margaret's, Hundred's for list 2).
        kind: ``SUPPORT``, ``CONTROL`` or ``ATTACK``.
        act: the activation turn: 0 (<高速>), 1 (no timing tag), x (<遅延x>).
        limited: <リミ>.
        critical: <危殆> (G3: executable only while 2 x HP <= max HP).
        raw: the raw-damage formula of an attack: ``"atk-def"``, ``"2atk-def"``, ``"atk"``,
            ``"halfhp"`` (target HP / 2 rounded up), ``"hp"``, ``"pow2t"`` (2^T); else ``None``.
        rider: the built-in rider on >= 1 damage: ``"stun"`` or ``"poison"``.
        op: a support's or control's effect: ``"atk"``/``"df"``/``"spd"`` (+1), ``"status"``
            (gain ``arg``), ``"fullhp"`` (HP := max HP), ``"early"`` (the next sword gains
            <早期起動>).
        arg: the status a ``"status"`` op gives.
        in_list: 1 (list 1), 2 (list 2) or 0 (not usable in Magicalized: 高速剣).
        alt: other accepted codes.
    """

    code: str
    name: str
    en: str
    kind: int
    act: int = 1
    limited: bool = False
    critical: bool = False
    raw: str | None = None
    rider: str | None = None
    op: str | None = None
    arg: str | None = None
    in_list: int = 1
    alt: tuple[str, ...] = ()

    @property
    def tags(self) -> tuple[str, ...]:
        """The tags as the seed writes them, kind first: ``("攻", "遅延3")``."""
        out = [KIND_TAG[self.kind]]
        if self.act == 0:
            out.append("高速")
        elif self.act > 1:
            out.append(f"遅延{self.act}")
        if self.critical:
            out.append("危殆")
        if self.limited:
            out.append("リミ")
        return tuple(out)


def _a(
    code: str, name: str, en: str, raw: str, act: int = 1, limited: bool = False, **kw: object
) -> SwordDef:
    return SwordDef(code, name, en, ATTACK, act, limited, raw=raw, **kw)  # type: ignore[arg-type]


def _s(
    code: str,
    name: str,
    en: str,
    op: str,
    arg: str | None = None,
    act: int = 1,
    limited: bool = False,
    **kw: object,
) -> SwordDef:
    return SwordDef(code, name, en, SUPPORT, act, limited, op=op, arg=arg, **kw)  # type: ignore[arg-type]


#: every sword the notation knows, list 1 in the seed's order, then list 2, then 高速剣
SWORDS: tuple[SwordDef, ...] = (
    _a("斬", "斬撃剣", "Slash Sword", "atk-def"),
    _a("衝", "衝撃剣", "Shock Sword", "atk-def", 2, rider="stun"),
    _a("毒", "蟲毒剣", "Venom Sword", "atk-def", 1, True, rider="poison"),
    _a("絶", "絶対剣", "Absolute Sword", "atk", 3),
    _a("重", "重撃剣", "Heavy Sword", "2atk-def", 3),
    _a("魔", "魔法剣", "Magic Sword", "halfhp", 2, True),
    _a("死", "デス剣", "Death Sword", "hp", 6, True, alt=("デ",)),
    _s("熱", "加熱剣", "Heat Sword", "atk"),
    _s("護", "加護剣", "Ward Sword", "df"),
    _s("速", "加速剣", "Haste Sword", "spd"),
    _s("盾", "盾の剣", "Shield Sword", "status", "shield"),
    _s("命", "命の剣", "Life Sword", "status", "life", 1, True),
    _s("鏡", "鏡の剣", "Mirror Sword", "status", "reflect", 2, True),
    _s("回", "回復剣", "Heal Sword", "fullhp", None, 1, True, critical=True),
    SwordDef("導", "導来剣", "Guide Sword", CONTROL, 0, True, op="early"),
    # list 2: only through 黄昏の軌跡を (§1.2)
    _a("滅", "滅奏剣", "Requiem Sword", "pow2t", 1, True, critical=True, in_list=2),
    _s("魂", "魂の剣", "Soul Sword", "status", "soul", 3, True, in_list=2),
    _s("押", "押分剣", "Push Sword", "status", "push", 0, True, in_list=2),
    # not in Magicalized: named only to be refused precisely (§4.1)
    _a("高", "高速剣", "Swift Sword", "atk-def", 0, True, in_list=0),
)

BY_CODE: dict[str, SwordDef] = {d.code: d for d in SWORDS}
#: every accepted code, canonical and alternative
CODES: dict[str, SwordDef] = {**BY_CODE, **{a: d for d in SWORDS for a in d.alt}}
#: list 1 codes in the seed's order (sheets are built from these)
LIST1: tuple[str, ...] = tuple(d.code for d in SWORDS if d.in_list == 1)
#: list 2 codes (黄昏の軌跡を)
LIST2: tuple[str, ...] = tuple(d.code for d in SWORDS if d.in_list == 2)
#: every sword that can be in a battle
IN_PLAY: frozenset[str] = frozenset(LIST1 + LIST2)

assert len(LIST1) == 15 and len(LIST2) == 3

# The statuses of §1.4 plus Soul (G5), in state-line order: attribute, Japanese, English.
STATUSES: tuple[tuple[str, str, str], ...] = (
    ("stun", "スタン", "Stun"),
    ("poison", "毒", "Poison"),
    ("reflect", "反射", "Reflect"),
    ("shield", "シールド", "Shield"),
    ("soul", "ソウル", "Soul"),
    ("life", "ライフ", "Life"),
    ("push", "プッシュ", "Push"),
    ("quick", "クイック", "Quick"),
)
STATUS_ATTRS: tuple[str, ...] = tuple(s[0] for s in STATUSES)
STATUS_NAME: dict[str, dict[str, str]] = {s[0]: {"ja": s[1], "en": s[2]} for s in STATUSES}

# The enchantments of §1.3: attribute, Japanese, English (G63 spellings).
ENCHANTS: tuple[tuple[str, str, str], ...] = (
    ("unseen", "不可識", "unseen"),
    ("pe", "毒与え", "poisoning"),
    ("se", "スタン与え", "stunning"),
    ("early", "早期起動", "early"),
)
ENCHANT_NAME: dict[str, dict[str, str]] = {e[0]: {"ja": e[1], "en": e[2]} for e in ENCHANTS}
#: the enchantments 闇黒式 may give (§1.5)
DARK_ENCHANTS: tuple[str, ...] = ("unseen", "pe", "se")


@dataclass(frozen=True, slots=True)
class CardDef:
    """One of the 18 magic cards (§1.5).

    Attributes:
        code: this page's one-character code.
        name: the seed's Japanese name; ``en``: the English name; ``word``: a one-word English
            alias for rules (``burning``).
        schema: the arguments it takes (§4.3 "Arguments by card"): ``""`` none, ``"ref"``,
            ``"ref-enchant"``, ``"trail"`` (side + sword + AT pos), ``"twilight"`` (DISCARD +
            trail), ``"side"``, ``"order"``, ``"statuses"``, ``"counter"`` (side + card),
            ``"rainbow"`` (DISCARD + AS play).
        swords: the swords a 軌跡 card gives (empty otherwise).
    """

    code: str
    name: str
    en: str
    word: str
    schema: str
    swords: tuple[str, ...] = ()


CARDS: tuple[CardDef, ...] = (
    CardDef("燃", "燃える世界", "Burning World", "burning", ""),
    CardDef("凍", "凍れる世界", "Frozen World", "frozen", ""),
    CardDef("闇", "闇黒式", "Dark Rite", "darkrite", "ref-enchant"),
    CardDef("無", "それはなかった", "It Never Was", "neverwas", "ref"),
    CardDef("覆", "覆水返し", "Spilt Water Returns", "undo", ""),
    CardDef("赤", "赤の軌跡を", "Red Trail", "red", "trail", ("斬", "衝", "熱")),
    CardDef("緑", "緑の軌跡を", "Green Trail", "green", "trail", ("重", "護", "速")),
    CardDef("白", "白の軌跡を", "White Trail", "white", "trail", ("絶", "盾", "回")),
    CardDef("青", "青の軌跡を", "Blue Trail", "blue", "trail", ("導", "魔", "鏡")),
    CardDef("黒", "黒の軌跡を", "Black Trail", "black", "trail", ("毒", "命", "死")),
    CardDef("黄", "黄昏の軌跡を", "Twilight Trail", "twilight", "twilight", ("滅", "魂", "押")),
    CardDef("愛", "うれしい愛撫", "Happy Caress", "caress", "side"),
    CardDef("知", "知覚疎通", "Perception Link", "perception", "side"),
    CardDef("心", "マインドセット", "Mindset", "mindset", "order"),
    CardDef("払", "ディスペル", "Dispel", "dispel", "statuses"),
    CardDef("星", "星霜絵巻", "Scroll of Years", "years", ""),
    CardDef("策", "対策", "Countermeasure", "counter", "counter"),
    CardDef("虹", "虹紡ぎ", "Rainbow Weaving", "rainbow", "rainbow"),
)
CARD: dict[str, CardDef] = {c.code: c for c in CARDS}
CARD_CODES: tuple[str, ...] = tuple(c.code for c in CARDS)

assert len(CARDS) == 18

HAND_SIZE = 7
"""Cards in a hand (G4)."""
LAST_TURN = 20
"""The last regular turn (Hundred §8.4)."""
BUDGET = 10
"""途心 of a swordmaster (§1.1, G2)."""

WINDOW_KINDS: tuple[str, ...] = ("ACT", "VANISH", "REFLECT", "HIT", "EFFECT", "DEATH", "CARD")
"""The windows of G17, and ``CARD`` for a card played on a card (G24, §5 ``cards[].window``)."""
