"""Amaryllis through the ``Ruleset`` interface (``app/rules/amaryllis/ruleset.py``): the adapter
changes nothing that the module functions print or decide."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.reports.battle import render_battle
from app.rules import find_ruleset, guess_ruleset
from app.rules.amaryllis import (
    battle,
    format_costs,
    format_problems,
    format_sheet,
    greeting_lines,
    parse_sheet,
    result_json,
)
from app.rules.base import BattleReport, Outcome, Ruleset
from tests.reports.corpus import CORPUS
from tests.rules.golden_runner import all_goldens, load
from tests.rules.strategies import valid_units

SEED = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))
R = find_ruleset("amaryllis")()
MARGARET_FULL = "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣"
MARGARET_COMPACT = "15/0/1/2/速熱衝絶/徘徊するライカ"
THEKI = "10/1/1/2/守槍槍加/守:シールド:防2L,槍:スピア:直D4E2,加:ブースト:攻/グリスク"


def test_found_by_name_and_alias_case_insensitively() -> None:
    assert find_ruleset("amaryllis") is find_ruleset(" Amaryllis ") is find_ruleset("アマリリス")
    assert R.name == "amaryllis" and R.engine_version == "1" and not R.party
    assert R == find_ruleset("amaryllis")() and hash(R) == hash(find_ruleset("amaryllis")())
    assert pickle.loads(pickle.dumps(R)) == R
    with pytest.raises(ValueError, match="takes no options"):
        find_ruleset("amaryllis")({"budget": 12})
    with pytest.raises(ValueError, match="unknown ruleset 'chess'"):
        find_ruleset("chess")


def test_parse_sheet_wraps_the_module_result() -> None:
    sheet = R.parse_sheet(SEED.sheet_a)
    module = parse_sheet(SEED.sheet_a)
    assert sheet.ok and sheet.entry == module.unit and sheet.name == "グリスク"
    assert sheet.ruleset == "amaryllis" and sheet.lang == "ja" and sheet.problems == ()
    bad = R.parse_sheet("ダメ：１１／１／１／２／大技\n・大技（２）：防御無視攻撃")
    assert not bad.ok and bad.entry is None and bad.name == "ダメ"
    assert [p.code for p in bad.errors] == [
        p.code
        for p in parse_sheet("ダメ：１１／１／１／２／大技\n・大技（２）：防御無視攻撃").errors
    ]
    assert R.parse_sheet("x: 10/1/1/2", lang="en").lang == "en"
    assert R.parse_sheet(None).entry is None  # type: ignore[arg-type]  # never raises


def test_printing_delegates_to_the_module_functions() -> None:
    unit = R.parse_sheet(SEED.sheet_a).entry
    for lang in ("ja", "en"):
        assert R.format_sheet(unit, lang) == format_sheet(unit, lang)
        assert R.format_costs(unit, lang) == format_costs(unit, lang)
    problems = R.parse_sheet("Bad: 10/1/1/2/Nothing").problems
    assert R.format_problems(problems, "ja") == format_problems(list(problems), "ja")
    assert R.label(unit) == "グリスク"
    with pytest.raises(TypeError):
        R.format_sheet("not a unit")


def test_starts_sheet_and_greeting_lines() -> None:
    assert R.starts_sheet("グリスク：１０／１／１／２／シールド、スピア")
    assert R.starts_sheet("Grisk: 10/1/1/2")
    assert not R.starts_sheet("・シールド（１）：防御力＋２＜リミテッド＞")
    assert not R.starts_sheet("技術４") and not R.starts_sheet("# グリスク：１０／１／１／２")
    assert not R.starts_sheet("Hi: 2 questions first") and not R.starts_sheet(MARGARET_COMPACT)
    text = "Hello!\nHere is my unit.\n" + SEED.sheet_a
    assert R.greeting_lines(text) == greeting_lines(text) == 2


def test_recognizes_amaryllis_notation_only() -> None:
    assert R.recognizes(SEED.sheet_a) and R.recognizes(SEED.sheet_b)
    assert R.recognizes("Grisk: 10/1/1/2/Boost\n- Boost: ATK+1")
    assert R.recognizes("Wall: 50/0/0/0")  # no action at all reads in both notations
    assert R.recognizes("Grisk: 10/1/1/2/Boost\nTECH 4")
    assert R.recognizes(THEKI)  # THEKI's one-line Amaryllis form (rules/margaret.md §4.4)
    assert not R.recognizes(MARGARET_FULL) and not R.recognizes(MARGARET_COMPACT)
    assert not R.recognizes("") and not R.recognizes("Great game!")
    assert guess_ruleset(SEED.sheet_a) is find_ruleset("amaryllis")


def test_battle_outcome_and_json_of_the_seed_battle() -> None:
    a, b = R.parse_sheet(SEED.sheet_a).entry, R.parse_sheet(SEED.sheet_b).entry
    result = R.battle(a, b)
    assert result == battle(a, b) and result.events == battle(a, b).events
    assert R.result_json(result) == result_json(result)
    assert R.result_json(result, events=False) == result_json(result, events=False)
    out = R.outcome(result)
    assert (out.winner, out.termination, out.turns, out.by, out.margin) == (
        1,
        "death",
        4,
        "death",
        -2,
    )
    (ga,), (nb,) = out.final
    assert (ga.name, ga.hp, ga.max_hp, ga.alive, ga.exited) == ("グリスク", -1, 10, False, True)
    assert (nb.name, nb.hp, nb.max_hp, nb.alive, nb.exited) == ("ヌト", 1, 10, True, False)
    assert nb.detail["actions"] == ["絶対剣"] and out.hp(1) == 1 and out.hp(0) == 0
    assert Outcome.from_json(json.loads(json.dumps(out.to_json()))) == out
    assert result.max_hp == (10, 10) and result.ended_at == "action"


def test_draws_name_their_judge_and_turn_zero_deaths_end_at_the_start_of_turn_one() -> None:
    wall = R.parse_sheet("Wall: 50/0/0/0").entry
    draw = R.outcome(R.battle(wall, wall))
    assert (draw.winner, draw.termination, draw.by, draw.turns, draw.margin) == (
        None,
        "draw",
        "hp",
        20,
        0,
    )
    # HP 0 from the start: dead at the death check that opens turn 1 (rules §2.1)
    zero = R.parse_sheet("Zero: 0/0/0/0").entry
    res = R.battle(zero, zero)
    assert (res.ended_at, res.turns, res.reason.value) == ("start", 1, "draw")
    assert R.outcome(res).by == "overkill"
    assert R.battle(zero, wall).ended_at == "start"


def layout(report: BattleReport, title: str, sheets: bool) -> str:
    """The text layout of ``templates/reports/battle.<lang>.txt`` over a report's texts."""
    ja = report.lang == "ja"
    out = [f"{title}\n\n"] if title else []
    if sheets:
        out += [s + "\n" + ("" if s.endswith("\n") else "\n") for s in report.sheets]
    for t in report.turns:
        out.append(
            (f"第{t.turn}ターン" if ja else f"Turn {t.turn}").translate(
                str.maketrans("0123456789", "０１２３４５６７８９") if ja else {}
            )
            + "\n\n"
        )
        for line in t.lines:
            out.append(line.text + "\n")
            out += [("\u3000" if ja else "  ") + c.text + "\n" for c in line.children]
        if t.lines:
            out.append("\n")
        out += [s.text + "\n" for side in t.states for s in side]
        out.append("\n")
    out.append(("結果" if ja else "Result") + "\n\n" + report.verdict + "\n")
    out += [x + "\n" for x in report.explanation]
    return "".join(out)


