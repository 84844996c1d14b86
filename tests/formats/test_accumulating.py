"""Accumulating round robin: totals are the sum of the updates, every update is a full round
robin of the active entries, and the draw server's win-rate points by hand."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.accumulating import Accumulating
from app.formats.base import Finished, Pairing, Result, Round, RoundPairings

outcomes = st.sampled_from([Result(0, 2), Result(1, -1), Result(None, 0)])


@given(
    n=st.integers(2, 8),
    updates=st.integers(1, 4),
    win_rate=st.booleans(),
    late=st.integers(0, 3),
    data=st.data(),
)
@settings(max_examples=60, deadline=None)
def test_totals_are_the_sum_of_the_updates(
    n: int, updates: int, win_rate: bool, late: int, data: st.DataObject
) -> None:
    fmt = Accumulating({"updates": updates, "points": "win-rate" if win_rate else "3/1/0"})
    entries = list(range(1, n + 1))
    history: list[Round] = []
    joined = {e: 1 for e in entries}
    while True:
        answer = fmt.next_round(entries, history)
        if not isinstance(answer, RoundPairings):
            assert answer == Finished("all-rounds-played")
            break
        active = entries
        assert {frozenset((p.a, p.b)) for p in answer.pairings} == {
            frozenset((a, b)) for i, a in enumerate(active) for b in active[i + 1 :]
        }
        history.append(answer.to_round({p.board: data.draw(outcomes) for p in answer.pairings}))
        if late and len(history) == 1:  # new entries join between updates
            new = list(range(100, 100 + late))
            entries = entries + new
            joined.update({e: 2 for e in new})
    st_ = fmt.standings(entries, history)
    assert len(history) == updates
    for row in st_.rows:
        per = row.detail["updates"]
        assert len(per) == updates
        assert [x is None for x in per] == [k + 1 < joined[row.entry] for k in range(updates)]
        if not win_rate:  # the JSON numbers are exact for league points
            assert sum(Fraction(x) for x in per if x is not None) == row.points
        exact = sum(
            (fmt.update_points(entries, rnd).get(row.entry, Fraction(0)) for rnd in history),
            Fraction(0),
        )
        assert exact == row.points


def test_win_rate_points_by_hand() -> None:
    # one update of three: 1 beats 2, 1 draws 3, 3 beats 2.
    # win rates: 1 = (1 + 1/2)/2 = 3/4; 2 = 0; 3 = (1/2 + 1)/2 = 3/4
    # points: 1 = rate(2) + rate(3)/2 = 3/8; 2 = 0; 3 = rate(1)/2 + rate(2) = 3/8
    fmt = Accumulating({"updates": 1, "points": "win-rate"})
    rnd = Round.of(
        1,
        [Pairing(1, 1, 2), Pairing(2, 1, 3), Pairing(3, 2, 3)],
        {1: Result(0, 1), 2: Result(None, 0), 3: Result(1, -2)},
    )
    assert fmt.update_points([1, 2, 3], rnd) == {1: Fraction(3, 8), 2: 0, 3: Fraction(3, 8)}
    rows = fmt.standings([1, 2, 3], [rnd]).rows
    # 1 and 3 tie on points and on wins (one each); margin: 3 has 0 + 2, 1 has 1 + 0
    assert [(r.entry, r.points, r.rank_text) for r in rows] == [
        (3, Fraction(3, 8), "1"),
        (1, Fraction(3, 8), "2"),
        (2, 0, "3"),
    ]


def test_league_points_per_update() -> None:
    fmt = Accumulating({"updates": 2})
    r1 = Round.of(1, [Pairing(1, 1, 2)], {1: Result(0, 1)})
    r2 = Round.of(2, [Pairing(1, 1, 2)], {1: Result(None, 0)})
    rows = fmt.standings([1, 2], [r1, r2]).rows
    assert [(r.entry, r.points, r.detail["updates"]) for r in rows] == [
        (1, 4, [3, 1]),
        (2, 1, [0, 1]),
    ]
    assert fmt.next_round([1, 2], [r1, r2]) == Finished("all-rounds-played")
