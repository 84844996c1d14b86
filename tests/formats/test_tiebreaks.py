"""Tiebreaks on small histories computed by hand (values in the comments)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.formats.base import Pairing, Points, Result, Round
from app.formats.tiebreaks import TIEBREAKS, ScoreTable, find_tiebreak, rank

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
    assert set(TIEBREAKS) >= {"head_to_head", "sonneborn_berger", "buchholz", "buchholz_cut1",
                              "margin", "wins"}
    with pytest.raises(ValueError, match="unknown tiebreak 'luck'"):
        find_tiebreak("luck")
