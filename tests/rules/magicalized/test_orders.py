"""The hand-and-orders language (§4.2, §4.3, G53-G63): the parser, its problems in both
languages, its limits on hostile input, sections and versions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.amaryllis.problems import Problem
from app.rules.magicalized.orders import (
    MAX_PROBLEMS,
    MAX_RULES,
    is_orders_text,
    parse_orders,
    parse_revision,
    read_play,
    read_rule,
)
from app.rules.magicalized.plays import Cond, Event, PlaySpec, Pos, Ref, Value
from app.rules.magicalized.problems import localize
from app.rules.magicalized.ruleset import MargaretMagicalized
from tests.rules.magicalized.strategies import orders_texts

RS = MargaretMagicalized()

EXAMPLE = """MAGICALIZED リーグ HAND 1234-5678
VS ヤミ
HAND 無×2、覆、燃、凍、闇、策
ORDERS
ON enemy ACT 死 PLAY 無 enemy THIS
ON enemy CARD 無 IF targets my PLAY 覆
ON my ACT 重 IF enemy has 反射 PLAY 闇 my THIS 不可識
ON enemy HIT IF damage >= 4 PLAY 燃
ON my HIT IF damage >= 5 PLAY 凍 ONCE
ON enemy CARD 無 IF enemy used 無 PLAY 策 enemy 無
END
"""


def _rules(text: str) -> list[tuple[Event, tuple[Cond, ...], PlaySpec, bool]]:
    r = parse_orders(text)
    assert r.ok and r.orders is not None, [(p.code, p.line, p.message) for p in r.problems]
    return [
        (x.event, x.conds, x.play, x.once)
        for s in r.orders.sections
        for v in s.orders.versions
        for x in v.rules
    ]


def test_the_example_of_section_4_2() -> None:
    r = parse_orders(EXAMPLE)
    assert r.ok and r.problems == ()
    assert r.orders is not None
    (section,) = r.orders.sections
    assert section.vs == "ヤミ"
    assert section.orders.hand == ("無", "無", "覆", "燃", "凍", "闇", "策")
    assert _rules(EXAMPLE) == [
        (Event("enemy", "ACT", "死"), (), PlaySpec("無", ref=Ref("enemy", "this")), False),
        (Event("enemy", "CARD", what="無"), (Cond("targets", side="my"),), PlaySpec("覆"), False),
        (
            Event("my", "ACT", "重"),
            (Cond("has", side="enemy", name="reflect"),),
            PlaySpec("闇", ref=Ref("my", "this"), enchant="unseen"),
            False,
        ),
        (
            Event("enemy", "HIT"),
            (Cond("cmp", op=">=", a=Value("damage"), b=Value("int", 4)),),
            PlaySpec("燃"),
            False,
        ),
        (
            Event("my", "HIT"),
            (Cond("cmp", op=">=", a=Value("damage"), b=Value("int", 5)),),
            PlaySpec("凍"),
            True,
        ),
        (
            Event("enemy", "CARD", what="無"),
            (Cond("used", side="enemy", name="無"),),
            PlaySpec("策", side="enemy", target="無"),
            False,
        ),
    ]
    # offline, the only section serves even though it is a VS one (G60)
    assert r.orders.offline() == section.orders
    # against ヤミ (NFKC) that section; against anyone else nothing: no DEFAULT (G58, G59)
    assert r.orders.for_opponent("ヤミ") == section.orders
    assert r.orders.for_opponent("ﾔﾐ") == section.orders
    assert r.orders.for_opponent("ヤミ2") is None and r.orders.for_opponent("") is None


def test_japanese_aliases_read_as_the_english_keywords() -> None:
    ja = """対戦 ヤミ
