"""Magicalized sheets (§4.1, G2): list 1 with 途心 10 in base Margaret's notation; list-2 swords,
高速剣 and 回N refused with their line and fix in both languages."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings

from app.rules import guess_ruleset
from app.rules.magicalized import notation
from app.rules.magicalized.problems import localize
from app.rules.magicalized.ruleset import SAMPLES, MargaretMagicalized
from app.rules.magicalized.swords import SWORDS
from app.rules.margaret.model import Sword, Swordmaster
from tests.rules.magicalized.strategies import swordmasters

RS = MargaretMagicalized()


def test_the_example_of_section_4_1_in_both_forms_and_languages() -> None:
    compact = RS.parse_sheet("10/1/0/3/導死速盾/ミラ")
    assert compact.ok and compact.problems == ()
    m = compact.entry
    assert isinstance(m, Swordmaster)
    assert (m.name, m.hp, m.atk, m.defense, m.spd) == ("ミラ", 10, 1, 0, 3)
    assert m.swords == (Sword("導"), Sword("死"), Sword("速"), Sword("盾"))
    full = RS.parse_sheet("ミラ：10/1/0/3/導来剣、デス剣、加速剣、盾の剣")
    en = RS.parse_sheet("Mira: 10/1/0/3/Guide Sword, Death Sword, Haste Sword, Shield Sword")
    de = RS.parse_sheet("10/1/0/3/導デ速盾/ミラ")  # デ is read too (G2), printed 死
    assert full.entry == de.entry == m.__class__("ミラ", 10, 1, 0, 3, 4, m.swords)
    assert en.entry is not None and en.entry.swords == m.swords and en.entry.name == "Mira"
    assert RS.format_sheet(de.entry) == "10/1/0/3/導死速盾/ミラ"
    assert en.lang == "en" and RS.format_sheet(en.entry).startswith("Mira: 10/1/0/3/Guide Sword")
    assert "合計10点／途心10" in RS.format_costs(m, "ja")


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("10/1/0/3/滅死速盾/X", ["list2-sword"]),
        ("X：10/1/0/3/魂の剣、押分剣", ["list2-sword", "list2-sword"]),
        ("10/1/0/3/高死速/X", ["no-swift-sword"]),
        ("10/1/0/3/回3死/X", ["takes-no-n"]),
        ("X：10/1/0/3/回復剣3、デス剣", ["takes-no-n"]),
        ("X: 10/1/0/3/Heal Sword 2, Death Sword", ["takes-no-n"]),
        ("10/1/0/3/導0死/X", ["takes-no-n"]),
        ("10/1/0/3/連死/X", ["unknown-code"]),
        ("15/1/0/3/導死速盾/X", ["bonus-over"]),
    ],
)
def test_refused_sheets_name_the_line_and_the_fix_in_both_languages(
    text: str, codes: list[str]
) -> None:
    s = RS.parse_sheet(text)
    assert not s.ok and s.entry is None
    assert [p.code for p in s.errors] == codes
    for p in s.errors:
        assert p.line == 1 and p.text == text
        for lang in ("ja", "en"):
            q = localize(p, lang)  # type: ignore[arg-type]
            assert q.message and q.fix and "{" not in q.message + q.fix
    assert "直し方" in RS.format_problems(s.problems, "ja")


def test_warnings_keep_the_sheet() -> None:
    s = RS.parse_sheet("15/0/4/1/斬死/あいざわ")  # あいざわ病: デス剣 never reached
    assert s.ok and [p.code for p in s.warnings] == ["unreachable-sword"]
    s = RS.parse_sheet("5/3/0/1/斬/X")
    assert s.ok and [p.code for p in s.warnings] == ["unspent-points"]


def test_samples_and_example_are_valid() -> None:
    assert all(RS.parse_sheet(t).ok for t in SAMPLES)
    assert RS.parse_sheet(RS.example_sheet("ja")).ok and RS.parse_sheet(RS.example_sheet("en")).ok


def test_guessing_prefers_base_margaret_unless_the_sheet_is_magicalized_only() -> None:
    assert guess_ruleset("15/0/1/2/速熱衝絶/ライカ").name == "margaret"  # type: ignore[union-attr]
    assert guess_ruleset("10/1/0/3/導死速盾/ミラ").name == "margaret-magicalized"  # type: ignore[union-attr]
    assert RS.recognizes("10/1/0/3/導死速盾/ミラ") and not RS.recognizes("10/1/0/3/連連/X")
    assert RS.starts_sheet("10/1/0/3/導死速盾/ミラ") and not RS.starts_sheet("HAND 燃×7")


@settings(max_examples=200, deadline=None)
@given(swordmasters())
def test_random_sheets_print_and_read_back(m: Swordmaster) -> None:
    for lang in ("ja", "en"):
        assert RS.parse_sheet(RS.format_sheet(m, lang)).entry == m


def test_docstring_examples() -> None:
    result = doctest.testmod(notation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_unknown_swords_fix_offers_only_the_swords_a_sheet_may_name(lang: str) -> None:
    """List 2 and 高速剣 are refused at building (§1.2, G2), so the fix of an unknown sword
    lists list 1 alone."""
    r = notation.parse_sheet("U: 5/1/0/4/斬撃剣、謎剣", lang=lang)
    assert [p.code for p in r.problems] == ["unknown-sword"]
    fix = r.problems[0].fix
    for d in SWORDS:
        name = d.name if lang == "ja" else d.en
        assert (name in fix) == (d.in_list == 1), name
