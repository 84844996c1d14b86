"""Base Margaret sheets (``rules/margaret.md`` §1, §4): both notations, the budget, every problem
with its exact (code, line), the warnings of §4.5, languages, and telling the notations apart."""

from __future__ import annotations

import pytest

from app.rules import find_ruleset, guess_ruleset
from app.rules.margaret import BASIC, Sword, Swordmaster, parse_sheet
from app.rules.margaret.notation import format_compact, format_full, is_swordmaster_line
from app.rules.margaret.samples import COMPACT, FULL

M = find_ruleset("margaret")()
LAIKA = Swordmaster(
    "徘徊するライカ", 15, 0, 1, 2, 4, (Sword("速"), Sword("熱"), Sword("衝"), Sword("絶"))
)
NUT = """ヌト：１０／３／１／１／命の剣、魔法剣、絶対剣
・命の剣（１）：ライフ与え＜リミテッド＞
・魔法剣（１）：ＨＰ減殺＜リミテッド＞＜遅延起動２＞
・絶対剣（１）：防御無視攻撃＜遅延起動３＞"""
THEKI = "10/1/1/2/守槍槍加/守:シールド:防2L,槍:スピア:直D4E2,加:ブースト:攻/グリスク"


@pytest.mark.parametrize(
    "text",
    [
        "15/0/1/2/速熱衝絶/徘徊するライカ",  # compact (stara)
        "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣",  # full (seed 000)
        "徘徊するライカ：１５／０／１／２／加速剣、加熱剣、衝撃剣、絶対剣",  # full width (M8)
        "徘徊するライカ:15/0/1/2/加速剣,加熱剣，衝撃剣, 絶対剣",  # any separator
        "徘徊するライカ：15/0/1/2/速熱衝絶",  # name first, codes
        "徘徊するライカ：15/0/1/2/速、熱、衝、絶",  # one code per item
        "Laika : 15/0/1/2/Haste Sword, heat sword, SHOCK SWORD, AbsoluteSword",
        "  15 / 0 / 1 / 2 / 速 熱 衝 絶 / 徘徊するライカ  ",
        "<100>15/0/1/2/速熱衝絶/徘徊するライカ",  # kotha's pool mark
        "15/0/1/2/<100>速熱衝絶/徘徊するライカ",
        "# my sheet\n\n15/0/1/2/速熱衝絶/徘徊するライカ\n// done",
        "15/0/1/2/速熱衝絶/徘徊するライカ\n剣技４",  # M2, stated 剣技
        "SKILL: 4\n15/0/1/2/速熱衝絶/徘徊するライカ",  # before the line
    ],
)
def test_every_notation_reads_the_same_swordmaster(text: str) -> None:
    sheet = M.parse_sheet(text)
    assert sheet.ok, M.format_problems(sheet.problems, "en")
    want = (
        LAIKA
        if "Laika" not in text
        else Swordmaster(
            "Laika",
            *[getattr(LAIKA, f) for f in ("hp", "atk", "defense", "spd", "skill", "swords")],
        )
    )
    stated = "剣技" in text or "SKILL" in text
    from dataclasses import replace

    assert sheet.entry == replace(want, skill_explicit=stated)
    assert not sheet.errors and sheet.warnings == []


