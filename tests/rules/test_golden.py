"""The golden battles (tests/rules/golden/*.txt), the seed's worked battle first among them."""

from __future__ import annotations

import pytest

from app.reports.battle import render_battle
from app.rules.amaryllis import battle, parse_sheet
from tests.rules.golden_runner import all_goldens, check, load


@pytest.mark.parametrize("path", all_goldens(), ids=lambda p: p.stem)
def test_golden_battle(path) -> None:
    assert check(load(path)) is None, check(load(path))


def test_seed_report_prints_the_seeds_state_lines_and_result() -> None:
    g = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))
    a, b = parse_sheet(g.sheet_a).unit, parse_sheet(g.sheet_b).unit
    result = battle(a, b)
    report = render_battle(a, b, result, lang="ja")
    # as the seed prints them (seeds/001, 戦闘例), in this order
    expected = [
        "第１ターン",
        "グリスク：１０／２／３／２／スピア、スピア、ブースト",
        "ヌト：１０／３／１／１／魔法剣、絶対剣　＜ライフ＞",
        "第２ターン",
        "グリスク：５／３／３／２／スピア、スピア、ブースト",
        "ヌト：１０／３／１／１／絶対剣　＜ライフ＞",
        "第３ターン",
        "グリスク：２／４／３／２／スピア、スピア、ブースト",
        "ヌト：１０／３／１／１／絶対剣　＜ライフ＞",
        "第４ターン",
        "ヌトのライフが発動　⇒ヌト復活　⇒ＨＰ１　（ライフは消滅）",
        "グリスク：－１／４／３／２／スピア、スピア、ブースト",
        "ヌト：１／３／１／１／絶対剣",
        "結果",
        "ヌトの勝利",
    ]
    lines = report.splitlines()
    at = 0
    for want in expected:  # each expected line, in order
        assert want in lines[at:], f"{want!r} missing after line {at}:\n{report}"
        at = lines.index(want, at) + 1
    assert "第０ターン" not in lines  # nothing happened in turn 0


def test_a_mirror_match_labels_the_sides() -> None:
    g = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))
    a = parse_sheet(g.sheet_a).unit
    report = render_battle(a, a, battle(a, a), lang="ja")
    assert "グリスク（Ａ）：１０／２／３／２／スピア、スピア、ブースト" in report
    assert "グリスク（Ｂ）：１０／２／３／２／スピア、スピア、ブースト" in report
    assert "グリスク（Ａ）がスピアでグリスク（Ｂ）を攻撃" in report
