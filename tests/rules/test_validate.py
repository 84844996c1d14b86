"""Every build and cost rule of rules §1 and its input rulings, one case at a time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.amaryllis import format_problems, localize, parse_sheet
from app.rules.amaryllis.costs import action_cost
from app.rules.amaryllis.model import Action, ActionClass
from app.rules.amaryllis.problems import CATALOGUE, MAX_LISTED

OK_TAIL = "- A (1): Guard\n"

CASES: list[tuple[str, str, set[tuple[str, int | None]]]] = [
    # name, sheet, expected errors as (code, line)
    ("hp multiple of 5", "X: 12/1/1/1/A\n" + OK_TAIL, {("hp-not-multiple-of-5", 1)}),
    ("bonus 11 with TECH", "X: 10/1/1/1/A\nTECH 6\n" + OK_TAIL, {("bonus-not-ten", 1)}),
    ("bonus 9 with TECH", "X: 10/1/1/1/A\nTECH 4\n" + OK_TAIL, {("bonus-not-ten", 1)}),
    ("bonus over 10", "X: 50/1/0/0/A\n" + OK_TAIL, {("bonus-over", 1)}),
    ("negative stat", "X: 10/1/-1/1/A\n" + OK_TAIL, {("negative-number", 1)}),
    ("negative HP", "X: -5/1/1/1/A\n" + OK_TAIL, {("negative-number", 1)}),
    ("negative TECH", "X: 10/1/1/1/A\nTECH -1\n" + OK_TAIL, {("negative-number", 2)}),
    ("full-width minus", "X：１０／－１／１／１／A\n" + OK_TAIL, {("negative-number", 1)}),
    ("huge number", "X: 10/1/1/" + "9" * 120 + "/A\n" + OK_TAIL, {("number-too-large", 1)}),
    ("not a number", "X: 10/1/a/1/A\n" + OK_TAIL, {("bad-number", 1)}),
    ("undefined name", "X: 10/1/1/1/A, B\n" + OK_TAIL, {("undefined-action", 1)}),
    (
        "duplicate definition",
        "X: 10/1/1/1/A\n" + OK_TAIL + "- A (1): Guard\n",
        {("duplicate-definition", 3)},
    ),
    ("empty name in list", "X: 10/1/1/1/A,,A\n" + OK_TAIL, {("empty-action-name", 1)}),
    ("trailing comma", "X: 10/1/1/1/A,\n" + OK_TAIL, {("empty-action-name", 1)}),
    ("unknown line", "X: 10/1/1/1/A\n" + OK_TAIL + "thanks!\n", {("unknown-line", 3)}),
    ("unknown class", "X: 10/1/1/1/A\n- A (1): Gaurd\n", {("unknown-class", 2)}),
    ("N zero", "X: 10/1/1/1/A\n- A: ATK+0\n", {("n-too-small", 2)}),
    ("N negative", "X: 10/1/1/1/A\n- A: DEF-1\n", {("n-too-small", 2)}),
    ("N missing", "X: 10/1/1/1/A\n- A: SPD+N\n", {("missing-n", 2)}),
    (
        "Limited twice",
        "X: 10/1/1/1/A\n- A: Guard <Limited><Limited>\n",
        {("customization-repeated", 2)},
    ),
    (
        "Delay twice",
        "X: 10/1/1/1/A\n- A: Guard <Delay 2><Delay 3>\n",
        {("customization-repeated", 2)},
    ),
    ("Quick twice", "X: 10/1/1/1/A\n- A: Guard <Quick><Quick>\n", {("customization-repeated", 2)}),
    (
        "Effect twice",
        "X: 10/1/1/1/A\n- A: Direct <Effect x2><Effect x2>\n",
        {("customization-repeated", 2)},
    ),
    ("Delay 1", "X: 10/1/1/1/A\n- A: Guard <Delay 1>\n", {("delay-too-small", 2)}),
    ("Delay 0", "X: 10/1/1/1/A\n- A: Guard <Delay 0>\n", {("delay-too-small", 2)}),
    ("Quick with Delay", "X: 10/1/1/1/A\n- A: Guard <Quick><Delay 2>\n", {("quick-with-delay", 2)}),
    ("Effect x1", "X: 10/1/1/1/A\n- A: Direct <Effect x1>\n", {("effect-too-small", 2)}),
    ("Effect on support", "X: 10/1/1/1/A\n- A: Guard <Effect x2>\n", {("attack-only", 2)}),
    ("Stun on support", "X: 10/1/1/1/A\n- A: ATK+1 <Stun>\n", {("attack-only", 2)}),
    (
        "Poison on support",
        "X: 10/1/1/1/A\n- A: Reflect <Poison><Limited><Delay 4>\n",
        {("attack-only", 2)},
    ),
    ("Life not Limited", "X: 10/1/1/1/A\n- A: Life\n", {("must-be-limited", 2)}),
    ("Heal not Limited", "X: 10/1/1/1/A\n- A: Full Heal\n", {("must-be-limited", 2)}),
    ("declared cost", "X: 10/1/1/1/A\n- A (3): Guard\n", {("declared-cost-mismatch", 2)}),
    ("over budget", "X: 10/1/1/1/A, A, A, A, A, A, A, A\n" + OK_TAIL, {("over-budget", 1)}),
    (
        "over budget, TECH stated",
        "X: 10/1/1/1/A, A\nTECH 1\n" + OK_TAIL.replace("1", "1"),
        {("bonus-not-ten", 1)},
    ),
    ("no unit line", OK_TAIL, {("no-unit-line", None)}),
    ("two unit lines", "X: 10/1/1/1/A\nY: 10/1/1/1/A\n" + OK_TAIL, {("duplicate-unit-line", 2)}),
    ("two TECH lines", "X: 10/1/1/1/A\nTECH 5\n技術５\n" + OK_TAIL, {("duplicate-tech-line", 3)}),
    ("labelled numbers", "X: HP10/ATK1/DEF1/SPD2/A\n" + OK_TAIL, {("bad-number", 1)}),
    ("five numbers", "X: 10/1/1/1/5/A\n" + OK_TAIL, {("unit-line-numbers", 1)}),
    ("three numbers", "X: 10/1/1\n", {("unit-line-numbers", 1)}),
    ("empty", "", {("empty-sheet", None)}),
    ("blank lines only", "\n  \n\u3000\n", {("empty-sheet", None)}),
    ("comments only", "# nothing\n// here\n", {("no-unit-line", None)}),
    ("unit without name", ": 10/1/1/1/A\n" + OK_TAIL, {("empty-unit-name", 1)}),
    ("action without name", "X: 10/1/1/1\n- (1): Guard\n", {("missing-action-name", 2)}),
    ("action without class", "X: 10/1/1/1/A\n- A (1):\n", {("missing-class", 2)}),
    (
        "unknown customization",
        "X: 10/1/1/1/A\n- A: Guard <Lmited>\n",
        {("unknown-customization", 2)},
    ),
    ("unclosed bracket", "X: 10/1/1/1/A\n- A: Guard <Limited\n", {("unclosed-bracket", 2)}),
    ("trailing text", "X: 10/1/1/1/A\n- A: Guard <Limited> ok?\n", {("trailing-text", 2)}),
    ("bad declared cost", "X: 10/1/1/1/A\n- A (one): Guard\n", {("bad-number", 2)}),
    ("negative declared cost", "X: 10/1/1/1/A\n- A (-1): Guard\n", {("negative-number", 2)}),
    (
        "too long a line",
        "X: 10/1/1/1/A\n" + OK_TAIL + "#" + "x" * 30_000 + "\n",
        {("line-too-long", 3)},
    ),
]


@pytest.mark.parametrize(
    ("sheet", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_rule(sheet: str, expected: set[tuple[str, int | None]]) -> None:
    result = parse_sheet(sheet)
    assert {(p.code, p.line) for p in result.errors} == expected
    assert result.unit is None and not result.ok


def test_every_catalogued_error_code_is_exercised() -> None:
    exercised = {code for _, _, exp in CASES for code, _ in exp}
    errors = {code for code, entry in CATALOGUE.items() if entry[1] == "error"}
    assert errors - exercised <= {"too-large", "too-many-lines", "too-many-problems"}  # below


def test_valid_edge_cases() -> None:
    # all ten points in TECH, HP 0: legal (the unit simply dies at turn 1)
    assert parse_sheet("X: 0/0/0/0/A\n" + OK_TAIL).ok
    # every point spent on stats, no action, no TECH line
    assert parse_sheet("X: 50/0/0/0").unit.tech == 0  # type: ignore[union-attr]
    # Stun and Poison stack; Delay over 20 is legal but warned
    result = parse_sheet("X: 0/0/0/0/A\n- A: Direct <Stun><Stun><Poison><Limited><Delay 21>\n")
    assert result.ok and [p.code for p in result.warnings] == ["delay-never-usable"]


def test_defined_but_unset_action_is_only_a_warning() -> None:
    result = parse_sheet("X: 10/1/1/1/A\n" + OK_TAIL + "- B (1): Guard\n")
    assert result.ok and result.unit is not None
    assert [(p.code, p.line, p.severity) for p in result.problems] == [
        ("unused-action", 3, "warning")
    ]
    assert [a.name for a in result.unit.definitions] == ["A", "B"]
    assert [a.name for a in result.unit.loadout] == ["A"]


def test_all_problems_are_reported_at_once_in_line_order() -> None:
    sheet = "X: 12/1/1/1/A, B, C\n- A (5): Guard <Quick><Delay 2>\n- C: Life\njunk\n"
    result = parse_sheet(sheet)
    assert [(p.code, p.line) for p in result.errors] == [
        ("hp-not-multiple-of-5", 1),
        ("undefined-action", 1),
        ("quick-with-delay", 2),
        ("declared-cost-mismatch", 2),
        ("must-be-limited", 3),
        ("unknown-line", 4),
    ]


def test_problem_fields_quote_the_line_cite_the_rule_and_say_how_to_fix() -> None:
    sheet = "Grisk: 10/1/1/2/Spear\n- Spear (2): Direct Attack <Delay 4> <Effect x2>\n"
    (p,) = parse_sheet(sheet).errors
    assert p.code == "declared-cost-mismatch" and p.line == 2 and p.section == "1.2"
    assert p.text == "- Spear (2): Direct Attack <Delay 4> <Effect x2>"
    assert "2" in p.message and "1" in p.message  # both numbers
    assert "1 (Direct Attack) ×4 (Effect x2) ÷4 (Delay 4) = 1" in p.message
    assert p.fix == "Write (1) or change the customizations."


def test_over_budget_shows_total_and_tech() -> None:
    (p,) = parse_sheet(
        "グリスク：１０／２／２／２／槍、槍、盾\n・槍：防御無視攻撃\n・盾：ガード与え"
    ).errors
    assert p.code == "over-budget"
    assert p.message == "セットしたアクションのコスト合計７が技術２を超えています。"
    assert "槍３×２" in p.fix and "盾１×１" in p.fix


def test_unknown_class_suggests_the_nearest_class() -> None:
    cases = {
        "- A: Direct Atack": 'Did you mean "Direct Attack"?',
        "- A: Peircing Attack": 'Did you mean "Piercing Attack"?',
        "- A: Relfect": 'Did you mean "Reflect"?',
        "- A: DFE+2": 'Did you mean "DEF+2"?',
        "・A：直接攻激": "もしかして「直接攻撃」？",
        "・A：攻撃カ＋２": "もしかして「攻撃力＋２」？",  # katakana カ for 力
        "・A：反射あたえ": "もしかして「反射与え」？",
    }
    for line, hint in cases.items():
        (p,) = parse_sheet(f"X: 10/1/1/1/A\n{line}").errors
        assert p.code == "unknown-class" and hint in p.fix, (line, p.fix)


def test_unknown_customization_and_undefined_name_suggestions() -> None:
    (p,) = parse_sheet("X: 10/1/1/1/A\n- A: Guard <Limted>").errors
    assert "Did you mean <Limited>?" in p.fix
    (p,) = parse_sheet("X：１０／１／１／１／A\n・A：ガード与え＜遅延記動２＞").errors
    assert "もしかして＜遅延起動２＞？" in p.fix
    (p,) = parse_sheet("X: 10/1/1/1/Shiled\n- Shield: Guard").errors[:1]
    assert p.code == "undefined-action" and 'Did you mean "Shield"?' in p.fix
    (p,) = parse_sheet("X：１０／１／１／１／盾・槍\n・盾：ガード与え\n・槍：直接攻撃").errors
    assert "名前の区切りは「、」です。" in p.fix


def test_format_problems_in_both_languages() -> None:
    result = parse_sheet("グリスク：１２／１／１／２\n")
    ja = format_problems(result.problems, "ja")
    assert ja == (
        "１行目：「グリスク：１２／１／１／２」\n"
        "  エラー（ルール§1）：ＨＰ１２が５の倍数ではありません（ＨＰはボーナス１点につき５です）。\n"
        "  直し方：ＨＰを５の倍数（たとえば１０か１５）にしてください。"
    )
    en = format_problems(result.problems, "en")
    assert en == (
        'Line 1: "グリスク：１２／１／１／２"\n'
        "  error (rules §1): HP 12 is not a multiple of 5 (each bonus point gives 5 HP).\n"
        "  fix: Make HP a multiple of 5 (e.g. 10 or 15)."
    )
    assert localize(result.problems[0], "en").message.startswith("HP 12 is not")


def test_format_problems_caps_the_list() -> None:
    sheet = "X: 10/1/1/1\n" + "".join(f"junk {i}\n" for i in range(120))
    result = parse_sheet(sheet)
    assert len(result.errors) == 120
    text = format_problems(result.problems, "en")
    assert text.count("error (rules") == MAX_LISTED
    assert text.endswith(f"… and {120 - MAX_LISTED} more problems.")
    assert format_problems(result.problems, "ja").endswith("……ほか７０件の問題があります。")


HOSTILE: list[tuple[str, str, str]] = [
    (
        "10,000 lines",
        "X: 10/1/1/1/A\n" + OK_TAIL + "".join(f"- B{i}: Guard\n" for i in range(10_000)),
        "too-many-lines",
    ),
    (
        "10,000 bad lines",
        "X: 10/1/1/1/A\n" + OK_TAIL + "".join(f"- B{i}: Gaurd <Stunn>\n" for i in range(10_000)),
        "too-many-problems",
    ),
    (
        "1,000 unit lines",
        "".join(
            f"X{i}: 10/0/0/0/" + ",".join(f"A{j}" for j in range(100)) + "\n" for i in range(1000)
        ),
        "too-many-problems",
    ),
    (
        "stacked Stun on 50 lines",
        "X: 10/0/0/0/"
        + ",".join(f"A{i}" for i in range(50))
        + "\n"
        + "".join(f"- A{i} (1): Direct" + "<Stun>" * 3000 + "\n" for i in range(50)),
        "declared-cost-mismatch",
    ),
    (
        "500 long undefined names",
        "X: 10/0/0/0/"
        + ",".join(f"{'N' * 30}{i}" for i in range(500))
        + "\n"
        + "".join(f"- {'N' * 29}{i}: Guard\n" for i in range(500)),
        "undefined-action",
    ),
    ("a 2 MB text", "x" * 2_000_000, "too-large"),
    ("binary junk", "".join(chr(i % 256) for i in range(0, 600_000, 7)), "unknown-line"),
    ("a 10**6-digit number", "X: " + "9" * 19_000 + "/1/1/1", "number-too-large"),
    (
        "500 actions",
        "X: 5/0/0/0/"
        + ", ".join(f"A{i}" for i in range(500))
        + "\n"
        + "".join(f"- A{i}: Guard\n" for i in range(500)),
        "over-budget",
    ),
    ("500 Stuns", "X: 10/1/1/1/A\n- A: Direct" + "<Stun>" * 500, "over-budget"),
    ("5000 Stuns", "X: 10/1/1/1/A\n- A: Direct" + "<Stun>" * 5000, "line-too-long"),
]
"""Hostile sheets: (name, text, the error code it must give). ``benchmarks/sheets.py`` times them."""


@pytest.mark.parametrize(
    "name, sheet, code", HOSTILE, ids=lambda v: v if isinstance(v, str) and len(v) < 30 else ""
)
def test_limits_are_bounded_and_clear(name: str, sheet: str, code: str) -> None:
    # bounded work, not time (timings: benchmarks/sheets.py): reading stops at 1,000 lines or
    # 500 problems (the checks after reading add at most one problem per name read), and the
    # reply lists at most MAX_LISTED problems
    result = parse_sheet(sheet)
    text = format_problems(result.problems, result.lang)
    assert code in {p.code for p in result.errors}
    assert len(result.problems) <= 1_001
    assert len(text) < 50_000


def test_stacked_stun_cost_is_shown_as_a_power() -> None:
    errors = parse_sheet("X: 10/0/0/0/A\n- A (1): Direct" + "<Stun>" * 3000).errors
    assert [p.code for p in errors] == ["over-budget", "declared-cost-mismatch"]
    assert errors[0].message == "The actions set cost >10^12 in total, more than TECH 8."
    p = errors[1]
    assert p.message == (
        "The cost written is 1 but the computed cost is >10^12 "
        "(1 (Direct Attack) ×2^3000 (Stun ×3000) = >10^12)."
    )


@settings(max_examples=500, deadline=None)
@given(
    st.builds(
        Action,
        name=st.just("A"),
        cls=st.sampled_from(list(ActionClass)),
        n=st.none() | st.integers(-3, 50),
        limited=st.booleans(),
        delay=st.none() | st.integers(-2, 40),
        quick=st.booleans(),
        effect=st.none() | st.integers(-3, 12),
        stun=st.integers(0, 12),
        poison=st.integers(0, 12),
    )
)
def test_cost_equals_the_rules_formula(action: Action) -> None:
    # valid or not (Delay 0, N < 1 ...): base × every multiplier (×2 per Stun and per Poison),
    # then ÷2 for Limited and ÷N for Delay, each rounded up (rules §1.2)
    base = action.cls.base_cost if action.cls.base_cost is not None else (action.n or 0)
    x = base * (2 if action.quick else 1) * (action.effect**2 if action.effect is not None else 1)
    for _ in range(action.stun + action.poison):
        x *= 2
    if action.limited:
        x = -(-x // 2)
    if action.delay is not None and action.delay > 0:
        x = -(-x // action.delay)
    assert action_cost(action) == x
