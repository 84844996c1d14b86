"""docs/hundred.md stays true to the code: every sword, option, warning and reason it lists."""

from __future__ import annotations

from pathlib import Path

from app.rules.base import TERMINATIONS
from app.rules.hundred.options import DEFAULTS
from app.rules.hundred.swords import SWORDS

DOC = (Path(__file__).resolve().parents[3] / "docs" / "hundred.md").read_text(encoding="utf-8")


def test_every_sword_is_in_the_table_with_both_names():
    for d in SWORDS:
        name = d.full_name("N") if d.param is not None else d.name
        en = d.full_name("N", "en") if d.param is not None else d.en
        assert f"| {d.no} | `" in DOC and f"| {name} | {en} |" in DOC, d.code


def test_every_option_and_reason_is_documented():
    for option in DEFAULTS:
        assert f"`{option}`" in DOC, option
    for reason in TERMINATIONS:
        assert f"`{reason}`" in DOC, reason


def test_every_flagged_sword_has_its_ruling():
    for d in SWORDS:
        if d.flagged:
            assert d.name in DOC.split("## The points the seed leaves open")[1], d.name


def test_docstring_examples_hold():
    import doctest

    from app.rules.hundred import model

    result = doctest.testmod(model, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