CASES = json.loads(CORPUS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(0, len(CASES), 3))
def test_report_texts_are_the_lines_the_templates_print(index: int) -> None:
    case = CASES[index]
    a, b = R.parse_sheet(case["a"]).entry, R.parse_sheet(case["b"]).entry
    result = R.battle(a, b)
    for lang in ("ja", "en"):
        report = R.report(a, b, result, lang=lang)
        assert report.header == () and report.outcome == R.outcome(result)
        printed = render_battle(a, b, result, lang=lang, title=case["title"], sheets=case["sheets"])
        assert layout(report, case["title"], case["sheets"]) == printed


def test_report_needs_a_logged_result() -> None:
    a = R.parse_sheet(SEED.sheet_a).entry
    with pytest.raises(ValueError, match="without a log"):
        R.report(a, a, R.battle(a, a, log=False), lang="ja")


def test_example_and_sample_sheets_are_valid() -> None:
    for lang in ("ja", "en"):
        sheet = R.parse_sheet(R.example_sheet(lang))
        assert sheet.ok and sheet.lang == lang
    samples = [R.parse_sheet(t) for t in R.sample_sheets()]
    assert [s.name for s in samples] == ["グリスク", "ヌト", "ミラ", "Bolt"]
    assert all(s.ok for s in samples)
    assert all(isinstance(line, str) for lang in ("ja", "en") for line in R.describe(lang))


@settings(max_examples=200, deadline=None)
@given(valid_units(), valid_units())
def test_outcome_agrees_with_the_json_and_the_fast_score(a, b) -> None:  # type: ignore[no-untyped-def]
    result = R.battle(a, b, log=False)
    out, data = R.outcome(result), R.result_json(result, events=False)
    assert R.winner_and_margin(result) == (out.winner, out.margin)
    assert out.margin == data["final"]["A"]["hp"] - data["final"]["B"]["hp"]
    assert (out.termination, out.turns) == (data["reason"], data["turns"])
    assert [None if out.winner is None else "AB"[out.winner]] == [data["winner"]]
    (fa,), (fb,) = out.final
    assert (fa.alive, fb.alive) == (not data["final"]["A"]["dead"], not data["final"]["B"]["dead"])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_interface_never_raises_on_any_text(text: str) -> None:
    sheet = R.parse_sheet(text)
    assert isinstance(R.recognizes(text), bool) and isinstance(R.greeting_lines(text), int)
    for line in text.splitlines():
        assert isinstance(R.starts_sheet(line), bool)
    R.format_problems(sheet.problems, "en")
    assert isinstance(R, Ruleset)