手札 無×2、覆、燃、凍、闇、策
命令
時 敵 行動 死 使う 無 敵 これ
時 敵 カード 無 もし 対象 自分 使う 覆
時 自分 行動 重 もし 敵 状態 反射 使う 闇 自分 これ 不可識
時 敵 命中 もし ダメージ >= 4 使う 燃
時 自分 命中 もし ダメージ ≧ 5 使う 凍 一度
時 敵 カード 無 もし 敵 使用済 無 使う 策 敵 無
終わり
"""
    assert _rules(ja) == _rules(EXAMPLE)
    assert parse_orders(ja).lang == "ja" and parse_orders(EXAMPLE).lang == "en"


def test_postfix_and_prefix_negation_and_more_japanese() -> None:
    assert _rules("HAND 燃×7\n命令\n時 敵 命中 もし 敵 状態 反射 でない かつ 先導 使う 燃\n終わり")[
        0
    ][1] == (Cond("has", side="enemy", name="reflect", negate=True), Cond("lead"))
    assert _rules("HAND 燃×7\nORDERS\nON enemy HIT IF NOT NOT lead PLAY 燃\nEND")[0][1] == (
        Cond("lead"),
    )
    # 命令 第5ターンから = ORDERS FROM TURN 5
    r = parse_orders("HAND 燃×7\n命令\n終わり\n命令 第5ターンから\n時 敵 命中 使う 燃\n終わり")
    assert r.ok and r.orders is not None
    assert [v.start for v in r.orders.sections[0].orders.versions] == [0, 5]


def test_every_play_schema_and_its_canonical_text() -> None:
    cases = {
        "燃": "燃",
        "凍れる世界": "凍",
        "星": "星",
        "undo": "覆",
        "無 enemy 死#2": "無 enemy 死#2",
        "無 my @3": "無 my @3",
        "無 敵 デ": "無 enemy 死",
        "闇 my 斬 毒与え": "闇 my 斬 poisoning",
        "darkrite my THIS stunning": "闇 my THIS stunning",
        "赤 my 衝 AT FRONT": "赤 my 衝 AT FRONT",
        "緑 enemy 重 AT 2": "緑 enemy 重 AT 2",
        "白 my 回 AT BEFORE my 斬": "白 my 回 AT BEFORE my 斬",
        "青 my 導 AT AFTER my @1": "青 my 導 AT AFTER my @1",
        "黒 my 死 AT END": "黒 my 死 AT END",
        "黄 DISCARD 燃 my 押 AT 1": "黄 DISCARD 燃 my 押 AT 1",
        "愛 my": "愛 my",
        "知 enemy": "知 enemy",
        "心 my ORDER 斬 衝 斬": "心 my ORDER 斬 衝 斬",
        "払 enemy 反射 ALL シールド 2 Stun": "払 enemy Reflect ALL Shield 2 Stun",
        "策 enemy 無": "策 enemy 無",
        "虹 DISCARD 燃 AS 無 enemy THIS": "虹 DISCARD 燃 AS 無 enemy THIS",
        "虹 DISCARD 燃 AS 虹 DISCARD 凍 AS 策 my 虹": "虹 DISCARD 燃 AS 虹 DISCARD 凍 AS 策 my 虹",
    }
    for text, canonical in cases.items():
        p = read_play(text)
        assert p.text() == canonical, text
        assert read_play(canonical) == p


def test_rules_print_back_and_read_again() -> None:
    r = parse_orders(EXAMPLE)
    assert r.orders is not None
    again = parse_orders(RS.format_orders(r.orders))
    assert again.ok and again.orders is not None
    assert _rules(RS.format_orders(r.orders)) == _rules(EXAMPLE)


@settings(max_examples=100, deadline=None)
@given(orders_texts())
def test_random_valid_orders_round_trip(text: str) -> None:
    r = parse_orders(text)
    assert r.ok, [(p.code, p.line, p.text) for p in r.errors]
    assert r.orders is not None
    printed = RS.format_orders(r.orders)
    assert _rules(printed) == _rules(text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=400))
def test_the_parser_never_raises(text: str) -> None:
    r = parse_orders(text)
    for p in r.problems:
        assert p.code and p.message and p.fix and p.severity in ("error", "warning")
    assert (r.orders is None) == bool(r.errors)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "ON",
                "IF",
                "AND",
                "NOT",
                "PLAY",
                "ONCE",
                "my",
                "enemy",
                "any",
                "ACT",
                "HIT",
                "CARD",
                "EFFECT",
                "REFLECT",
                "DEATH",
                "VANISH",
                "damage",
                ">=",
                "=",
                "4",
                "turn",
                "hp",
                "燃",
                "無",
                "虹",
                "DISCARD",
                "AS",
                "THIS",
                "AT",
                "END",
                "FRONT",
                "BEFORE",
                "斬",
                "毒",
                "反射",
                "stack",
                "has",
                "empty",
                "targets",
                "lead",
                "critical",
                "holds",
                "used",
                "hand",
                "#2",
                "@1",
                "払",
                "ALL",
            ]
        ),
        max_size=25,
    )
)
def test_rule_word_salad_never_raises(words: list[str]) -> None:
    r = parse_orders("HAND 燃×7\nORDERS\n" + " ".join(words) + "\nEND\n")
    assert r.ok or r.errors


# -- problems: each error kind with its line, its quote and its fix, in both languages -----------

H = "HAND 燃×7\n"
ERRORS = [
    # (text, code, line)
    ("", "orders-empty", None),
    ("HAND 燃×6\nORDERS\nEND", "hand-count", 1),
    ("HAND 燃×0、凍×7\nORDERS\nEND", "hand-bad-count", 1),
    ("HAND 燃×5、火、凍\nORDERS\nEND", "unknown-card", 1),
    ("ORDERS\nON enemy HIT PLAY 燃\nEND", "hand-missing", 1),
    (H + "HAND 燃×7\nORDERS\nEND", "hand-twice", 2),
    (H + "ORDERS\nEND\nHAND 燃×7", "hand-twice", 4),
    ("VS x\nORDERS\nEND\nHAND 燃×7", "hand-after-orders", 4),
    (H + "hello\nORDERS\nEND", "unknown-line", 2),
    (H + "ORDERS\nON enemy HIT PLAY 燃", "block-unclosed", 2),
    (H + "END", "end-without-orders", 2),
    (H + "ORDERS\nON enemy HIT PLAY 燃\nORDERS FROM TURN 3\nEND", "block-in-block", 4),
    (H + "ORDERS FROM TURN 3\nEND", "first-block-from", 2),
    (H + "ORDERS\nEND\nORDERS FROM TURN 0\nEND", "from-turn-zero", 4),
    (H + "ORDERS\nEND\nORDERS FROM TURN 5\nEND\nORDERS FROM TURN 5\nEND", "from-turn-order", 6),
    (H + "ORDERS\nEND\nORDERS\nEND", "bad-orders-header", 4),
    (H + "ORDERS FROM NOW\nEND", "bad-orders-header", 2),
    ("VS\n" + H + "ORDERS\nEND", "vs-empty", 1),
    (H + "ORDERS\nEND\nDEFAULT\n" + H + "ORDERS\nEND", "default-twice", 4),
    ("VS a\n" + H + "ORDERS\nEND\nVS a\n" + H + "ORDERS\nEND", "vs-twice", 5),
    (H + "ORDERS\n" + "ON enemy HIT PLAY 燃\n" * (MAX_RULES + 1) + "END", "too-many-rules", 43),
    (
        H + "ORDERS\nON enemy HIT IF " + "turn > 1 AND " * 20 + "lead PLAY 燃\nEND",
        "rule-too-long",
        3,
    ),
    (H + "ORDERS\nON foe HIT PLAY 燃\nEND", "rule-syntax", 3),
    (H + "ORDERS\nWHEN enemy HIT PLAY 燃\nEND", "rule-syntax", 3),
    (H + "ORDERS\nON enemy HIT 燃\nEND", "rule-syntax", 3),
    (H + "ORDERS\nON enemy HIT IF damage 4 PLAY 燃\nEND", "rule-syntax", 3),
    (H + "ORDERS\nON enemy BLOW PLAY 燃\nEND", "unknown-word", 3),
    (H + "ORDERS\nON enemy HIT IF enemy has Sleep PLAY 燃\nEND", "unknown-word", 3),
    (H + "ORDERS\nON enemy HIT IF sometimes PLAY 燃\nEND", "unknown-word", 3),
    (H + "ORDERS\nON enemy HIT PLAY 闇 my THIS 全体化\nEND", "unknown-word", 3),
    (H + "ORDERS\nON enemy ACT 剣剣 PLAY 燃\nEND", "unknown-sword-word", 3),
    (H + "ORDERS\nON enemy ACT 高 PLAY 燃\nEND", "sword-not-in-lists", 3),
    (H + "ORDERS\nON enemy ACT 連 PLAY 燃\nEND", "sword-not-in-lists", 3),
    (H + "ORDERS\nON enemy HIT PLAY 火\nEND", "unknown-card", 3),
    (H + "ORDERS\nON enemy HIT IF any hp > 3 PLAY 燃\nEND", "any-value", 3),
    (H + "ORDERS\nON enemy HIT PLAY 愛 any\nEND", "any-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 無 enemy\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 赤 my 斬\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 黄 my 滅 AT END\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 虹 DISCARD 燃 無 enemy THIS\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 心 my 斬\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 払 enemy\nEND", "bad-argument", 3),
    (H + "ORDERS\nON enemy HIT PLAY 赤 my 重 AT END\nEND", "wrong-trail-sword", 3),
    (H + "ORDERS\nON enemy HIT PLAY 黄 DISCARD 燃 my 斬 AT END\nEND", "wrong-trail-sword", 3),
    (H + "ORDERS\nON enemy HIT PLAY 無 enemy 斬#0\nEND", "bad-index", 3),
    (H + "ORDERS\nON enemy HIT PLAY 赤 my 斬 AT 0\nEND", "bad-index", 3),
    (H + "ORDERS\nON enemy HIT PLAY 燃 please\nEND", "extra-words", 3),
]


@pytest.mark.parametrize(
    ("text", "code", "line"), ERRORS, ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(ERRORS)]
)
def test_each_error_names_its_line_quotes_it_and_gives_the_fix_in_both_languages(
    text: str, code: str, line: int | None
) -> None:
    r = parse_orders(text)
    assert r.orders is None
    found = [p for p in r.errors if p.code == code]
    assert found, [(p.code, p.line) for p in r.problems]
    p = found[0]
    assert isinstance(p, Problem)
    assert p.line == line
    lines = text.split("\n")
    if line is not None and code not in ("hand-missing",):
        assert p.text == lines[line - 1][:100] + ("…" if len(lines[line - 1]) > 100 else "")
    for lang in ("ja", "en"):
        q = localize(p, lang)
        assert q.lang == lang and q.message and q.fix and "{" not in q.message + q.fix
        assert q.section
    ja, en = localize(p, "ja"), localize(p, "en")
    assert ja.message != en.message
    text_out = RS.format_problems([p], "en")
    assert (f"Line {line}:" if line is not None else "Whole sheet") in text_out
    assert "fix:" in text_out and "直し方" in RS.format_problems([p], "ja")


WARNINGS = [
    (H + "ORDERS\nON enemy HIT PLAY 凍\nEND", "card-not-in-hand", 3),
    (H + "ORDERS\nON enemy HIT PLAY 虹 DISCARD 燃 AS 燃\nEND", "card-not-in-hand", 3),
    (H + "ORDERS\nON enemy HIT 熱 PLAY 燃\nEND", "impossible-event", 3),
    (H + "ORDERS\nON my VANISH 斬 PLAY 燃\nEND", "impossible-event", 3),
    (H + "ORDERS\nON enemy EFFECT Quick PLAY 燃\nEND", "impossible-event", 3),
    (H + "ORDERS\nON enemy CARD 策 PLAY 燃\nEND", "impossible-event", 3),
    (H + "ORDERS\nEND\nORDERS FROM TURN 21\nEND", "version-past-20", 4),
    ("VS a\n" + H + "ORDERS\nEND\nVS b\n" + H + "ORDERS\nEND", "sections-without-default", None),
    (H, "no-orders", 1),
]


@pytest.mark.parametrize(("text", "code", "line"), WARNINGS, ids=[c for _, c, _ in WARNINGS])
def test_warnings_do_not_reject_the_orders(text: str, code: str, line: int | None) -> None:
    r = parse_orders(text)
    assert r.ok, [(p.code, p.line) for p in r.errors]
    found = [p for p in r.warnings if p.code == code]
    assert found and found[0].line == line
    assert localize(found[0], "ja").fix and localize(found[0], "en").fix


def test_sections_default_and_vs() -> None:
    text = (
        "HAND 燃×7\nORDERS\nON enemy HIT PLAY 燃\nEND\n"  # before any header: DEFAULT
        "VS ヤミ\nHAND 凍×7\nORDERS\nON my HIT PLAY 凍\nEND\n"
    )
    r = parse_orders(text)
    assert r.ok and r.orders is not None
    assert [s.vs for s in r.orders.sections] == [None, "ヤミ"]
    assert r.orders.for_opponent("ヤミ").hand == ("凍",) * 7  # type: ignore[union-attr]
    assert r.orders.for_opponent("ヒカリ").hand == ("燃",) * 7  # type: ignore[union-attr]
    unnamed = r.orders.for_opponent("")  # an unnamed unit matches no VS: DEFAULT
    assert unnamed is not None and unnamed.hand == ("燃",) * 7
    assert r.orders.offline().hand == ("燃",) * 7  # type: ignore[union-attr]
    two = parse_orders("VS a\n" + H + "ORDERS\nEND\nVS b\n" + H + "ORDERS\nEND")
    assert two.orders is not None
    with pytest.raises(ValueError):
        two.orders.offline()  # G60
    assert RS.orders_for(two.orders, "a") is not None and RS.orders_for(two.orders, "c") is None


def test_revisions_at_a_checkpoint() -> None:
    base = RS.orders_for(parse_orders(EXAMPLE).orders, None)
    ok = RS.revise_orders(base, "ORDERS FROM TURN 6\nON enemy HIT PLAY 燃\nEND\n", from_turn=6)
    assert ok.ok and [v.start for v in ok.orders.versions] == [0, 6]
    assert ok.orders.hand == base.hand  # the hand is fixed
    early = RS.revise_orders(base, "ORDERS FROM TURN 4\nEND\n", from_turn=6)
    assert not early.ok and early.errors[0].code == "revision-too-early"
    for text, code in (
        ("HAND 燃×7\nORDERS FROM TURN 6\nEND", "revision-header"),
        ("ORDERS\nEND", "revision-needs-from"),
        ("", "revision-needs-from"),
    ):
        r = RS.revise_orders(base, text, from_turn=6)
        assert not r.ok and code in [p.code for p in r.errors]
    versions, problems, _ = parse_revision("ORDERS FROM TURN 3\nEND\nORDERS FROM TURN 9\nEND")
    assert versions is not None and [v.start for v in versions] == [3, 9] and problems == ()


# -- limits on hostile input (bounded by counts; no timing) ---------------------------------------


def test_a_megabyte_of_one_line_is_read_as_one_problem() -> None:
    r = parse_orders("ON enemy HIT " * 80_000)
    assert [p.code for p in r.problems] == ["unknown-line"]


def test_a_megabyte_of_rules_stops_at_the_limits() -> None:
    text = H + "ORDERS\n" + "ON enemy HIT IF damage >= 4 PLAY 燃\n" * 30_000 + "END\n"
    assert len(text) > 1_000_000
    r = parse_orders(text)
    codes = [p.code for p in r.problems]
    assert "too-many-rules" in codes and "orders-too-many-lines" in codes
    assert len(r.problems) <= MAX_PROBLEMS + 1


def test_a_megabyte_of_garbage_lines_stops_at_the_problem_limit() -> None:
    r = parse_orders("x\n" * 500_000)
    assert len(r.problems) == MAX_PROBLEMS + 1 and r.problems[-1].code == "orders-too-many-problems"


def test_a_huge_hand_line_and_deep_rainbows() -> None:
    r = parse_orders("HAND " + "燃、" * 300_000)
    assert r.orders is None and len(r.problems) <= MAX_PROBLEMS + 1
    four = "ON enemy HIT PLAY " + "虹 DISCARD 燃 AS " * 4 + "燃"
    assert read_rule(four)[2].chain()[-1] == PlaySpec("燃")
    five = "ON enemy HIT PLAY " + "虹 DISCARD 燃 AS " * 5 + "燃"
    r = parse_orders(H + "ORDERS\n" + five + "\nEND")
    assert [p.code for p in r.errors] == ["bad-argument"]  # 虹紡ぎ nested too deep
    too_big = parse_orders("x" * 2_000_001)
    assert [p.code for p in too_big.problems] == ["orders-too-large"]


def test_is_orders_text() -> None:
    assert is_orders_text(EXAMPLE) and is_orders_text("手札 燃×7") and is_orders_text("orders")
    assert not is_orders_text("10/1/0/3/導死速盾/ミラ") and not is_orders_text("handy")


def test_read_rule_reports_its_problem_code() -> None:
    assert read_rule("ON enemy HIT PLAY 燃")[0] == Event("enemy", "HIT")
    with pytest.raises(ValueError, match="rule-syntax"):
        read_rule("ON enemy HIT 燃")
    assert read_play("赤 my 斬 AT BEFORE my 衝").pos == Pos("before", ref=Ref("my", "sword", "衝"))