def test_rulings_on_codes_names_and_parameters() -> None:
    # M4: デ and 死 are the same デス剣, printed デ
    assert (
        parse_sheet("40/0/0/1/死/るーしえ君").entry == parse_sheet("40/0/0/1/デ/るーしえ君").entry
    )
    assert M.format_sheet(parse_sheet("40/0/0/1/死/るーしえ君").entry) == "40/0/0/1/デ/るーしえ君"
    # M5 and M7: N is written, read greedily; 回12 is 回復剣12
    m = parse_sheet("5/0/0/3/回12回1/x").entry
    assert m.swords == (Sword("回", 12), Sword("回", 1))
    assert parse_sheet("x：5/0/0/3/回復剣3、Heal Sword 4").entry.swords == (
        Sword("回", 3),
        Sword("回", 4),
    )
    # M7: the name is everything after the fifth separator, '/' included; names may start with
    # a digit in the full form; the name and its slash are optional
    assert parse_sheet("15/0/1/2/速熱衝絶/A/B").entry.name == "A/B"
    assert parse_sheet("3号：15/0/1/2/速熱衝絶").entry.name == "3号"
    nameless = parse_sheet("5/0/0/3/速速魔熱衝絶").entry
    assert nameless.name == "" and M.label(nameless) == "5/0/0/3/速速魔熱衝絶"
    # M9: no sword at all; M1: the unspent points are a warning
    bubble = M.parse_sheet("5/0/0/0/")
    assert bubble.ok and bubble.entry.swords == () and bubble.entry.skill == 9
    assert [(p.code, p.severity) for p in bubble.problems] == [("unspent-points", "warning")]
    assert M.parse_sheet("5/0/0/0//バブリア").entry.name == "バブリア"


def test_the_seed_swordmasters_are_legal_and_read_alike_in_both_forms() -> None:
    for full, compact in zip(FULL, COMPACT, strict=False):
        a, b = M.parse_sheet(full), M.parse_sheet(compact)
        assert a.ok and b.ok and a.entry == b.entry and a.entry.points == 10
        assert len(a.entry.swords) == a.entry.skill  # every point spent
    # 途心 check of rules/margaret.md §1: 日路 costs 1 + 0 + 0 + 3 + 6 = 10
    assert M.parse_sheet("日路:5/0/0/3/速速魔熱衝絶").entry.points == 10


