"""Guessing the ruleset of a sheet across the family: a compact line of only Hundred codes is
Margaret Hundred, a Hundred sheet that also uses a basic sword is still read by the ruleset that
accepts it, and a typo in a base Margaret sheet stays Margaret (so its reply names the bad code)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli.rules import pick_ruleset
from app.rules import all_rulesets, guess_ruleset, ruleset


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("10/0/0/4/詠爆詠爆", "margaret-hundred"),
        ("10/0/0/4/斬詠", "margaret-hundred"),
        ("15/0/1/2/速熱衝X/typo", "margaret"),
        ("15/0/1/2/速熱衝絶/徘徊するライカ", "margaret"),
        ("グリスク：１０／１／１／２／シールド\n・シールド（１）：防御力＋２", "amaryllis"),
    ],
)
def test_guess(text: str, name: str) -> None:
    guessed = guess_ruleset(text)
    assert guessed is not None and guessed.name == name
    ruleset, was_guessed = pick_ruleset(None, [text])
    assert was_guessed and ruleset.name == name


_MIX = [
    "10/0/0/4/詠爆詠爆",
    "15/0/1/2/速熱衝X/typo",
    "15/0/1/2/速熱衝絶/徘徊するライカ",
    "グリスク：１０／１／１／２／シールド\n・シールド（１）：防御力＋２",
    "not a sheet at all",
]


@given(st.lists(st.sampled_from(_MIX), min_size=1, max_size=12))
@settings(max_examples=60, deadline=None)
def test_a_guess_that_stops_counting_early_picks_what_the_full_count_picks(
    texts: list[str],
) -> None:
    """``pick_ruleset`` stops counting votes once the leader cannot be caught; the full count
    (every ruleset on every text, ties broken by the sheets each reads without an error, then
    the registry order) picks the same ruleset for any folder."""
    rulesets = [ruleset(cls.name) for cls in all_rulesets()]
    votes = [sum(1 for t in texts if rs.recognizes(rs.sheet_text(t).text)) for rs in rulesets]
    valid = [
        sum(1 for t in texts if rs.recognizes(rs.sheet_text(t).text) and rs.read_sheet(t).ok)
        for rs in rulesets
    ]
    best = max(range(len(rulesets)), key=lambda i: (votes[i], valid[i], -i))
    expected = rulesets[best].name if votes[best] else ruleset(None).name
    assert pick_ruleset(None, texts)[0].name == expected
