"""Margaret Hundred behind the ``Ruleset`` interface (``app/rules/base.py``): league options (H1,
H3, H53, H58, H61), the registry, outcomes, ``battle --json`` (§8.12) and reports (§12.12)."""

from __future__ import annotations

import json
import pickle

import pytest

from app.rules import find_ruleset, guess_ruleset
from app.rules.base import BattleReport, Outcome
from app.rules.hundred import MargaretHundred
from app.rules.hundred.options import DEFAULTS


def rs(**options: object) -> MargaretHundred:
    return MargaretHundred(options)


def entry(r: MargaretHundred, text: str):
    sheet = r.parse_sheet(text)
    assert sheet.ok, r.format_problems(sheet.problems, "en")
    return sheet.entry


# -- options -----------------------------------------------------------------------------------


def test_defaults_are_the_1_6_a_record():
    assert MargaretHundred().options == DEFAULTS
    assert MargaretHundred({}).options == MargaretHundred(None).options
    assert MargaretHundred() == MargaretHundred({"party-cap": 8, "budget": "10"})
    assert hash(MargaretHundred()) == hash(MargaretHundred({"budget": 10}))


@pytest.mark.parametrize(
    "options, name",
    [
        ({"colour": 1}, "colour"),
        ({"budget": -1}, "budget"),
        ({"budget": True}, "budget"),
        ({"party_cap": 0}, "party_cap"),
        ({"procedure_limit": "many"}, "procedure_limit"),
        ({"pool": ["斬", "スピア"]}, "pool"),
        ({"pool": []}, "pool"),
        ({"costs": {"斬": -1}}, "costs"),
        ({"costs": ["斬"]}, "costs"),
        ({"mp_costs": {"nope": 1}}, "mp_costs"),
        ({"heavens_door": "sometimes"}, "heavens_door"),
        ({"party_cap": 10**9}, "party_cap"),
    ],
)
def test_bad_options_raise_value_error_naming_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        MargaretHundred(options)


def test_options_are_normalized_and_json_ready():
    r = rs(
        pool=["滅奏剣", "Slash Sword", "回"],
        costs={"爆炎剣": 2, "斬": 1},
        mp_costs={"Requiem Sword": 3, "精": 0},
        heavens_door="IGNORE",
        procedure_limit="500",
    )
    assert r.options == {
        "budget": 10,
        "pool": ["斬", "回", "滅"],
        "costs": {"爆": 2},
        "mp_costs": {"滅": 3},
        "party_cap": 8,
        "procedure_limit": 500,
        "heavens_door": "ignore",
    }
    assert json.loads(json.dumps(r.options)) == r.options
    assert MargaretHundred(r.options) == r
    assert rs(pool="basic").options["pool"] == "basic"
    assert rs(pool=list("斬高重衝毒絶魔デ熱護速盾鏡命回")).options["pool"] == "basic"


def test_describe_prints_the_record_in_both_languages():
    r = rs(mp_costs={"滅": 3}, costs={"爆": 2}, party_cap=4, pool="basic")
    ja, en = r.describe("ja"), r.describe("en")
    assert ja[0] == "ルール：マーガレット・ハンドレッド 1.6.a" and len(ja) == len(en) == 7
    assert "パーティ上限：4人" in ja and "Party cap: 4 swordmasters" in en
    assert any("滅奏剣 3" in x for x in ja) and any("Requiem Sword 3" in x for x in en)
    assert any("爆炎剣 2" in x for x in ja) and any("ベーシック15種" in x for x in ja)
    assert "MP costs: none (every MP cost 0, H3)" in MargaretHundred().describe("en")


def test_the_options_reach_the_engine():
    # the procedure limit and the party cap are the league's (H53, H61)
    a = entry(rs(), "10/0/0/1/精/a")
    b = entry(rs(), "10/0/0/0//b")
    assert len(rs(party_cap=3).battle(a, b).final[0]) == 3
    r = rs(mp_costs={"精": 1}).battle(a, b)  # no MP: the build is never executable
    assert len(r.final[0]) == 1


# -- registry and sheets -----------------------------------------------------------------------------