# the exact (code, line) set of every bad sheet; cascades are deliberate and named
BAD: dict[str, tuple[str, set[tuple[str, int | None]]]] = {
    "empty": ("", {("empty-sheet", None)}),
    "only-comments": ("# nothing\n\n// here", {("no-swordmaster-line", None)}),
    # rules/margaret.md §6: build targets of seed 000 that are no legal base sheets
    "zoara-11-points": (
        "ゾアラ：15/0/0/3/加速剣、加護剣、加熱剣、加熱剣、重撃剣",
        {("bonus-over", 1)},
    ),
    "meteora-14-points": ("10/5/3/2/斬斬/メテオラ", {("bonus-over", 1)}),
    "dragon-20-points": ("ドラゴン：30/0/6/4/加熱剣、斬撃剣、加熱剣、斬撃剣", {("bonus-over", 1)}),
    "gekitetsu-hundred-swords": (
        "撃鉄：10/0/0/4/詠唱剣、爆炎剣、詠唱剣、爆炎剣",
        {("unknown-sword", 1)},
    ),
    "shiyami-hundred-swords": (
        "司闇：10/0/0/2/黙祷剣、黙祷剣、残響剣、デス剣、詠唱剣、羊膜剣",
        {("unknown-sword", 1)},
    ),
    "hundred-codes-after-pool-mark": ("<100>10/0/0/4/詠爆詠爆/撃鉄", {("unknown-code", 1)}),
    "hundred-codes-over-budget": ("15/0/0/4/詠爆詠爆/x", {("unknown-code", 1), ("bonus-over", 1)}),
    "hp-not-multiple-of-5": ("12/0/1/2/速熱/x", {("hp-not-multiple-of-5", 1)}),
    "negative-atk": ("15/-1/1/2/速/x", {("negative-number", 1)}),
    "bad-number": ("x：15/a/1/2/加速剣", {("bad-number", 1)}),
    "huge-number": ("9999999/0/0/0/", {("number-too-large", 1)}),
    "three-numbers": ("15/0/1", {("swordmaster-line-numbers", 1)}),
    "bare-kai-code": ("5/0/0/3/回/x", {("missing-n", 1)}),
    "bare-kai-name": ("x：5/0/0/3/回復剣", {("missing-n", 1)}),
    "kai-zero": ("x：5/0/0/3/回復剣0", {("n-too-small", 1)}),
    "unknown-code": ("15/0/1/2/速熱衝X/x", {("unknown-code", 1)}),
    "unknown-name": ("x：15/0/1/2/加速剣、加速拳", {("unknown-sword", 1)}),
    "names-without-commas": ("x：15/0/1/2/加速剣 加熱剣", {("unknown-sword", 1)}),
    "empty-sword-name": ("x：15/0/1/2/加速剣、、加熱剣", {("empty-sword-name", 1)}),
    "no-name-full-form": ("：15/0/1/2/加速剣", {("empty-name", 1)}),
    "field-after-list": ("x：15/0/1/2/加速剣/余分", {("extra-field", 1)}),
    "two-swordmasters": (
        "15/0/1/2/速熱衝絶/A\n15/0/1/2/速熱衝絶/B",
        {("duplicate-swordmaster-line", 2)},
    ),
    "sign-off-below": ("15/0/1/2/速熱衝絶/A\nよろしくお願いします", {("extra-line", 2)}),
    "greeting-above": ("Hello\n15/0/1/2/速熱衝絶/A", {("extra-line", 1)}),
    # an Amaryllis sheet in a Margaret league: the unit line reads as a swordmaster, the action
    # lines are lines a Margaret sheet cannot hold
    "amaryllis-sheet": (NUT, {("extra-line", 2), ("extra-line", 3), ("extra-line", 4)}),
    "theki-amaryllis": (THEKI, {("theki-notation", 1)}),
    "skill-not-ten": ("15/0/1/2/速熱衝/x\n剣技3", {("bonus-not-ten", 1)}),
    "more-swords-than-skill": ("15/0/1/2/速熱衝絶斬/x\nSKILL 4", {("too-many-swords", 1)}),
    "skill-twice": ("15/0/1/2/速熱衝絶/x\n剣技4\n剣技4", {("duplicate-skill-line", 3)}),
    "negative-skill": ("15/0/1/2/速/x\n剣技-1", {("negative-number", 2)}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_sheets_give_exactly_the_expected_errors(name: str) -> None:
    text, expected = BAD[name]
    for lang in ("ja", "en"):
        sheet = M.parse_sheet(text, lang=lang)
        assert sheet.entry is None and not sheet.ok
        assert {(p.code, p.line) for p in sheet.errors} == expected
        for p in sheet.errors:  # every problem: a message, a fix, a rules section, in lang
            assert p.message and p.fix and p.section and p.lang == lang
            assert "{" not in p.message + p.fix, p
        text_out = M.format_problems(sheet.problems, lang)
        assert ("エラー" if lang == "ja" else "error") in text_out


WARN: dict[str, tuple[str, set[tuple[str, int | None]]]] = {
    "aizawa-syndrome": ("あいざわ：15/0/4/1/斬撃剣、デス剣", {("unreachable-sword", 1)}),
    "kai-beyond-turn-20": ("5/0/0/3/回25/x", {("never-usable", 1), ("unspent-points", 1)}),
    "spd-zero": ("x：15/0/1/0/斬斬", {("spd-zero", 1), ("unspent-points", 1)}),
    "fewer-swords-than-skill": ("15/0/1/2/速/x\n剣技4", {("unspent-points", 1)}),
    # a reachable 加速剣 raises SPD every turn: nothing behind it is flagged
    "haste-first": ("武本吉宏：10/0/0/3/加速剣、加熱剣、加熱剣、加熱剣、重撃剣", set()),
    # Quick swords fire in turn 0 whatever stands before them
    "quick-behind-slash": ("x：15/2/2/1/斬撃剣、高速剣", set()),
}


@pytest.mark.parametrize("name", sorted(WARN))
def test_warnings_accept_the_sheet(name: str) -> None:
    text, expected = WARN[name]
    sheet = M.parse_sheet(text)
    assert sheet.ok and not sheet.errors
    assert {(p.code, p.line) for p in sheet.warnings} == expected


def test_the_aizawa_warning_names_the_sword_and_says_it_is_a_guess() -> None:
    (w,) = M.parse_sheet("あいざわ：15/0/4/1/斬撃剣、デス剣").warnings
    assert "２本目の「デス剣」" in w.message and "あいざわ病" in w.message and "推定" in w.message
    (w,) = M.parse_sheet("あいざわ：15/0/4/1/斬撃剣、デス剣", lang="en").warnings
    assert '"Death Sword" (sword 2)' in w.message and "estimate" in w.message
    (w,) = M.parse_sheet("x：15/1/1/2/斬撃剣、斬撃剣、デス剣", lang="en").warnings
    assert w.message.startswith('"Death Sword" (sword 3) will') and "SPD (2)" in w.message


def test_messages_follow_the_sheet_language() -> None:
    assert M.parse_sheet("Laika: 15/0/1/2/Haste Sword, Heat Sword").lang == "en"
    assert M.parse_sheet("ライカ:15/0/1/2/加速剣、加熱剣").lang == "ja"  # names vote
    assert M.parse_sheet("15/0/1/2/速熱/Laika").lang == "en"  # name's script
    assert M.parse_sheet("15/0/1/2/速熱/ライカ").lang == "ja"
    assert M.parse_sheet("15/0/1/2/速熱").lang == "ja"  # no clue: ja
    assert M.parse_sheet("15/0/1/2/速熱\nSKILL 6").lang == "en"  # keyword votes
    assert M.parse_sheet("Laika: 15/0/1/2/速熱").lang == "en"  # colon + name
    bad = M.parse_sheet("Laika: 15/0/1/2/Haste Swrod")
    assert bad.errors[0].message == 'There is no sword "Haste Swrod".'
    assert bad.errors[0].fix.startswith('Did you mean "Haste Sword"?')
    ja = M.parse_sheet("ライカ：15/0/1/2/加速拳")
    assert ja.errors[0].fix.startswith("もしかして「加速剣」？")
    assert M.parse_sheet("ライカ：15/0/1/2/加速拳", lang="en").errors[0].message.startswith("There")


def test_format_both_notations_and_the_costs() -> None:
    assert (
        format_full(LAIKA, BASIC, "ja") == "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣"
    )
    assert format_full(LAIKA, BASIC, "en") == (
        "徘徊するライカ: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword"
    )
    assert format_compact(LAIKA, BASIC) == "15/0/1/2/速熱衝絶/徘徊するライカ"
    kai = parse_sheet("x：5/0/0/3/回復剣3").entry
    assert format_full(kai, BASIC, "en") == "x: 5/0/0/3/Heal Sword 3"
    assert format_compact(kai, BASIC) == "5/0/0/3/回3/x"
    assert (
        M.format_sheet(parse_sheet("15/0/1/2/速熱衝絶/x\n剣技４").entry)
        == "15/0/1/2/速熱衝絶/x\n剣技4"
    )
    assert M.format_costs(LAIKA, "ja") == (
        "ポイントの内訳\n・能力：ＨＰ１５÷５＝３、攻撃力０、防御力１、素早さ２：６点\n"
        "・剣技４：剣４本×１＝４点\n合計１０／１０点（残り０）"
    )
    assert M.format_costs(parse_sheet("5/0/0/0/").entry, "en") == (
        "Points\n- abilities: HP 5/5 = 1, ATK 0, DEF 0, SPD 0: 1\n"
        "- SKILL 9: 0 sword(s) x1 = 0\nTotal 1 / 10 (9 left)"
    )


def test_starts_sheet_and_greeting_lines() -> None:
    for line in (
        "15/0/1/2/速熱衝絶/徘徊するライカ",
        "ライカ：15/0/1/2/加速剣",
        "<100>5/0/0/0/",
        "5/0/0/0",
        "Laika: 15/0/1/2",
    ):
        assert M.starts_sheet(line) and is_swordmaster_line(line), line
    for line in (
        "剣技4",
        "# 15/0/1/2/速",
        THEKI,
        "・命の剣（１）：ライフ与え＜リミテッド＞",
        "Hi: 2 questions first",
        "Thanks!",
        "",
        "x" * 30_000,
    ):
        assert not M.starts_sheet(line), line
    assert M.greeting_lines("Hello,\n\nmy entry:\n15/0/1/2/速熱衝絶/x") == 3
    assert M.greeting_lines("剣技4\n15/0/1/2/速熱衝絶/x") == 0
    assert M.greeting_lines("15/0/1/2/速熱衝絶/x") == 0 and M.greeting_lines("hello") == 0


def test_the_notations_are_told_apart() -> None:
    amaryllis, margaret = find_ruleset("amaryllis"), find_ruleset("margaret")
    for text in (
        *FULL,
        *COMPACT,
        "日路:5/0/0/3/速速魔熱衝絶",
        "15/0/1/2/速熱衝X/typo",
        "ライカ：15/0/1/2/加速剣、未知剣",
        "Hello!\n15/0/1/2/速熱衝絶/x",
    ):
        assert M.recognizes(text) and not amaryllis().recognizes(text), text
        assert guess_ruleset(text) is margaret, text
    for text in (
        NUT,
        THEKI,
        "10/1/1/2/盾槍槍加/盾:シールド:防2L,槍:スピア:直D4E2,加:ブースト:攻",
        "Grisk: 10/1/1/2/Boost\n- Boost: ATK+1",
        "グリスク：10/1/1/2/命の剣\n技術4",
    ):
        assert not M.recognizes(text) and amaryllis().recognizes(text), text
        assert guess_ruleset(text) is amaryllis, text
    # a swordmaster without swords reads the same in both: the registry order decides
    assert M.recognizes("Wall: 50/0/0/0") and guess_ruleset("Wall: 50/0/0/0") is amaryllis
    for text in ("", "Great game!", "Grisk: 10/1/1/2/Shield"):
        assert guess_ruleset(text) is None, text


HOSTILE: list[tuple[str, str, str]] = [
    (
        "10,000 junk lines",
        "15/0/1/2/速熱衝絶/x\n" + "".join(f"junk {i}\n" for i in range(10_000)),
        "too-many-problems",
    ),
    ("1,200 comment lines", "15/0/1/2/速熱衝絶/x\n" + "# note\n" * 1_200, "too-many-lines"),
    (
        "19,000 unknown codes",
        "15/0/1/2/" + "".join(chr(0x4E00 + i) for i in range(19_000)) + "/x",
        "unknown-code",
    ),
    (
        "3,000 unknown names",
        "x：15/0/1/2/" + "、".join(f"剣{i}" for i in range(3_000)),
        "unknown-sword",
    ),
    ("a 19,000-digit N", "15/0/1/2/回" + "9" * 19_000, "number-too-large"),
    ("9,000 swords", "15/0/1/2/" + "回1" * 9_000, "bonus-over"),
    ("a 2 MB text", "x" * 2_000_000, "too-large"),
    ("binary junk", "".join(chr(i % 256) for i in range(0, 600_000, 7)), "extra-line"),
    (
        "1,000 swordmaster lines",
        "".join(f"15/0/1/2/速熱衝絶/x{i}\n" for i in range(1_000)),
        "duplicate-swordmaster-line",
    ),
    ("a 30,000-character line", "15/0/1/2/" + "速" * 30_000, "line-too-long"),
]
"""Hostile Margaret sheets: (name, text, the error it must give); ``benchmarks/sheets.py``."""


@pytest.mark.parametrize("name, text, code", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_sheets_cost_bounded_work(name: str, text: str, code: str) -> None:
    sheet = M.parse_sheet(text)
    out = M.format_problems(sheet.problems, sheet.lang)
    assert code in {p.code for p in sheet.errors}
    assert len(sheet.problems) <= 501  # reading stops at 500 problems, unknowns capped per line
    assert sum(p.code in ("unknown-code", "unknown-sword") for p in sheet.problems) <= 20
    assert len(out) < 50_000
