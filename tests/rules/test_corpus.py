"""The sheet corpus (tests/corpus/sheets/): each bad sheet gives exactly the errors a player must
see; each good sheet is accepted. Files are read through ``read_sheet_file`` (several encodings).

Regenerate the files with ``python tests/corpus/sheets/make_corpus.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.sheetfile import SheetFileError, read_sheet_file
from app.rules.amaryllis import format_problems, parse_sheet

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "sheets"

# file -> the exact set of (error code, line). Cascades are deliberate: a Life without Limited
# really costs 2, so the declared (1) is wrong and the unit goes over TECH.
EXPECTED: dict[str, set[tuple[str, int | None]]] = {
    "01-class-typo-ja.txt": {("unknown-class", 3)},
    "02-class-typo-en.txt": {("unknown-class", 2)},
    "03-declared-cost-wrong.txt": {("declared-cost-mismatch", 2)},
    "04-undefined-action.txt": {("undefined-action", 1)},
    "05-quick-with-delay.txt": {("quick-with-delay", 2)},
    "06-over-budget.txt": {("over-budget", 1)},
    "07-delay-1.txt": {("delay-too-small", 2)},
    "08-effect-x1-on-support.txt": {("attack-only", 2), ("effect-too-small", 2)},
    "09-hp-not-multiple-of-5.txt": {("hp-not-multiple-of-5", 1)},
    "10-eleven-points-tech-stated.txt": {("bonus-not-ten", 1)},
    "11-eleven-points.txt": {("bonus-over", 1)},
    "12-negative-number.txt": {("negative-number", 1)},
    "13-empty.txt": {("empty-sheet", None)},
    "16-shift-jis.txt": {("must-be-limited", 2), ("declared-cost-mismatch", 2), ("over-budget", 1)},
    "17-huge-number.txt": {("number-too-large", 1)},
    "18-five-hundred-actions.txt": {("over-budget", 1)},
    "19-life-not-limited.txt": {
        ("must-be-limited", 2),
        ("declared-cost-mismatch", 2),
        ("over-budget", 1),
    },
    "20-heal-not-limited-en.txt": {("must-be-limited", 2)},
    "21-stun-on-support.txt": {("attack-only", 2)},
    "22-poison-on-support-ja.txt": {("attack-only", 2)},
    "23-limited-twice.txt": {("customization-repeated", 2)},
    "24-delay-twice-ja.txt": {("customization-repeated", 2)},
    "25-duplicate-definition.txt": {("duplicate-definition", 5)},
    "26-empty-name-in-list.txt": {("empty-action-name", 1)},
    "27-unknown-line.txt": {("unknown-line", 5)},
    "28-no-unit-line.txt": {("no-unit-line", None)},
    "29-two-unit-lines.txt": {("duplicate-unit-line", 5)},
    "30-customization-typo-ja.txt": {("unknown-customization", 2)},
    "31-n-zero.txt": {("n-too-small", 2)},
    "32-missing-n-ja.txt": {("missing-n", 2)},
    "33-effect-without-n.txt": {("missing-n", 2)},
    "34-tech-line-twice.txt": {("duplicate-tech-line", 3)},
    "35-five-numbers.txt": {("unit-line-numbers", 1)},
    "36-euc-jp.txt": {("delay-too-small", 3), ("declared-cost-mismatch", 3), ("over-budget", 1)},
    "37-iso-2022-jp.txt": {("effect-too-small", 3)},
    "38-unclosed-bracket.txt": {("unclosed-bracket", 2)},
    "39-trailing-text.txt": {("trailing-text", 2)},
    "40-many-errors-at-once.txt": {
        ("hp-not-multiple-of-5", 1),
        ("undefined-action", 1),
        ("unknown-customization", 3),
        ("unknown-class", 4),
        ("delay-too-small", 4),
        ("attack-only", 5),
        ("n-too-small", 5),
        ("must-be-limited", 6),
        ("duplicate-definition", 7),
        ("unknown-line", 8),
    },
    "41-delay-0-ja.txt": {("delay-too-small", 2)},
    "42-negative-declared-cost.txt": {("negative-number", 2)},
    "43-effect-on-heal.txt": {("attack-only", 2), ("over-budget", 1)},
    "44-quick-twice-ja.txt": {("customization-repeated", 2)},
    "45-missing-class.txt": {("missing-class", 2)},
    "46-unit-without-name.txt": {("empty-unit-name", 1)},
    "47-three-numbers.txt": {("unit-line-numbers", 1)},
    "48-nearly-good-en.txt": {("declared-cost-mismatch", 3), ("over-budget", 1)},
}
LANG = {
    name: (
        "ja"
        if (
            "-ja" in name
            or name[:2]
            in {
                "01",
                "03",
                "04",
                "06",
                "09",
                "16",
                "19",
                "25",
                "26",
                "27",
                "28",
                "29",
                "36",
                "37",
                "46",
            }
        )
        else "en"
    )
    for name in EXPECTED
}
LANG["13-empty.txt"] = "ja"  # no clue: the default


def test_the_corpus_is_complete() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.is_file() and p.suffix in (".txt", ".bin")}
    assert files - set(EXPECTED) == {"14-ten-thousand-lines.txt", "15-binary-junk.bin"}
    assert set(EXPECTED) <= files and len(files) >= 30


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_sheet(name: str) -> None:
    result = parse_sheet(read_sheet_file(CORPUS / name))
    report = format_problems(result.problems, result.lang)
    assert result.unit is None
    assert {(p.code, p.line) for p in result.errors} == EXPECTED[name]
    assert result.lang == LANG[name]
    for p in result.errors:  # every error quotes its line and says how to fix it
        if p.line is not None:
            assert p.text and p.text in report
        assert p.fix in report and f"§{p.section}" in report


def test_ten_thousand_lines() -> None:
    text = read_sheet_file(CORPUS / "14-ten-thousand-lines.txt")
    assert len(text.splitlines()) > 10_000
    result = parse_sheet(text)  # bounded work: reading stops at the line limit
    report = format_problems(result.problems, result.lang)
    codes = {p.code for p in result.errors}
    assert codes == {"too-many-lines", "unknown-line"}
    (too_many,) = [p for p in result.errors if p.code == "too-many-lines"]
    assert "空行以外１０００４行、上限１０００行" in too_many.message
    assert report.count("\n") < 200  # the list is capped


def test_binary_junk_is_refused_with_a_clear_error() -> None:
    with pytest.raises(SheetFileError, match="not text"):
        read_sheet_file(CORPUS / "15-binary-junk.bin")
    # and the same bytes forced into a string never crash the parser
    junk = (CORPUS / "15-binary-junk.bin").read_bytes().decode("latin-1")
    result = parse_sheet(junk)
    assert not result.ok and result.errors


GOOD = CORPUS / "good"


@pytest.mark.parametrize("path", sorted(GOOD.iterdir()), ids=lambda p: p.name)
def test_good_sheet(path: Path) -> None:
    result = parse_sheet(read_sheet_file(path))
    assert result.ok, format_problems(result.problems, result.lang)
    assert result.errors == []


def test_good_sheets_agree_across_languages_and_encodings() -> None:
    def unit(name: str):  # type: ignore[no-untyped-def]
        return parse_sheet(read_sheet_file(GOOD / name)).unit

    assert unit("grisk-seed.txt") == unit("grisk-seed-cp932.txt")
    assert unit("grisk-halfwidth.txt").definitions == unit("grisk-seed.txt").definitions
    en, ja = unit("grisk-en.txt"), unit("grisk-seed.txt")
    assert [(a.cls, a.n, a.limited, a.delay, a.effect) for a in en.definitions] == [
        (a.cls, a.n, a.limited, a.delay, a.effect) for a in ja.definitions
    ]
    sampler = parse_sheet(read_sheet_file(GOOD / "every-class-en.txt"))
    assert {a.cls for a in sampler.unit.definitions} == set(  # type: ignore[union-attr]
        type(sampler.unit.definitions[0].cls)
    )  # type: ignore[union-attr]
    assert [p.code for p in sampler.warnings] == ["unused-action"]