def test_registered_under_its_name_and_aliases():
    for name in ("margaret-hundred", "hundred", "MH", "ハンドレッド"):
        assert find_ruleset(name) is MargaretHundred
    assert MargaretHundred.party and MargaretHundred.engine_version


def test_parse_sheet_returns_the_generic_sheet():
    r = rs()
    sheet = r.parse_sheet("徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣")
    assert sheet.ok and sheet.ruleset == "margaret-hundred" and sheet.name == "徘徊するライカ"
    assert r.label(sheet.entry) == "徘徊するライカ"
    assert r.format_sheet(sheet.entry) == "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣"
    assert "Haste Sword" in r.format_sheet(sheet.entry, "en")
    assert "合計10点／予算10点" in r.format_costs(sheet.entry, "ja")
    assert "total 10 of 10 points" in r.format_costs(sheet.entry, "en")
    bad = r.parse_sheet("ライカ：15/0/1/2/加速剣、スピア")
    assert not bad.ok and bad.entry is None and "直し方" in r.format_problems(bad.problems, "ja")
    assert not r.parse_sheet(None).ok  # type: ignore[arg-type]


def test_sheet_detection_and_recognition():
    r = rs()
    assert r.starts_sheet("15/0/1/2/速熱衝絶") and not r.starts_sheet("こんにちは")
    assert r.greeting_lines("こんにちは\nよろしく\n15/0/1/2/速熱衝絶") == 2
    assert r.greeting_lines("剣技6\n15/0/0/1/速熱衝絶") == 0
    assert r.recognizes("55/0/3/6/黙黙抑滅遅.19滅/撃鉄Act.6")
    assert r.recognizes("Koh: 5/5/0/2/Swift Sword")
    assert not r.recognizes(
        "グリスク：１０／１／１／２／シールド\n・シールド（１）：防御力＋２＜リミテッド＞"
    )
    assert not r.recognizes(
        "10/1/1/2/守槍槍加/守:シールド:防2L,槍:スピア:直D4E2,加:ブースト:攻/グリスク"
    )
    assert r.recognizes("10/0/0/4/詠爆詠爆/撃鉄") and r.recognizes("<100>10/0/0/4/詠爆詠爆/撃鉄")
    assert not r.recognizes("10/0/0/4/詠爆x/撃鉄") and not r.recognizes("hello")
    # a full-form sheet of Hundred swords is not taken for Amaryllis nor base Margaret
    assert guess_ruleset("撃鉄：10/0/0/4/詠唱剣、爆炎剣、詠唱剣、爆炎剣") is MargaretHundred


def test_examples_and_samples_are_valid():
    r = rs()
    for lang in ("ja", "en"):
        assert r.parse_sheet(r.example_sheet(lang)).ok
    samples = r.sample_sheets()
    assert len(samples) >= 6 and all(r.parse_sheet(s).ok for s in samples)
    basic = rs(pool="basic")
    assert basic.sample_sheets() and all(basic.parse_sheet(s).ok for s in basic.sample_sheets())


# -- battles, outcome, JSON ------------------------------------------------------------------------------


def test_outcome_and_result_json_follow_8_12():
    r = rs()
    a = entry(r, "10/3/0/2/全盾/アマリリス")
    b = entry(r, "ウィスプ使い：10/0/0/1/精霊剣、詠唱剣、鏡の剣")
    res = r.battle(a, b)
    oc = r.outcome(res)
    assert isinstance(oc, Outcome) and oc.termination in ("death", "overkill", "hp", "push", "draw")
    assert Outcome.from_json(json.loads(json.dumps(oc.to_json()))) == oc
    j = r.result_json(res)
    assert set(j) >= {"winner", "reason", "turns", "final", "by", "events"}
    assert j["reason"] == res.reason and j["turns"] == res.turns
    for side in ("A", "B"):
        items = j["final"][side]
        assert items and all(
            {"name", "hp", "max_hp", "mp", "alive", "exited"} <= set(x) for x in items
        )
        present = [x for x in items if not x["exited"]]
        assert items[: len(present)] == present  # present first, then exited in exit order
    assert j["final"]["B"][-1]["exited"] and len(j["final"]["B"]) > 8
    assert "events" not in r.result_json(res, events=False)
    json.dumps(j)  # JSON-ready


