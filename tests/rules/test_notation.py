"""Sheet notation: the seed's sheets, width tolerance, English, printing, round trips (rules §1.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.amaryllis import (
    SheetError,
    format_costs,
    format_sheet,
    format_state,
    parse_sheet,
    parse_unit,
    valid_name,
)
from app.rules.amaryllis.costs import action_cost, loadout_cost
from app.rules.amaryllis.events import UnitState
from app.rules.amaryllis.model import Action, ActionClass, Unit

from .strategies import valid_units

GRISK_JA = """グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト

・シールド（１）：防御力＋２＜リミテッド＞

・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞

・ブースト（１）：攻撃力＋１
"""
NUT_JA = """ヌト：１０／３／１／１／命の剣、魔法剣、絶対剣

・命の剣（１）：ライフ与え＜リミテッド＞

・魔法剣（１）：ＨＰ減殺＜リミテッド＞＜遅延起動２＞

・絶対剣（１）：防御無視攻撃＜遅延起動３＞
"""
GRISK_EN = """Grisk: 10/1/1/2/Shield, Spear, Spear, Boost
TECH 4
- Shield (1): DEF+2 <Limited>
- Spear (1): Direct Attack <Delay 4> <Effect x2>
- Boost (1): ATK+1
"""

SHIELD = Action("シールド", ActionClass.DEF_UP, n=2, limited=True)
SPEAR = Action("スピア", ActionClass.DIRECT, delay=4, effect=2)
BOOST = Action("ブースト", ActionClass.ATK_UP, n=1)
GRISK = Unit(
    "グリスク",
    10,
    1,
    1,
    2,
    4,
    loadout=(SHIELD, SPEAR, SPEAR, BOOST),
    definitions=(SHIELD, SPEAR, BOOST),
    tech_explicit=False,
    lang="ja",
)
LIFE_SWORD = Action("命の剣", ActionClass.LIFE, limited=True)
MAGIC_SWORD = Action("魔法剣", ActionClass.HALVING, limited=True, delay=2)
ABSOLUTE_SWORD = Action("絶対剣", ActionClass.PIERCING, delay=3)
NUT = Unit(
    "ヌト",
    10,
    3,
    1,
    1,
    3,
    loadout=(LIFE_SWORD, MAGIC_SWORD, ABSOLUTE_SWORD),
    definitions=(LIFE_SWORD, MAGIC_SWORD, ABSOLUTE_SWORD),
    lang="ja",
)


def test_seed_grisk_parses_to_the_expected_unit() -> None:
    result = parse_sheet(GRISK_JA)
    assert result.ok and result.problems == [] and result.lang == "ja"
    assert result.unit == GRISK
    assert [action_cost(a) for a in result.unit.definitions] == [1, 1, 1]
    assert [a.declared_cost for a in result.unit.definitions] == [1, 1, 1]
    assert loadout_cost(result.unit) == 4 == result.unit.tech


def test_seed_nut_parses_to_the_expected_unit() -> None:
    result = parse_sheet(NUT_JA)
    assert result.ok and result.unit == NUT
    assert [action_cost(a) for a in result.unit.definitions] == [1, 1, 1]
    assert result.unit.tech == 3 and loadout_cost(result.unit) == 3


@pytest.mark.parametrize(
    "variant",
    [
        # half-width everything
        "グリスク:10/1/1/2/シールド,スピア,スピア,ブースト\n・シールド(1):防御力+2<リミテッド>\n"
        "・スピア(1):直接攻撃<遅延起動4><効果2倍>\n・ブースト(1):攻撃力+1",
        # 、 ，〈〉《》, no bullets, no declared costs, spaces, comments, blank lines around
        "\n\n# my unit\n＃ another comment\n// and another\n"
        "  グリスク ： １０ ／ １ ／ １ ／ ２ ／ シールド ， スピア 、スピア,ブースト  \n"
        "シールド：防御力＋２〈リミテッド〉\n-スピア：直接攻撃《遅延起動４》＜効果２倍＞\n"
        "* ブースト : 攻撃力 + 1\n\n\n",
        # CRLF line ends and an ideographic space
        "グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト\r\n"
        "・シールド（１）：防御力＋２\u3000＜リミテッド＞\r\n"
        "・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞\r\n・ブースト（１）：攻撃力＋１\r\n",
    ],
)
def test_width_and_layout_variants_give_the_same_unit(variant: str) -> None:
    result = parse_sheet(variant)
    assert result.errors == [], result.problems
    assert result.unit == GRISK


def test_tech_line_forms() -> None:
    for line in ("技術４", "技術：４", "技術:4", "TECH 4", "tech: 4", "Tech=4"):
        unit = parse_unit(GRISK_JA + line + "\n")
        assert unit.tech == 4 and unit.tech_explicit, line


def test_english_notation_parses_to_the_same_unit_with_english_names() -> None:
    result = parse_sheet(GRISK_EN)
    assert result.ok and result.lang == "en"
    unit = result.unit
    assert unit.name == "Grisk" and (unit.hp, unit.atk, unit.defense, unit.spd, unit.tech) == (
        10,
        1,
        1,
        2,
        4,
    )
    assert unit.tech_explicit
    assert [(a.name, a.cls, a.n, a.limited, a.delay, a.effect) for a in unit.definitions] == [
        ("Shield", ActionClass.DEF_UP, 2, True, None, None),
        ("Spear", ActionClass.DIRECT, None, False, 4, 2),
        ("Boost", ActionClass.ATK_UP, 1, False, None, None),
    ]
    assert [a.name for a in unit.loadout] == ["Shield", "Spear", "Spear", "Boost"]


@pytest.mark.parametrize(
    ("word", "cls", "n"),
    [
        ("Direct Attack", ActionClass.DIRECT, None),
        ("direct", ActionClass.DIRECT, None),
        ("Piercing Attack", ActionClass.PIERCING, None),
        ("PIERCING", ActionClass.PIERCING, None),
        ("HP Halving", ActionClass.HALVING, None),
        ("halving", ActionClass.HALVING, None),
        ("ATK+3", ActionClass.ATK_UP, 3),
        ("Attack + 2", ActionClass.ATK_UP, 2),
        ("DEF+1", ActionClass.DEF_UP, 1),
        ("Defense+4", ActionClass.DEF_UP, 4),
        ("SPD+2", ActionClass.SPD_UP, 2),
        ("speed +1", ActionClass.SPD_UP, 1),
        ("Guard", ActionClass.GUARD, None),
        ("give guard", ActionClass.GUARD, None),
        ("Reflect", ActionClass.REFLECT, None),
        ("Life", ActionClass.LIFE, None),
        ("Full Heal", ActionClass.HEAL, None),
        ("heal", ActionClass.HEAL, None),
        ("直接攻撃", ActionClass.DIRECT, None),
        ("防御無視攻撃", ActionClass.PIERCING, None),
        ("ＨＰ減殺", ActionClass.HALVING, None),
        ("HP減殺", ActionClass.HALVING, None),
        ("攻撃力＋３", ActionClass.ATK_UP, 3),
        ("防御力+1", ActionClass.DEF_UP, 1),
        ("素早さ＋２", ActionClass.SPD_UP, 2),
        ("ガード与え", ActionClass.GUARD, None),
        ("反射与え", ActionClass.REFLECT, None),
        ("ライフ与え", ActionClass.LIFE, None),
        ("ＨＰ回復", ActionClass.HEAL, None),
    ],
)
def test_every_class_word(word: str, cls: ActionClass, n: int | None) -> None:
    limited = " <Limited>" if cls.must_be_limited else ""
    unit = parse_unit(f"X: 5/0/0/0/A\n- A: {word}{limited}")
    assert (unit.definitions[0].cls, unit.definitions[0].n) == (cls, n)


@pytest.mark.parametrize(
    ("customs", "expected"),
    [
        ("<Limited>", dict(limited=True)),
        ("<Delay 3>", dict(delay=3)),
        ("<delay3>", dict(delay=3)),
        ("<Quick>", dict(quick=True)),
        ("<Effect x2>", dict(effect=2)),
        ("<Effect ×3>", dict(effect=3)),
        ("<effect 2>", dict(effect=2)),
        ("<x2 Effect>", dict(effect=2)),
        ("<Stun>", dict(stun=1)),
        ("<Stun><Stun>", dict(stun=2)),
        ("<Poison> <Poison> <Poison>", dict(poison=3)),
        ("＜リミテッド＞", dict(limited=True)),
        ("＜遅延起動５＞", dict(delay=5)),
        ("＜高速起動＞", dict(quick=True)),
        ("＜効果３倍＞", dict(effect=3)),
        ("＜スタン与え＞", dict(stun=1)),
        ("＜毒与え＞＜毒与え＞", dict(poison=2)),
        ("〈リミテッド〉《高速起動》", dict(limited=True, quick=True)),
    ],
)
def test_every_customization_word(customs: str, expected: dict[str, object]) -> None:
    unit = parse_unit(f"X: 5/0/0/0/A\n- A: Direct Attack {customs}")
    assert unit.definitions[0] == Action("A", ActionClass.DIRECT, **expected)  # type: ignore[arg-type]


def test_language_detection() -> None:
    assert parse_sheet(GRISK_JA).lang == "ja"
    assert parse_sheet(GRISK_EN).lang == "en"
    # Japanese names with English class words: English
    assert parse_sheet("グリスク: 10/1/1/2/盾\n- 盾: Guard").lang == "en"
    # no action at all: the TECH keyword, then the colon's width decide
    assert parse_sheet("Grisk：１０／１／１／２").lang == "ja"
    assert parse_sheet("グリスク: 10/1/1/2").lang == "en"
    assert parse_sheet("Grisk: 10/1/1/2\n技術６").lang == "ja"
    # nothing to go on: the default
    assert parse_sheet("").lang == "ja"
    assert parse_sheet("", default_lang="en").lang == "en"


def test_messages_follow_the_sheet_language_or_the_override() -> None:
    ja = parse_sheet("グリスク：１２／１／１／２")
    assert ja.lang == "ja" and "５の倍数" in ja.errors[0].message
    en = parse_sheet("Grisk: 12/1/1/2")
    assert en.lang == "en" and "multiple of 5" in en.errors[0].message
    forced = parse_sheet("グリスク：１２／１／１／２", lang="en")
    assert forced.lang == "en" and "multiple of 5" in forced.errors[0].message


def test_format_sheet_normalizes_both_languages() -> None:
    unit = parse_unit(GRISK_JA)
    assert format_sheet(unit) == (
        "グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト\n"
        "・シールド（１）：防御力＋２＜リミテッド＞\n"
        "・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞\n"
        "・ブースト（１）：攻撃力＋１"
    )
    en = parse_unit(GRISK_EN)
    assert format_sheet(en) == GRISK_EN.rstrip("\n")
    assert format_sheet(en, "ja").splitlines()[1] == "技術４"


def test_format_costs_shows_every_step_and_the_total() -> None:
    text = format_costs(parse_unit(GRISK_JA))
    assert "・スピア：１（直接攻撃）×４（効果２倍）÷４（遅延起動４）＝１、セット２回で２" in text
    assert "・シールド：２（防御力＋２）÷２（リミテッド）＝１、セット１回で１" in text
    assert text.splitlines()[-1] == "合計４／技術４（残り０）"
    en = format_costs(parse_unit(NUT_JA), "en")
    assert "- 魔法剣: 3 (HP Halving) ÷2 (Limited) ÷2 (Delay 2) = 1; set 1× = 1" in en
    assert en.splitlines()[-1] == "Total 3 / TECH 3 (0 left)"


@pytest.mark.parametrize(
    ("line", "cost"),
    [
        # the worked examples of rules §1.2
        ("シールド：防御力＋２＜リミテッド＞", 1),
        ("スピア：直接攻撃＜遅延起動４＞＜効果２倍＞", 1),
        ("魔法剣：ＨＰ減殺＜リミテッド＞＜遅延起動２＞", 1),
        # more: multipliers first, then divisions rounding up after each
        ("A: Piercing Attack <Quick>", 6),
        ("A: Direct Attack <Effect x3> <Stun> <Poison>", 36),
        ("A: Direct Attack <Effect x3> <Stun> <Poison> <Limited> <Delay 5>", 4),
        ("A: Reflect <Limited> <Delay 3>", 1),
        ("A: SPD+5 <Limited>", 3),
        ("A: HP Halving <Limited> <Delay 3>", 1),
    ],
)
def test_cost_examples(line: str, cost: int) -> None:
    unit = parse_unit(f"X: 0/0/0/0\n{line}")  # defined, not set: a warning only
    assert action_cost(unit.definitions[0]) == cost


def test_format_state_contract_examples() -> None:
    grisk = UnitState("グリスク", 10, 2, 3, 2, ("スピア", "スピア", "ブースト"))
    assert format_state(grisk, "ja") == "グリスク：１０／２／３／２／スピア、スピア、ブースト"
    nut = UnitState("ヌト", 10, 3, 1, 1, ("魔法剣", "絶対剣"), life=1)
    assert format_state(nut, "ja") == "ヌト：１０／３／１／１／魔法剣、絶対剣　＜ライフ＞"
    dying = UnitState("グリスク", -1, 4, 3, 2, ("スピア", "スピア", "ブースト"))
    assert format_state(dying, "ja") == "グリスク：－１／４／３／２／スピア、スピア、ブースト"
    many = UnitState("ヌト", 1, 3, 1, 1, ("絶対剣",), life=1, guard=2, reflect=1, stun=3, poison=1)
    assert format_state(many, "ja") == (
        "ヌト：１／３／１／１／絶対剣　＜ライフ＞＜ガード×２＞＜反射＞＜スタン×３＞＜毒＞"
    )
    en = UnitState("Nut", 10, 3, 1, 1, ("Magic Sword", "Absolute Sword"), life=1)
    assert format_state(en, "en") == "Nut: 10/3/1/1/Magic Sword, Absolute Sword <Life>"
    assert format_state(UnitState("Nut", 1, 3, 1, 1, (), life=1, guard=2), "en") == (
        "Nut: 1/3/1/1 <Life><Guard x2>"
    )


def test_parse_unit_raises_sheet_error_with_every_problem() -> None:
    with pytest.raises(SheetError) as info:
        parse_unit("X: 11/1/1/1/A, B")
    assert isinstance(info.value, ValueError)
    assert {p.code for p in info.value.problems} == {"hp-not-multiple-of-5", "undefined-action"}


def test_parse_sheet_rejects_non_strings() -> None:
    with pytest.raises(TypeError):
        parse_sheet(b"X: 10/1/1/1")  # type: ignore[arg-type]


# --- properties ------------------------------------------------------------------------------

NAME_CHARS = st.sampled_from(
    list("abcXYZ09 ・ーあいアイ剣盾魔法-_.!?'&é") + ["\u3000", "Ａ", "１", "＃", "、", "（"]
)


@st.composite
def sheet_names(draw, max_size: int = 6):  # type: ignore[no-untyped-def]
    """Distinct valid action names, some with characters that need normalizing."""
    raw = draw(st.lists(st.text(NAME_CHARS, min_size=1, max_size=8), max_size=max_size * 3))
    names: list[str] = []
    for r in raw:
        if valid_name(r) and r not in names:
            names.append(r)
    return names[:max_size]


@settings(max_examples=300, deadline=None)
@given(valid_units())
def test_every_generated_valid_unit_validates_and_spends_at_most_tech(unit: Unit) -> None:
    assert unit.bonus_points == 10 and unit.hp % 5 == 0
    assert loadout_cost(unit) <= unit.tech
    result = parse_sheet(format_sheet(unit))
    assert result.errors == [], result.errors
    assert {p.code for p in result.warnings} <= {"unused-action"}


def sheet_name():  # type: ignore[no-untyped-def]
    """One valid name."""
    return st.text(NAME_CHARS, min_size=1, max_size=10).filter(valid_name)


@settings(max_examples=300, deadline=None)
@given(valid_units(names=sheet_names(), unit_names=sheet_name()))
def test_round_trip_parse_format(unit: Unit) -> None:
    assert parse_sheet(format_sheet(unit)).unit == unit
    # the other language's notation gives the same unit, up to the notation language
    other = "en" if unit.lang == "ja" else "ja"
    again = parse_sheet(format_sheet(unit, other)).unit
    assert again is not None
    assert again == Unit(
        **{**{f: getattr(unit, f) for f in unit.__dataclass_fields__}, "lang": other}
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_parse_sheet_never_raises_on_any_text(text: str) -> None:
    result = parse_sheet(text)
    assert result.ok == (result.unit is not None)
    for p in result.problems:
        assert p.message and p.fix and p.code
        assert p.line is None or 1 <= p.line <= max(1, len(text.splitlines()))


@settings(max_examples=200, deadline=None)
@given(valid_units(), st.data())
def test_mangled_valid_sheets_never_crash(unit: Unit, data: st.DataObject) -> None:
    """Cut, duplicate or corrupt lines and characters of a valid sheet: always a clean result."""
    lines = format_sheet(unit).splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        op = data.draw(st.sampled_from(["drop", "dup", "cut", "insert"]))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "cut":
            j = data.draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:j]
        else:
            j = data.draw(st.integers(0, len(lines[i])))
            junk = data.draw(
                st.text(st.sampled_from(list("：:／/、,（()）＜<＞>＋+-0９Ｎx×#・ ")), max_size=3)
            )
            lines[i] = lines[i][:j] + junk + lines[i][j:]
    result = parse_sheet("\n".join(lines))
    assert result.ok == (result.unit is not None)
    if result.ok:
        assert loadout_cost(result.unit) <= result.unit.tech  # type: ignore[union-attr]
        assert result.unit.bonus_points == 10  # type: ignore[union-attr]
    for p in result.problems:
        assert p.message and p.fix and (p.line is None or p.line >= 1)


def test_greeting_lines_above_the_unit_line() -> None:
    from app.rules.amaryllis import greeting_lines

    sheet = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"
    assert greeting_lines(sheet) == 0
    assert greeting_lines("Hello!\nHere is my unit.\n\n" + sheet) == 3
    # prose with a colon, even with a number after it, is not a sheet line
    assert greeting_lines("Hi: 2 questions first\nThanks! Here is my fixed sheet:\n" + sheet) == 2
    # a real action line or a TECH line above the unit line belongs to the sheet
    assert greeting_lines("- Spark (1): Direct Attack\n" + sheet) == 0
    assert greeting_lines("TECH 4\n" + sheet) == 0
    assert greeting_lines("no unit line here\n") == 0
