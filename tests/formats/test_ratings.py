"""Ratings with OpenSkill, checked against the OpenSkill reference values.

The values come from the OpenSkill test suites: ``openskill.js`` (the implementation
``openskill.py`` ports; ``src/__tests__/rate.test.ts`` and ``.js``: "accepts a tau term", "prevents sigma
from rising", "reverses rank") and ``openskill.py``'s own ``tests/models/weng_lin/
test_plackett_luce.py`` (the same "prevents sigma from rising" game: sigma stays 3). They are the
Plackett-Luce model's results for a single 1-v-1 game, so a one-game period must reproduce them
exactly, and a history of several periods must chain them.
"""

from __future__ import annotations

import pytest

from app.formats.ratings import (
    RatedGame,
    Rating,
    RatingPeriod,
    RatingSettings,
    rate_periods,
)

# openskill.js rate.test.ts "reverses rank": two new players (25, 25/3), no tau
NEW_WINNER = Rating(27.63523138347365, 8.065506316323548)
NEW_LOSER = Rating(22.36476861652635, 8.065506316323548)
# "accepts a tau term": both (25, 3), tau 0.3
TAU_WINNER = Rating(25.624880438870754, 2.9879993738476953)
TAU_LOSER = Rating(24.375119561129246, 2.9879993738476953)
# "prevents sigma from rising": (40, 3) beats (-20, 3), tau 0.3, limit_sigma
LIMIT_WINNER = Rating(40.00032667136128, 3.0)
LIMIT_LOSER = Rating(-20.000326671361275, 3.0)


def _close(r: Rating, expected: Rating) -> None:
    assert r.mu == pytest.approx(expected.mu, abs=1e-12)
    assert r.sigma == pytest.approx(expected.sigma, abs=1e-12)


def test_a_small_fixed_history_reproduces_the_reference_values() -> None:
    periods = [
        RatingPeriod("spring/1", (RatedGame(1, 2, 0),)),  # side A wins
        RatingPeriod("spring/2", (RatedGame(3, 4, 1),)),  # side B wins
    ]
    ratings = rate_periods(
        periods,
        settings=RatingSettings(tau=0.3),
        initial={p: Rating(25.0, 3.0) for p in (1, 2, 3, 4)},
    )
    _close(ratings.current[1], TAU_WINNER)
    _close(ratings.current[2], TAU_LOSER)
    _close(ratings.current[4], TAU_WINNER)
    _close(ratings.current[3], TAU_LOSER)
    h = ratings.history[4]
    assert [(c.period, c.games, c.wins, c.losses) for c in h] == [("spring/2", 1, 1, 0)]
    assert h[0].before == Rating(25.0, 3.0)
    assert [p for p, _ in ratings.leaderboard()] == [1, 4, 2, 3]


def test_new_players_without_tau() -> None:
    ratings = rate_periods(
        [RatingPeriod("x", (RatedGame(7, 8, 1),))], settings=RatingSettings(tau=0.0)
    )
    _close(ratings.current[8], NEW_WINNER)
    _close(ratings.current[7], NEW_LOSER)
    assert ratings.current[8].ordinal == pytest.approx(NEW_WINNER.mu - 3 * NEW_WINNER.sigma)


def test_limit_sigma() -> None:
    ratings = rate_periods(
        [RatingPeriod("x", (RatedGame(1, 2, 0),))],
        settings=RatingSettings(tau=0.3, limit_sigma=True),
        initial={1: Rating(40, 3), 2: Rating(-20, 3)},
    )
    _close(ratings.current[1], LIMIT_WINNER)
    _close(ratings.current[2], LIMIT_LOSER)


def test_periods_chain_and_a_draw_moves_nobody_s_mu_between_equals() -> None:
    periods = [
        RatingPeriod("a/1", (RatedGame(1, 2, None),)),
        RatingPeriod("a/2", (RatedGame(1, 2, 0),)),
        RatingPeriod("b/1", (RatedGame(3, 1, 0), RatedGame(2, 4, None))),
    ]
    ratings = rate_periods(periods)
    first = ratings.history[1][0]
    assert first.after.mu == pytest.approx(25.0) and first.after.sigma < first.before.sigma
    assert [c.period for c in ratings.history[1]] == ["a/1", "a/2", "b/1"]
    assert [c.period for c in ratings.history[3]] == ["b/1"]
    for pid, changes in ratings.history.items():
        for prev, nxt in zip(changes, changes[1:], strict=False):
            assert nxt.before == prev.after  # no change between a player's periods
        assert changes[-1].after == ratings.current[pid]
    assert rate_periods(periods) == ratings  # deterministic
    with pytest.raises(ValueError):
        RatedGame(1, 1, 0)
