"""Guessing the ruleset of a sheet across the family: a compact line of only Hundred codes is
Margaret Hundred, a Hundred sheet that also uses a basic sword is still read by the ruleset that
accepts it, and a typo in a base Margaret sheet stays Margaret (so its reply names the bad code)."""

import pytest

from app.cli.rules import pick_ruleset
from app.rules import guess_ruleset


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
