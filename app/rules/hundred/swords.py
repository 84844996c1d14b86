"""The 100 swords of Margaret Hundred 1.6.a and the printed build specs, as data.

Source: ``shared/rules/margaret-hundred.md`` §4 (the seed's 剣リスト, with the rulings H2, H4, H22-H48).
Nothing here runs: every sword is a :class:`SwordDef` record whose fields describe its kind, tags
and *effect program* (§12.3), and ``engine.py`` compiles each record once into the form it runs.
The table is parametrised data on purpose: base Margaret's 15 swords are its first 15 rows
(:data:`BASIC`), and a notation parser only needs :data:`BY_CODE` / :data:`BY_NAME`.

Effect program fields (all optional, by kind):

* attack (<攻>): ``raw`` the raw-damage formula (``("atk-def", k)`` = ATK×k − DEF,
  ``("atkdiv-def", d)`` = ⌊ATK/d⌋ − DEF, ``("atk", k)`` = ATK×k fixed, ``("atkdiv", d)`` = ⌊ATK/d⌋
  fixed, ``("const", c)``, ``("pow2t",)`` = 2^T, ``("halfhp",)`` = ⌈HP/2⌉, ``("hp",)`` = HP,
  ``("rage",)`` = the executor's max HP − HP), ``reps`` (×n hits, H22), ``whole`` (every enemy),
  ``ignore`` (闇黒剣: no defence or protection statuses), ``to_mp`` (魔封剣), ``nondmg`` (an attack
  without damage: ``reset-atk``/``reset-def``/``reset-spd``/``assign-maxhp``/``burn``), ``tight``
  (the built-in 密結 rider on ≥ 1 damage: ``stun``/``poison``/``venom``/``abort``/``destroy``/
  ``jam``/``reverse``), ``loose`` (疎結: ``heal``/``steal``), ``indep`` (／: ``self9``/``unuse``/
  ``burn-self``);
* support (<補>), control (<制>), addition (<追>), environment (<環>): ``op`` and ``arg``;
* construction (<構>): ``build`` = ``"own"`` (残響剣), ``"enemy"`` (反響剣) or a key of
  :data:`BUILD_SPECS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# -- kinds, in the priority order of simultaneous action (§8.10: スキップ > 補助 > 制御 > 追加 >
#    攻撃 > 構築 > 環境); SKIP is not a sword kind but an action's.
SKIP, SUPPORT, CONTROL, ADDITION, ATTACK, CONSTRUCTION, ENVIRONMENT = range(7)
KIND_NAMES: dict[int, dict[str, str]] = {
    SKIP: {"ja": "スキップ", "en": "skip", "tag": "skip"},
    SUPPORT: {"ja": "補助", "en": "support", "tag": "補"},
    CONTROL: {"ja": "制御", "en": "control", "tag": "制"},
    ADDITION: {"ja": "追加", "en": "addition", "tag": "追"},
    ATTACK: {"ja": "攻撃", "en": "attack", "tag": "攻"},
    CONSTRUCTION: {"ja": "構築", "en": "construction", "tag": "構"},
    ENVIRONMENT: {"ja": "環境", "en": "environment", "tag": "環"},
}

#: activation marker for the parametrised swords whose activation turn is N (<遅延N>)
N_ACT = -1


@dataclass(frozen=True, slots=True)
class SwordDef:
    """One sword of §4 (data only).

    Attributes:
        no: its number in §4 (1-100).
        code: the canonical compact code (``斬``, ``回``, ``遅``, ``ｺｳ``).
        name: the Japanese name without N (``斬撃剣``, ``回復剣``, ``遅延剣``).
        en: the English name used by this project's English notation and reports (the basic 15
            are base Margaret's, ``app/rules/margaret/swords.py``).
        kind: one of ``SUPPORT`` … ``ENVIRONMENT``.
        act: activation turn: 0 (<高速>), 1 (no timing tag), x (<遅延x>), or ``N_ACT`` (= N).
        limited: the built-in <リミ>.
        param: ``None``, or the minimum N of a parametrised sword (H2, §3.2).
        period: True for 遅延剣.N, whose N is a period (<ピリN>), not a delay.
        alt: other accepted codes (``死`` for デス剣, ``コウ`` for ｺｳ速剣; H60, M4).
        flagged: ⚑ in §4/§11 (the seed leaves its effect open; a ruling decides it).
        fields: the effect program (see the module docstring).
    """

    no: int
    code: str
    name: str
    en: str
    kind: int
    act: int = 1
    limited: bool = False
    param: int | None = None
    period: bool = False
    alt: tuple[str, ...] = ()
    flagged: bool = False
    raw: tuple[Any, ...] | None = None
    reps: int = 1
    whole: bool = False
    ignore: bool = False
    to_mp: bool = False
    nondmg: str | None = None
    tight: str | None = None
    loose: str | None = None
    indep: str | None = None
    op: str | None = None
    arg: Any = None
    build: str | None = None

    def full_name(self, n: int | None, lang: str = "ja") -> str:
        """The full-form name with N: ``回復剣3``, ``遅延剣.19``, ``Heal Sword 3``."""
        base = self.name if lang == "ja" else self.en
        if self.param is None:
            return base
        if self.period:
            return f"{base}.{n}"
        return f"{base}{n}" if lang == "ja" else f"{base} {n}"

    def compact(self, n: int | None) -> str:
        """The compact code with N: ``回3``, ``遅.19``, ``斬``."""
        if self.param is None:
            return self.code
        return f"{self.code}.{n}" if self.period else f"{self.code}{n}"


def _a(
    no: int, code: str, name: str, en: str, act: int = 1, limited: bool = False, **kw: Any
) -> SwordDef:
    return SwordDef(no, code, name, en, ATTACK, act, limited, **kw)


def _s(
    no: int,
    code: str,
    name: str,
    en: str,
    op: str,
    arg: Any = None,
    act: int = 1,
    limited: bool = False,
    **kw: Any,
) -> SwordDef:
    return SwordDef(no, code, name, en, SUPPORT, act, limited, op=op, arg=arg, **kw)


def _c(
    no: int,
    code: str,
    name: str,
    en: str,
    op: str,
    arg: Any = None,
    act: int = 1,
    limited: bool = False,
    **kw: Any,
) -> SwordDef:
    return SwordDef(no, code, name, en, CONTROL, act, limited, op=op, arg=arg, **kw)


def _b(
    no: int, code: str, name: str, en: str, build: str, limited: bool = True, **kw: Any
) -> SwordDef:
    return SwordDef(no, code, name, en, CONSTRUCTION, 0, limited, build=build, **kw)


_AD = ("atk-def", 1)

#: every sword in §4 order (1-100)
SWORDS: tuple[SwordDef, ...] = (
    # 4.1 basic list (Margaret's 15)
    _a(1, "斬", "斬撃剣", "Slash Sword", raw=_AD),
    _a(2, "高", "高速剣", "Swift Sword", 0, True, raw=_AD),
    _a(3, "重", "重撃剣", "Heavy Sword", 4, raw=("atk-def", 2)),
    _a(4, "衝", "衝撃剣", "Shock Sword", 2, raw=_AD, tight="stun"),
    _a(5, "毒", "蟲毒剣", "Venom Sword", 1, True, raw=_AD, tight="poison"),
    _a(6, "絶", "絶対剣", "Absolute Sword", 3, raw=("atk", 1)),
    _a(7, "魔", "魔法剣", "Magic Sword", 2, True, raw=("halfhp",)),
    _a(8, "デ", "デス剣", "Death Sword", 6, True, raw=("hp",), alt=("死",)),
    _s(9, "熱", "加熱剣", "Heat Sword", "stat", "atk"),
    _s(10, "護", "加護剣", "Ward Sword", "stat", "df"),
    _s(11, "速", "加速剣", "Haste Sword", "stat", "spd"),
    _s(12, "盾", "盾の剣", "Shield Sword", "status", "guard"),
    _s(13, "鏡", "鏡の剣", "Mirror Sword", "status", "reflect", 2, True),
    _s(14, "命", "命の剣", "Life Sword", "status", "life", 1, True),
    _s(15, "回", "回復剣", "Heal Sword", "fullhp", None, N_ACT, True, param=1),
    # 4.2 plus list: attacks
    _a(16, "ヌ", "ヌル剣", "Null Sword", 0, raw=("const", 0)),
    _a(17, "咲", "咲火剣", "Sparkfire Sword", raw=("const", 1), flagged=True),
    _a(18, "炸", "炸撃剣", "Burst Sword", raw=("const", 1), flagged=True),
    _a(19, "爆", "爆炎剣", "Blast Sword", raw=("const", 4)),
    _a(20, "貪", "貪炎剣", "Greedflame Sword", raw=("const", 6), loose="heal", flagged=True),
    _a(21, "災", "災厄剣", "Calamity Sword", raw=("const", 9), indep="self9", flagged=True),
    _a(22, "滅", "滅奏剣", "Requiem Sword", raw=("pow2t",)),
    _a(23, "幕", "幕引剣", "Curtain Sword", 20, True, raw=("const", 100)),
    _a(24, "連", "連撃剣", "Double Sword", 3, raw=_AD, reps=2, flagged=True),
    _a(25, "波", "波状剣", "Wave Sword", 6, raw=_AD, reps=5, flagged=True),
    _a(26, "舞", "舞踏剣", "Dance Sword", 3, raw=_AD, indep="unuse", flagged=True),
    _a(27, "全", "全体剣", "Sweep Sword", 2, raw=_AD, whole=True),
    _a(28, "猛", "猛毒剣", "Toxic Sword", 2, True, raw=_AD, tight="venom"),
    _a(29, "堕", "堕胎剣", "Abort Sword", 2, True, raw=_AD, tight="abort"),
    _a(30, "壊", "破壊剣", "Break Sword", 1, True, raw=_AD, tight="destroy"),
    _a(31, "戟", "剣戟剣", "Clash Sword", 2, raw=_AD, tight="jam", flagged=True),
    _a(32, "撹", "撹乱剣", "Confusion Sword", 1, True, raw=_AD, tight="reverse"),
    _a(33, "吸", "吸血剣", "Vampire Sword", 1, True, raw=_AD, loose="heal", flagged=True),
    _a(34, "盗", "強盗剣", "Robber Sword", 2, True, raw=_AD, loose="steal", flagged=True),
    _a(35, "闇", "闇黒剣", "Darkness Sword", raw=_AD, ignore=True),
    _a(36, "封", "魔封剣", "Seal Sword", raw=_AD, to_mp=True, flagged=True),
    _a(37, "過", "過重剣", "Overload Sword", 5, raw=("atk-def", 3)),
    _a(38, "確", "確実剣", "Sure Sword", raw=("atkdiv", 2)),
    _a(39, "音", "音速剣", "Sonic Sword", 0, True, raw=("atkdiv-def", 5), reps=10, flagged=True),
    _a(40, "光", "光速剣", "Light Sword", 0, True, raw=("atkdiv-def", 10), reps=100, flagged=True),
    _a(41, "怒", "激怒剣", "Rage Sword", N_ACT, True, raw=("rage",), param=1),
    _a(42, "冷", "冷却剣", "Cooling Sword", nondmg="reset-atk"),
    _a(43, "剥", "剥落剣", "Peeling Sword", nondmg="reset-def"),
    _a(44, "減", "減速剣", "Slowing Sword", nondmg="reset-spd"),
    _a(45, "優", "優撃剣", "Gentle Sword", 2, True, nondmg="assign-maxhp"),
    _a(46, "炎", "炎上剣", "Blaze Sword", nondmg="burn", indep="burn-self"),
    # 4.3 supports
    _s(47, "警", "警戒剣", "Alert Sword", "status", "guard", 0, True),
    _s(48, "避", "回避剣", "Evasion Sword", "status", "dodge", 1, True),
    _s(49, "楯", "楯の剣", "Buckler Sword", "status", "shield"),
    _s(50, "膜", "羊膜剣", "Amnion Sword", "status", "cushion"),
    _s(51, "壁", "障壁剣", "Barrier Sword", "status", "barrier"),
    _s(52, "魂", "魂の剣", "Soul Sword", "status", "soul", 3, True),
    _s(53, "押", "押分剣", "Push Sword", "status", "push", 0, flagged=True),
    _s(54, "駆", "駆動剣", "Drive Sword", "status", "drive"),
    _s(55, "蠕", "蠕動剣", "Flip Sword", "status", "flip"),
    _s(56, "誘", "誘引剣", "Lure Sword", "status", "taunt", 1, True),
    _s(57, "先", "先行剣", "Lead Sword", "status", "quick", 0, True),
    _s(58, "後", "後続剣", "Follow Sword", "status", "slow", 0, True),
    _s(59, "疎", "疎通剣", "Passage Sword", "status", "hdoor", 0, True, flagged=True),
    _s(60, "癒", "快癒剣", "Cure Sword", "cure", None, N_ACT, True, param=1),
    _s(61, "詠", "詠唱剣", "Chant Sword", "mp", 1),
    _s(62, "黙", "黙祷剣", "Prayer Sword", "mp", 3, 1, True),
    _s(63, "儀", "儀式剣", "Ritual Sword", "ap", 3, N_ACT, True, param=0),
    _s(64, "臥", "臥竜剣", "Sleeping Dragon Sword", "garyu", None, 0, True),
    _s(65, "竜", "竜化剣", "Dragon Sword", "double", None, 10, True),
    # 4.4 control
    _c(66, "限", "限定剣", "Limit Sword", "limit", None, 0, True),
    _c(67, "抑", "抑制剣", "Restraint Sword", "restrain", None, 0),
    _c(68, "遅", "遅延剣", "Delay Sword", "hold", None, 0, param=0, period=True),
    _c(69, "鞘", "収鞘剣", "Sheathe Sword", "remove", None, N_ACT, True, param=0),
    _c(70, "導", "導来剣", "Guide Sword", "early", None, N_ACT, True, param=0),
    _c(71, "振", "振動剣", "Vibration Sword", "enchant-stun", None, 1, True),
    _c(72, "薬", "毒薬剣", "Poison Potion Sword", "enchant-poison", None, 1, True),
    _c(73, "散", "拡散剣", "Spread Sword", "enchant-whole", None, 1, True),
    _c(74, "鍛", "鍛錬剣", "Training Sword", "train", None, 4, True),
    _c(75, "再", "再来剣", "Return Sword", "renew", None, N_ACT, True, param=0),
    _c(76, "鳴", "共鳴剣", "Resonance Sword", "resonate", None, N_ACT, True, param=0),
    # 4.5 additions
    SwordDef(77, "虚", "虚構剣", "Fiction Sword", ADDITION, op="null"),
    SwordDef(78, "複", "複製剣", "Replica Sword", ADDITION, limited=True, op="replica"),
    SwordDef(79, "増", "増殖剣", "Multiply Sword", ADDITION, op="multiply"),
    # 4.6 construction (all <構><高速>; all but 泡溢剣 and 精霊剣 <リミ>)
    _b(80, "残", "残響剣", "Echo Sword", "own"),
    _b(81, "反", "反響剣", "Reverb Sword", "enemy"),
    _b(82, "泡", "泡溢剣", "Bubble Sword", "泡", limited=False),
    _b(83, "精", "精霊剣", "Spirit Sword", "精", limited=False, flagged=True),
    _b(84, "胎", "胎胎剣", "Womb Sword", "胎"),
    _b(85, "鋸", "鋸髪剣", "Sawhair Sword", "鋸"),
    _b(86, "沢", "相沢剣", "Aizawa Sword", "沢"),
    _b(87, "紫", "紫電剣", "Shiden Sword", "紫"),
    _b(88, "蘭", "尾蘭剣", "Oran Sword", "蘭"),
    _b(89, "従", "従僕剣", "Servant Sword", "従"),
    _b(90, "脚", "弩脚剣", "Ballista Sword", "脚"),
    _b(91, "狗", "狗咬剣", "Dogbite Sword", "狗"),
    _b(92, "ｺｳ", "ｺｳ速剣", "Kou Sword", "ｺｳ", alt=("コウ",)),
    _b(93, "吉", "吉宏剣", "Yoshihiro Sword", "吉"),
    _b(94, "聖", "聖重剣", "Holy Weight Sword", "聖"),
    _b(95, "撃", "撃鉄剣", "Hammer Sword", "撃"),
    _b(96, "鶏", "鶏皇剣", "Rooster King Sword", "鶏"),
    _b(97, "怪", "怪骨剣", "Monster Bone Sword", "怪"),
    _b(98, "歪", "歪姫剣", "Warped Princess Sword", "歪"),
    _b(99, "龍", "招龍剣", "Dragon Call Sword", "龍"),
    # 4.7 environment
    SwordDef(100, "星", "星霜剣", "Years Sword", ENVIRONMENT, op="turn", flagged=True),
)

#: the swordmasters printed in the build swords (§4.6), compact form ``HP/ATK/DEF/SPD/codes/name``.
#: They are data: built as printed, never checked against a budget (§3.1).
BUILD_SPECS: dict[str, str] = {
    "泡": "5/0/0/0//バブリア",
    "精": "5/0/0/1/精詠/ウィスプ",
    "胎": "15/0/0/1/黙胎/マトリョックス",
    "鋸": "5/0/0/3/速護護衝衝デ/デスエリーナ",
    "沢": "15/0/4/1/斬デ/あいざわ",
    "紫": "5/0/0/4/速衝熱衝熱/紫電",
    "蘭": "5/3/0/3/デデデ/無考オランダ",
    "従": "5/3/0/2/高高毒毒/しゃるる",
    "脚": "40/0/0/1/デ/るーしえ君",
    "狗": "15/0/1/2/速熱衝絶/徘徊するライカ",
    "ｺｳ": "5/5/0/2/高高/コウ",
    "吉": "10/0/0/3/速熱熱熱重/武本吉宏",
    "聖": "15/0/0/3/速護熱熱重/ゾアラ",
    "撃": "10/0/0/4/詠爆詠爆/撃鉄",
    "鶏": "55/0/3/6/黙黙抑滅遅.19滅/撃鉄Act.6",
    "怪": "10/5/3/2/斬斬/メテオラ",
    "歪": "10/0/0/2/黙黙残デ詠膜/司闇",
    "龍": "30/0/6/4/熱斬熱斬/ドラゴン",
}

#: canonical code -> definition
BY_CODE: dict[str, SwordDef] = {d.code: d for d in SWORDS}
#: every accepted code (canonical and alternative) -> definition
CODES: dict[str, SwordDef] = {**BY_CODE, **{a: d for d in SWORDS for a in d.alt}}
#: the codes of base Margaret's 15 swords, in list order
BASIC: tuple[str, ...] = tuple(d.code for d in SWORDS[:15])
#: every canonical code, in §4 order
ALL: tuple[str, ...] = tuple(d.code for d in SWORDS)

assert len(SWORDS) == 100 and len(BY_CODE) == 100
assert [d.no for d in SWORDS] == list(range(1, 101))

# The 20 statuses (§7) in the order of the state lines: attribute, Japanese, English, category.
STATUSES: tuple[tuple[str, str, str, str], ...] = (
    ("stun", "スタン", "Stun", "bad"),
    ("sleep", "スリープ", "Sleep", "bad"),
    ("venom", "猛毒", "Venom", "bad"),
    ("poison", "毒", "Poison", "bad"),
    ("abort", "流産", "Abort", "bad"),
    ("reflect", "反射", "Reflect", "defence"),
    ("dodge", "見切り", "Dodge", "defence"),
    ("barrier", "バリア", "Barrier", "protection"),
    ("cushion", "クッション", "Cushion", "protection"),
    ("flip", "フリップ", "Flip", "protection"),
    ("shield", "シールド", "Shield", "protection"),
    ("guard", "ガード", "Guard", "protection"),
    ("soul", "ソウル", "Soul", "revival"),
    ("life", "ライフ", "Life", "revival"),
    ("push", "プッシュ", "Push", "other"),
    ("hdoor", "ヘヴンズドア", "Heaven's Door", "other"),
    ("quick", "クイック", "Quick", "other"),
    ("slow", "スロー", "Slow", "other"),
    ("drive", "ドライブ", "Drive", "other"),
    ("taunt", "挑発", "Taunt", "other"),
)
STATUS_ATTRS: tuple[str, ...] = tuple(s[0] for s in STATUSES)
STATUS_NAME: dict[str, dict[str, str]] = {s[0]: {"ja": s[1], "en": s[2]} for s in STATUSES}

# The 5 enchantments (§5): attribute on a sword instance, Japanese, English.
ENCHANTMENTS: tuple[tuple[str, str, str], ...] = (
    ("se", "スタン与え", "Stun"),
    ("pe", "毒与え", "Poison"),
    ("whole", "全体化", "Whole"),
    ("elim", "リミテッド", "Limited"),
    ("early", "早期起動", "Early"),
)