def test_heavens_door_request_follows_the_policy():
    a = entry(rs(), "10/3/0/1/疎斬/A")
    b = entry(rs(), "5/0/0/0//B")
    res = rs().battle(a, b)
    assert rs().result_json(res, events=False)["heavens_door"] == {
        "rewrite": "A",
        "with": "B",
        "policy": "between-rounds",
    }
    assert rs(heavens_door="ignore").outcome(res).detail["heavens_door"] is None


def test_margin_is_side_a_over_side_b():
    r = rs()
    res = r.battle(entry(r, "5/6/0/1/斬/A"), entry(r, "5/5/0/1/斬/B"))
    oc = r.outcome(res)
    assert (oc.by, oc.winner, oc.margin) == ("overkill", 0, 1)  # overkill A 0, B 1


def test_results_and_rulesets_pickle():
    r = rs(party_cap=5)
    res = r.battle(entry(r, "10/3/0/1/斬/A"), entry(r, "10/3/0/1/斬/B"), log=False)
    assert pickle.loads(pickle.dumps(res)) == res
    assert pickle.loads(pickle.dumps(r)) == r


# -- reports -----------------------------------------------------------------------------------------------


def test_report_has_header_sheets_turns_states_and_judge():
    r = rs()
    a = entry(r, "10/3/0/2/全盾/アマリリス")
    b = entry(r, "ウィスプ使い：10/0/0/1/精霊剣、詠唱剣、鏡の剣")
    res = r.battle(a, b)
    for lang in ("ja", "en"):
        rep = r.report(a, b, res, lang=lang)
        assert isinstance(rep, BattleReport) and rep.header == tuple(r.describe(lang))
        assert rep.sheets == (r.format_sheet(a, lang), r.format_sheet(b, lang))
        assert [t.turn for t in rep.turns] == list(range(0, 21))
        t2 = rep.turns[2]
        assert len(t2.states[1]) == 8  # seven wisps and their builder, front first
        assert rep.verdict and rep.explanation
    ja = r.report(a, b, res, lang="ja")
    assert "オーバーターン判定" in ja.explanation[0]
    # an exited swordmaster is listed in the turn it exits, not after
    exited = [s.name for t in ja.turns for side in t.states for s in side if s.exited]
    assert len(exited) == len(set(exited))


def test_a_long_battle_reads_short():
    # 光速剣's 100 hits are one line; the eight skips after it one line ending in ×８; in turn 1
    # the nine skips one line.
    r = rs(budget=30)
    a = entry(r, "10/10/0/9/光/A")
    b = entry(r, "150/0/0/0//B")
    rep = r.report(a, b, r.battle(a, b), lang="ja")
    t0 = rep.turns[0]
    assert len(t0.lines) == 2
    assert "１ダメージ×１００" in t0.lines[0].text
    assert t0.lines[1].text.endswith("×８")
    assert len(rep.turns[1].lines) == 1 and rep.turns[1].lines[0].text.endswith("×９")


def test_report_of_an_unlogged_result_raises():
    r = rs()
    a, b = entry(r, "10/3/0/1/斬/A"), entry(r, "10/3/0/1/斬/B")
    with pytest.raises(ValueError):
        r.report(a, b, r.battle(a, b, log=False), lang="en")


def test_mirror_match_names_both_sides():
    r = rs()
    a = entry(r, "10/3/0/1/斬/同じ")
    rep = r.report(a, a, r.battle(a, a), lang="ja")
    assert rep.names == {"A": "同じ（Ａ）", "B": "同じ（Ｂ）"}


def test_many_actions_fold_into_one_line_each_turn():
    # 舞踏剣 unuses itself (H45): with SPD 10 it acts 10 times a turn from turn 3, 180 actions in
    # the battle; each turn's ten identical actions are one line ending in ×１０.
    r = rs(budget=100)
    a = entry(r, "10/2/0/10/舞/A")
    b = entry(r, "500/0/0/0//B")
    res = r.battle(a, b)
    assert res.procedures == 21 * 10
    rep = r.report(a, b, res, lang="ja")
    for t in rep.turns[3:]:
        assert len(t.lines) == 1 and t.lines[0].text.endswith("×１０")
    assert sum(len(t.lines) for t in rep.turns) <= 21
