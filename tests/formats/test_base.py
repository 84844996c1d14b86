"""The registry, option validation, descriptions and the values that cross the interface."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from app.formats import FORMATS, all_formats, find_format
from app.formats.base import Points, Result, fraction_text
from app.rules.base import Fighter, Outcome

REQUIRED = {"swiss": {"rounds": 3}, "hill": {"size": 4}, "accumulating": {"updates": 2}}


def test_every_format_is_found_by_name_and_alias() -> None:
    names = [cls.name for cls in all_formats()]
    assert names == ["round-robin", "swiss", "knockout", "hill", "accumulating"]
    assert set(FORMATS) == set(names)
    for cls in all_formats():
        assert find_format(cls.name) is cls
        assert find_format(cls.name.upper()) is cls
        for alias in cls.aliases:
            assert find_format(alias) is cls
    assert find_format("Round_Robin").name == "round-robin"
    assert find_format("KO").name == "knockout"


def test_an_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown format 'ladder'.*round-robin.*swiss"):
        find_format("ladder")


@pytest.mark.parametrize("cls", all_formats(), ids=lambda c: c.name)
def test_options_are_normalized_and_json_ready(cls: type) -> None:
    fmt = cls(REQUIRED.get(cls.name, {}))
    opts = fmt.options
    assert json.loads(json.dumps(opts)) == opts
    assert opts["seed"] == ""
    assert cls(opts) == fmt and hash(cls(opts)) == hash(fmt)
    for lang in ("ja", "en"):
        lines = fmt.describe(lang)
        assert len(lines) >= 3 and all(isinstance(x, str) and x for x in lines)
    assert any(any("\u3040" <= ch <= "\u30ff" for ch in line) for line in fmt.describe("ja"))


@pytest.mark.parametrize("cls", all_formats(), ids=lambda c: c.name)
def test_an_unknown_option_is_named(cls: type) -> None:
    with pytest.raises(ValueError, match=r"unknown option 'colour'.*known: .*seed"):
        cls({**REQUIRED.get(cls.name, {}), "colour": "red"})


@pytest.mark.parametrize(
    "name, options, bad",
    [
        ("swiss", {}, "rounds"),
        ("swiss", {"rounds": 0}, "rounds"),
        ("swiss", {"rounds": "three"}, "rounds"),
        ("swiss", {"rounds": 3, "bye_points": "half"}, "bye_points"),
        ("swiss", {"rounds": 3, "tiebreaks": "buchholz,luck"}, "tiebreaks"),
        ("round-robin", {"points": "1/3/0"}, "points"),
        ("round-robin", {"double": "maybe"}, "double"),
        ("hill", {}, "size"),
        ("hill", {"size": 1}, "size"),
        ("knockout", {"seeding": "rating"}, "seeding"),
        ("accumulating", {"updates": 2, "points": "rooms?"}, "points"),
        ("knockout", {"seed": "x" * 201}, "seed"),
    ],
)
def test_a_bad_option_value_is_named(name: str, options: dict[str, object], bad: str) -> None:
    with pytest.raises(ValueError, match=repr(bad)):
        find_format(name)(options)


def test_cli_spellings_of_options_are_accepted() -> None:
    ko = find_format("knockout")({"reseed-every-round": "yes", "seed": "spring"})
    assert ko.options["reseed_every_round"] is True and ko.seed == "spring"
    sw = find_format("swiss")({"rounds": "5", "points": "1/0.5/0", "tiebreaks": "buchholz_cut1"})
    assert sw.options == {
        "rounds": 5,
        "points": "1/0.5/0",
        "bye_points": "win",
        "tiebreaks": ["buchholz_cut1"],
        "seed": "",
    }


def test_points_parse_fractions_and_refuse_nonsense() -> None:
    assert Points.parse("3/1/0") == Points(Fraction(3), Fraction(1), Fraction(0))
    assert Points.parse("1/½/0").draw == Fraction(1, 2)
    assert str(Points.parse("1/0.5/0")) == "1/0.5/0"
    for bad in ("3/1", "3/-1/0", "a/b/c", "0/1/0", ""):
        with pytest.raises(ValueError):
            Points.parse(bad)
    assert fraction_text(Fraction(25, 2)) == "12.5"
    assert fraction_text(Fraction(5, 3)) == "5/3"


def test_a_result_comes_from_the_generic_outcome() -> None:
    side = (Fighter("x", 3, 10),)
    outcome = Outcome(winner=1, termination="hp", turns=20, margin=-4, final=(side, side))
    assert Result.from_outcome(outcome) == Result(1, -4)
    assert Result(1, -4).flipped() == Result(0, 4)
    with pytest.raises(ValueError):
        Result(2)
