"""The hand-derived Margaret golden battles (``golden/*.txt``) and their reports in the seed's
style: the ruleset record on top, swords named in the report's language, M10 in turn 0."""

from __future__ import annotations

import json

import pytest

from app.reports.battle import render_battle
from app.rules import find_ruleset
from tests.rules.golden_runner import load
from tests.rules.margaret.golden_runner import all_goldens, check

M = find_ruleset("margaret")()


def _golden(stem: str):  # type: ignore[no-untyped-def]
    g = load(next(p for p in all_goldens() if p.stem.startswith(stem)))
    return M.parse_sheet(g.sheet_a).entry, M.parse_sheet(g.sheet_b).entry


def test_there_are_golden_battles() -> None:
    assert len(all_goldens()) >= 7


@pytest.mark.parametrize("path", all_goldens(), ids=lambda p: p.stem)
def test_golden_battle(path) -> None:  # type: ignore[no-untyped-def]
    assert check(load(path)) is None, check(load(path))


def test_report_in_the_seeds_style_ja() -> None:
    a, b = _golden("04")
    text = render_battle(a, b, M.battle(a, b), lang="ja", ruleset=M)
    lines = text.splitlines()
    assert lines[:5] == M.describe("ja") and lines[5] == ""
    assert lines[6] == "紫電：5/0/0/4/加速剣、衝撃剣、加熱剣、衝撃剣、加熱剣"
    assert lines[8] == "5/3/0/3/デデデ/無考オランダ"  # each sheet in the notation it came in
    expected = [
        "第１ターン",
        "紫電が加速剣を実行　⇒素早さ５",
        "紫電が加熱剣を実行　⇒攻撃力１",
        "紫電が加熱剣を実行　⇒攻撃力２",
        "紫電：５／２／０／５／加速剣、衝撃剣、加熱剣、衝撃剣、加熱剣",
        "無考オランダ：５／３／０／３／デス剣、デス剣、デス剣",
        "第２ターン",
        "紫電が衝撃剣で無考オランダを攻撃　⇒２ダメージ　⇒ＨＰ３　⇒状態「スタン」付与",
        "紫電が衝撃剣で無考オランダを攻撃　⇒３ダメージ　⇒ＨＰ０　⇒状態「スタン」付与",
        "無考オランダ死亡　（ＨＰ０）",
        "無考オランダ：０／３／０／３／デス剣、デス剣、デス剣　＜スタン×２＞",
        "結果",
        "紫電の勝利",
        "（第２ターン、無考オランダ死亡）",
    ]
    at = 0
    for want in expected:
        assert want in lines[at:], f"{want!r} missing after line {at}:\n{text}"
        at = lines.index(want, at) + 1
    assert "第０ターン" not in lines


def test_report_in_english_names_the_swords_in_english() -> None:
    a, b = _golden("03")
    text = render_battle(a, b, M.battle(a, b), lang="en", ruleset=M)
    assert text.startswith("Ruleset: Margaret (15 swords)\n")
    assert "鏡使い: 10/2/0/2/Shield Sword, Mirror Sword, Life Sword, Venom Sword" in text
    assert (
        "毒師 attacks 鏡使い with Slash Sword => reflected by 鏡使い => 2 damage to 毒師 => HP 8"
        in text
    )
    assert "鏡使い: 7/2/0/2/Shield Sword, Venom Sword <Life><Guard><Poison>" in text
    assert "鏡使い's Life triggers => 鏡使い revives => HP 1 (Life is used up)" in text
    assert "毒師 wins\n(turn 5: 鏡使い died)\n" in text
    assert "剣" not in text.split("\n\n", 3)[3]  # no Japanese sword name after the sheets


def test_the_death_check_after_turn_0_is_told_in_turn_0() -> None:
    a, b = _golden("01")  # しゃるる vs コウ: both dead after turn 0, overkill
    r = M.battle(a, b)
    report = M.report(a, b, r, lang="ja")
    assert [t.turn for t in report.turns] == [0]
    assert [line.text for line in report.turns[0].lines][-2:] == [
        "しゃるる死亡　（ＨＰ－５）",
        "コウ死亡　（ＨＰ－１）",
    ]
    assert report.explanation == ("（第０ターン、両者死亡。ＨＰ比較　しゃるる－５、コウ－１）",)
    assert report.outcome.turns == 0 and report.outcome.termination == "overkill"
    text = render_battle(a, b, r, lang="en", ruleset=M)
    assert "Turn 0" in text and "Turn 1" not in text and "(turn 0: both died;" in text
    a, b = _golden("06")  # HP 0 from the start: nothing happens in turn 0 but the death check
    report = M.report(a, b, M.battle(a, b), lang="en")
    assert [(t.turn, [x.text for x in t.lines]) for t in report.turns] == [(0, ["零 dies (HP 0)"])]


def test_html_report_escapes_and_mirror_labels() -> None:
    a, _ = _golden("04")
    html = render_battle(a, a, M.battle(a, a), lang="ja", fmt="html", ruleset=M)
    assert html.lower().startswith("<!doctype html>") and "紫電（Ａ）が加速剣を実行" in html
    evil = M.parse_sheet("15/0/1/2/速熱衝絶/<script>alert(1)</script>").entry
    html = render_battle(evil, a, M.battle(evil, a), lang="en", fmt="html", ruleset=M)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_battle_json_follows_margaret_md_section_7() -> None:
    a, b = _golden("02")  # あいざわ vs るーしえ君
    data = json.loads(json.dumps(M.result_json(M.battle(a, b)), ensure_ascii=False))
    assert set(data) == {"winner", "reason", "turns", "by", "final", "events"}
    assert (data["winner"], data["reason"], data["turns"], data["by"]) == ("B", "death", 6, "death")
    (fa,), (fb,) = data["final"]["A"], data["final"]["B"]
    assert list(fa)[:6] == ["name", "hp", "max_hp", "mp", "alive", "exited"]
    assert (fa["name"], fa["hp"], fa["max_hp"], fa["mp"], fa["alive"], fa["exited"]) == (
        "あいざわ",
        0,
        15,
        0,
        False,
        True,
    )
    assert fa["swords"] == ["斬", "デ"] and fb["swords"] == [] and fb["hp"] == 40
    attack = next(e for e in data["events"] if e["type"] == "attack")
    assert attack["sword"] == "斬" and attack["action"] == "斬撃剣"
    a, b = _golden("01")
    data = M.result_json(M.battle(a, b), events=False)
    assert (data["winner"], data["reason"], data["turns"], data["by"]) == (
        "B",
        "overkill",
        0,
        "overkill",
    )
    assert "events" not in data
