"""The hand-derived Magicalized golden battles (``golden/*.txt``, see ``golden_runner``): each
matches its §5 fields and key events, fights the same without its log, and its reports render."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.reports.battle import render_report
from tests.rules.magicalized.golden_runner import RS, all_goldens, check, fight, load


def test_there_is_a_golden_battle_for_every_card() -> None:
    played = set()
    for path in all_goldens():
        _, _, result = fight(load(path))
        played |= {c.card for c in result.cards}
    assert played == set("燃凍闇無覆赤緑白青黒黄愛知心払星策虹")


@pytest.mark.parametrize("path", all_goldens(), ids=lambda p: p.stem)
def test_golden_battle(path: Path) -> None:
    problem = check(load(path))
    assert problem is None, problem


@pytest.mark.parametrize("path", all_goldens(), ids=lambda p: p.stem)
def test_the_same_battle_without_its_log(path: Path) -> None:
    g = load(path)
    _, _, logged = fight(g)
    _, _, quiet = fight(g, log=False)
    assert quiet == logged and quiet.events == ()


@pytest.mark.parametrize("path", all_goldens()[:4], ids=lambda p: p.stem)
def test_reports_render_in_both_languages(path: Path) -> None:
    a, b, result = fight(load(path))
    for lang in ("ja", "en"):
        text = render_report(RS.report(a, b, result, lang=lang))
        assert RS.report(a, b, result, lang=lang).private == ()
        assert ("結果" if lang == "ja" else "Result") in text
