"""Tiebreaks on small histories computed by hand (values in the comments)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import Pairing, Points, Result, Round, RoundPairings
from app.formats.tiebreaks import (
    HALF,
    ONE,
    TIEBREAKS,
    ZERO,
    GameRecord,
    ScoreTable,
    Unplayed,
    find_tiebreak,
    rank,
)

from .helpers import play

# Four entries, 3/1/0.  R1: 1 beats 2 (+5), 3 draws 4.  R2: 1 draws 3, 2 beats 4 (+3).
# R3: 4 (side B) beats 1 (1's margin -6), 2 beats 3 (+1).
# Points: 2 = 0+3+3 = 6; 1 = 3+1+0 = 4; 4 = 1+0+3 = 4; 3 = 1+1+0 = 2.
HISTORY = [
    Round.of(1, [Pairing(1, 1, 2), Pairing(2, 3, 4)], {1: Result(0, 5), 2: Result(None, 0)}),
    Round.of(2, [Pairing(1, 1, 3), Pairing(2, 2, 4)], {1: Result(None, 0), 2: Result(0, 3)}),
    Round.of(3, [Pairing(1, 1, 4), Pairing(2, 2, 3)], {1: Result(1, -6), 2: Result(0, 1)}),
]
ENTRIES = [1, 2, 3, 4]


def _values(name: str) -> dict[int, Fraction]:
    table = ScoreTable.build(ENTRIES, HISTORY, Points())
    return find_tiebreak(name).compute(table, ENTRIES)


def test_points() -> None:
    table = ScoreTable.build(ENTRIES, HISTORY, Points())
    assert table.points == {1: 4, 2: 6, 3: 2, 4: 4}
    assert [table.wins(e) for e in ENTRIES] == [1, 2, 0, 1]
    assert [table.draws(e) for e in ENTRIES] == [1, 0, 2, 1]


def test_sonneborn_berger() -> None:
    # 1: beat 2 (6) + drew 3 (2/2) = 7;  2: beat 4 (4) + beat 3 (2) = 6
    # 3: drew 4 (4/2) + drew 1 (4/2) = 4;  4: drew 3 (2/2) + beat 1 (4) = 5
    assert _values("sonneborn_berger") == {1: 7, 2: 6, 3: 4, 4: 5}


def test_buchholz_and_cut1() -> None:
    # opponents' points: 1: 6+2+4 = 12; 2: 4+4+2 = 10; 3: 4+4+6 = 14; 4: 2+6+4 = 12
    assert _values("buchholz") == {1: 12, 2: 10, 3: 14, 4: 12}
    # without the lowest term: 12-2, 10-2, 14-4, 12-2
    assert _values("buchholz_cut1") == {1: 10, 2: 8, 3: 10, 4: 10}


def test_margin_and_wins() -> None:
    # 1: +5 +0 -6; 2: -5 +3 +1; 3: 0 +0 -1; 4: 0 -3 +6
    assert _values("margin") == {1: -1, 2: -1, 3: -1, 4: 3}
    assert _values("wins") == {1: 1, 2: 2, 3: 0, 4: 1}


def test_head_to_head_is_computed_within_the_tied_group() -> None:
    table = ScoreTable.build(ENTRIES, HISTORY, Points())
    rows = rank(table, ["head_to_head", "sonneborn_berger", "margin"])
    assert [r.entry for r in rows] == [2, 4, 1, 3]
    h2h = {r.entry: r.tiebreak("head_to_head") for r in rows}
    assert h2h == {2: 0, 4: 3, 1: 0, 3: 0}  # only 1 and 4 are tied (4 points): 4 beat 1
    assert [r.rank for r in rows] == [1, 2, 3, 4] and not any(r.shared for r in rows)


def test_the_order_of_tiebreaks_matters() -> None:
    table = ScoreTable.build(ENTRIES, HISTORY, Points())
    rows = rank(table, ["sonneborn_berger", "head_to_head"])
    assert [r.entry for r in rows] == [2, 1, 4, 3]  # SB 7 beats SB 5 before head-to-head


def test_a_bye_counts_as_the_entry_s_own_score_in_buchholz() -> None:
    # Outside a Swiss table (pre-determined pairings) a bye adds the entry's own points.
    # R1: 1 beats 2, 3 has a bye worth a win (3).  Points 1: 3, 2: 0, 3: 3.
    hist = [Round.of(1, [Pairing(1, 1, 2), Pairing(2, 3, None)], {1: Result(0, 2)})]
    table = ScoreTable.build([1, 2, 3], hist, Points(), bye_points=Fraction(3))
    assert table.points == {1: 3, 2: 0, 3: 3} and table.byes == {1: 0, 2: 0, 3: 1}
    assert find_tiebreak("buchholz").compute(table, [1, 2, 3]) == {1: 0, 2: 3, 3: 3}
    assert find_tiebreak("buchholz_cut1").compute(table, [1, 2, 3]) == {1: 0, 2: 0, 3: 0}
    rows = rank(table, [])
    assert [(r.entry, r.rank_text) for r in rows] == [(1, "1="), (3, "1="), (2, "3")]
    rows = rank(table, ["buchholz"])
    assert [(r.entry, r.rank_text) for r in rows] == [(3, "1"), (1, "2"), (2, "3")]


def test_games_of_an_inactive_entry_are_void() -> None:
    table = ScoreTable.build(ENTRIES, HISTORY, Points(), inactive=[4])
    assert table.entries == (1, 2, 3)
    assert table.points == {1: 4, 2: 3, 3: 1}


def test_unknown_tiebreak() -> None:
    assert set(TIEBREAKS) >= {
        "head_to_head",
        "sonneborn_berger",
        "buchholz",
        "buchholz_cut1",
        "margin",
        "wins",
    }
    with pytest.raises(ValueError, match="unknown tiebreak 'luck'"):
        find_tiebreak("luck")


# ---------------------------------------------------------------- unplayed rounds (FIDE C.07 §16)
#
# Five entries, three rounds, 1/0.5/0, a bye scores a win; the Swiss pairs exactly these boards.
# R1: 1 beats 3, 2 draws 4, 5 has the bye.  R2: 4 (side B) beats 1, 5 draws 2, 3 has the bye.
# R3: 4 beats 3, 5 beats 1, 2 has the bye.
# Points: 1 = 1; 2 = 1/2 + 1/2 + 1 = 2; 3 = 0 + 1 + 0 = 1; 4 = 1/2 + 1 + 1 = 5/2;
# 5 = 1 + 1/2 + 1 = 5/2.
FIVE = [
    Round.of(
        1,
        [Pairing(1, 1, 3), Pairing(2, 2, 4), Pairing(3, 5, None)],
        {1: Result(0, 4), 2: Result(None, 0)},
    ),
    Round.of(
        2,
        [Pairing(1, 1, 4), Pairing(2, 5, 2), Pairing(3, 3, None)],
        {1: Result(1, -2), 2: Result(None, 0)},
    ),
    Round.of(
        3,
        [Pairing(1, 4, 3), Pairing(2, 5, 1), Pairing(3, 2, None)],
        {1: Result(0, 3), 2: Result(0, 1)},
    ),
]


def _five(tiebreaks: str) -> dict[int, tuple[Fraction, ...]]:
    from app.formats.swiss import Swiss

    fmt = Swiss({"rounds": 3, "points": "1/0.5/0", "tiebreaks": tiebreaks})
    rows = fmt.standings([1, 2, 3, 4, 5], FIVE).rows
    return {r.entry: (r.points, *(v for _, v in r.tiebreaks)) for r in rows}


def test_the_swiss_pairs_the_five_entry_example_itself() -> None:
    from app.formats.swiss import Swiss

    fmt = Swiss({"rounds": 3, "points": "1/0.5/0"})
    for k, rnd in enumerate(FIVE):
        answer = fmt.next_round([1, 2, 3, 4, 5], FIVE[:k])
        assert isinstance(answer, RoundPairings)
        assert answer.pairings == tuple(g.pairing for g in rnd.games)


def test_sonneborn_berger_counts_a_bye_as_a_win_against_the_dummy() -> None:
    # Article 16.4: the bye is a win against a dummy whose score is the entry's own, at most the
    # points of a draw times the rounds (16.4.2): 1/2 * 3 = 3/2.
    #   1: beat 3 (1)                                     = 1
    #   2: drew 4 (5/2 / 2) + drew 5 (5/2 / 2) + bye min(2, 3/2)     = 5/2 + 3/2 = 4
    #   3: bye min(1, 3/2)                                = 1
    #   4: drew 2 (2 / 2) + beat 1 (1) + beat 3 (1)       = 3
    #   5: bye min(5/2, 3/2) + drew 2 (2 / 2) + beat 1 (1)       = 3/2 + 2 = 7/2
    # Before Article 16 (byes counted nothing): 2, 3 and 5 had 5/2, 0 and 2; under the 2023/2024
    # text (no cap) they would have 9/2, 1 and 9/2.
    sb = {e: v[1] for e, v in _five("sonneborn_berger").items()}
    assert sb == {1: 1, 2: 4, 3: 1, 4: 3, 5: Fraction(7, 2)}
    order = [r.entry for r in _standings_rows("sonneborn_berger")]
    assert order == [5, 4, 2, 1, 3]  # 5 above 4 now: 7/2 against 3 (before: 2 against 3)


def _standings_rows(tiebreaks: str) -> list[Any]:
    from app.formats.swiss import Swiss

    fmt = Swiss({"rounds": 3, "points": "1/0.5/0", "tiebreaks": tiebreaks})
    return list(fmt.standings([1, 2, 3, 4, 5], FIVE).rows)


def test_buchholz_and_cut1_take_the_capped_dummy_for_a_bye() -> None:
    # Buchholz (Article 8.1; opponents' byes count as scored, 16.3.1), the bye's term the dummy:
    #   1: 3 (1) + 4 (5/2) + 5 (5/2)                      = 6
    #   2: 4 (5/2) + 5 (5/2) + dummy min(2, 3/2)          = 13/2
    #   3: 1 (1) + dummy min(1, 3/2) + 4 (5/2)            = 9/2
    #   4: 2 (2) + 1 (1) + 3 (1)                          = 4
    #   5: dummy min(5/2, 3/2) + 2 (2) + 1 (1)            = 9/2
    # Cut-1 removes the least significant term (14.1; a pairing-allocated bye is no VUR, so
    # 16.5.1 does not apply): 6 - 1, 13/2 - 3/2, 9/2 - 1, 4 - 1, 9/2 - 1.
    values = _five("buchholz,buchholz_cut1")
    assert {e: v[1] for e, v in values.items()} == {
        1: 6,
        2: Fraction(13, 2),
        3: Fraction(9, 2),
        4: 4,
        5: Fraction(9, 2),
    }
    assert {e: v[2] for e, v in values.items()} == {
        1: 5,
        2: 5,
        3: Fraction(7, 2),
        4: 3,
        5: Fraction(7, 2),
    }


def test_cut1_cuts_a_voluntary_unplayed_round_first() -> None:
    # Article 16.5.1 for Buchholz: "cut the lowest contribution coming from a VUR". Entry 1 met
    # opponents with 1 and 4 points and has a VUR whose dummy is its own 2 points: the VUR's 2 is
    # cut, not the least significant 1. Without the VUR flag the 1 goes.
    table = ScoreTable(
        entries=(1, 2, 3),
        points={1: Fraction(2), 2: Fraction(1), 3: Fraction(4)},
        games={
            1: [GameRecord(1, 2, ONE, 0, ONE, 2), GameRecord(2, 3, ONE, 0, ONE, 2)],
            2: [],
            3: [],
        },
        byes={1: 0, 2: 0, 3: 0},
        swiss=True,
        rounds=3,
        draw=ONE,
        unplayed={1: [Unplayed(3, ZERO, ZERO, vur=True)], 2: [], 3: []},
    )
    cut = find_tiebreak("buchholz_cut1").compute
    assert find_tiebreak("buchholz").compute(table, [1])[1] == 1 + 4 + 2
    assert cut(table, [1])[1] == 1 + 4
    table.unplayed[1] = [Unplayed(3, ZERO, ZERO)]
    assert cut(table, [1])[1] == 4 + 2


def test_a_walkover_against_a_disqualified_entry_is_an_unplayed_round() -> None:
    # The league stores a voided battle as a walkover Result(side, 0) for the side still active;
    # with the disqualified entry inactive it earns nothing, like every game of that entry. In a
    # Swiss table the round is unplayed (Article 16.4): lost against the dummy (nothing for
    # Sonneborn-Berger), the dummy's score in Buchholz. 3/1/0, two rounds: R1 1 beats 2, 3 beats
    # 4; R2 entry 4 is out, 1 v 4 a walkover for 1, 2 beats 3. Points 1: 3, 2: 3, 3: 3.
    hist = [
        Round.of(1, [Pairing(1, 1, 2), Pairing(2, 3, 4)], {1: Result(0, 2), 2: Result(0, 1)}),
        Round.of(2, [Pairing(1, 1, 4), Pairing(2, 2, 3)], {1: Result(0), 2: Result(0, 5)}),
    ]
    table = ScoreTable.build([1, 2, 3, 4], hist, Points(), inactive=[4], swiss=True)
    assert table.points == {1: 3, 2: 3, 3: 0}
    assert table.unplayed == {
        1: [Unplayed(2, ZERO, ZERO, kind="void")],
        2: [],
        3: [Unplayed(1, ZERO, ZERO, kind="void")],
    }
    # dummies: 1: min(3, 1 * 2) = 2; 3: min(0, 2) = 0
    assert find_tiebreak("buchholz").compute(table, [1, 2, 3]) == {1: 3 + 2, 2: 3 + 0, 3: 3 + 0}
    assert find_tiebreak("sonneborn_berger").compute(table, [1, 2, 3]) == {1: 3, 2: 0, 3: 0}
    legacy = ScoreTable.build([1, 2, 3, 4], hist, Points(), inactive=[4])
    assert find_tiebreak("buchholz").compute(legacy, [1, 2, 3]) == {1: 3, 2: 3, 3: 3}


swiss_results = st.sampled_from([Result(0, 3), Result(1, -2), Result(None, 0)])


@given(
    n=st.integers(2, 13),
    rounds=st.integers(1, 6),
    data=st.data(),
    points=st.sampled_from(["3/1/0", "1/0.5/0", "2/1/0"]),
    bye=st.sampled_from(["win", "draw", "loss"]),
)
@settings(max_examples=60, deadline=None)
def test_article_16_changes_only_the_unplayed_rounds(
    n: int, rounds: int, data: st.DataObject, points: str, bye: str
) -> None:
    from app.formats.swiss import Swiss

    fmt = Swiss({"rounds": rounds, "points": points, "bye_points": bye})
    entries = list(range(1, n + 1))
    history, _ = play(fmt, entries, lambda r, p: data.draw(swiss_results))
    old = ScoreTable.build(entries, history, fmt.points, bye_points=fmt.bye_value)
    new = ScoreTable.build(entries, history, fmt.points, bye_points=fmt.bye_value, swiss=True)
    cap = fmt.points.draw * len(history)
    result = {"win": ONE, "draw": HALF, "loss": ZERO}[bye]
    for name in ("sonneborn_berger", "buchholz", "buchholz_cut1"):
        before = find_tiebreak(name).compute(old, entries)
        after = find_tiebreak(name).compute(new, entries)
        for e in entries:
            k, own = old.byes[e], old.points[e]
            dummy = min(own, cap)
            if k == 0:  # without a bye (every entry of an even field) nothing changes
                assert after[e] == before[e], (name, e)
            elif name == "sonneborn_berger":  # the bye: a result against the dummy
                assert after[e] == before[e] + k * result * dummy
            elif name == "buchholz":  # the dummy's capped score instead of the own score
                assert after[e] == before[e] - k * own + k * dummy
            else:
                terms = [old.points[g.opponent] for g in old.games[e]] + [dummy] * k
                assert after[e] == sum(terms) - min(terms)
