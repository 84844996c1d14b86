"""Round robin: the same schedule as the league's Berger tables, everyone meets everyone once
(twice if double), byes balanced, and the same standings as ``app.league.standings``."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats import find_format
from app.formats.base import Finished, NotYet, Pairing, Result, Round, RoundPairings
from app.formats.round_robin import RoundRobin

from . import oracle_round_robin as oracle
from .helpers import play


@pytest.mark.parametrize("n", range(0, 31))
@pytest.mark.parametrize("double", [False, True])
def test_next_round_plays_the_schedule_known_at_close(n: int, double: bool) -> None:
    entries = [1000 + 7 * i for i in range(n)]  # ids unlike seats
    fmt = RoundRobin({"double": double})
    history, end = play(fmt, entries, lambda r, p: Result(0, 1))
    table = fmt.schedule(entries)
    assert len(history) == len(table) == fmt.rounds_planned(n)
    for rnd, answer in zip(history, table, strict=True):
        assert rnd.number == answer.round
        assert [g.pairing for g in rnd.games] == list(answer.pairings)
    assert end == (Finished("too-few-entries") if n < 2 else Finished("all-rounds-played"))


@given(n=st.integers(2, 24), double=st.booleans())
@settings(max_examples=60, deadline=None)
def test_everyone_meets_everyone_and_byes_are_balanced(n: int, double: bool) -> None:
    entries = list(range(n))
    history, _ = play(RoundRobin({"double": double}), entries, lambda r, p: Result(None))
    meetings: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    for rnd in history:
        seen = [x for g in rnd.games for x in (g.a, g.b) if x is not None]
        assert sorted(seen) == entries  # everyone once per round
        for g in rnd.games:
            if g.b is None:
                byes[g.a] += 1
            else:
                meetings[frozenset((g.a, g.b))] += 1
    cycles = 2 if double else 1
    assert set(meetings.values()) == {cycles}
    assert len(meetings) == n * (n - 1) // 2
    if n % 2:
        assert byes == Counter({e: cycles for e in entries})
    else:
        assert not byes


def test_not_yet_while_results_are_missing_and_the_same_pairings_after_a_crash() -> None:
    fmt = find_format("round-robin")()
    entries = [5, 6, 7, 8]
    first = fmt.next_round(entries, [])
    assert isinstance(first, RoundPairings) and first.round == 1
    half = Round.of(1, first.pairings, {1: Result(0)})
    assert fmt.next_round(entries, [half]) == NotYet("results-pending", 1, (2,))
    assert fmt.next_round(entries, []) == first


def test_an_inactive_entry_s_opponents_get_byes() -> None:
    fmt = RoundRobin()
    entries = [1, 2, 3, 4]
    answer = fmt.next_round(entries, [], inactive=[2])
    assert isinstance(answer, RoundPairings)
    full = fmt.round_pairings(entries, 1)
    opponent = next(p.a if p.b == 2 else p.b for p in full if 2 in (p.a, p.b))
    assert Pairing(len(answer.pairings), opponent, None) == answer.pairings[-1]
    assert all(2 not in (p.a, p.b) for p in answer.pairings)


def test_a_history_that_does_not_fit_is_refused() -> None:
    fmt = RoundRobin()
    with pytest.raises(ValueError, match="round 2 found where round 1"):
        fmt.next_round([1, 2], [Round.of(2, [Pairing(1, 1, 2)], {1: Result(0)})])
    with pytest.raises(ValueError, match="unknown entry 9"):
        fmt.next_round([1, 2], [Round.of(1, [Pairing(1, 1, 9)], {1: Result(0)})])


results = st.tuples(st.sampled_from([0, 1, None]), st.integers(-12, 12))


@given(
    n=st.integers(2, 9),
    double=st.booleans(),
    data=st.data(),
    points=st.sampled_from(["3/1/0", "2/1/0", "1/1/0"]),
)
@settings(max_examples=80, deadline=None)
def test_standings_equal_the_oracle_s(
    n: int, double: bool, data: st.DataObject, points: str
) -> None:
    entries = list(range(10, 10 + n))
    drawn: dict[tuple[int, int], tuple[int | None, int]] = {}

    def fight(r: int, p: Pairing) -> Result:
        w, m = data.draw(results)
        if w is None:
            m = 0
        elif (m > 0) != (w == 0) or m == 0:
            m = abs(m) + 1 if w == 0 else -abs(m) - 1
        drawn[(r, p.board)] = (w, m)
        return Result(w, m)

    fmt = RoundRobin({"double": double, "points": points})
    history, _ = play(fmt, entries, fight)
    games = [
        oracle.GameResult(g.a, g.b, g.result.winner, g.result.margin, 0)
        for rnd in history
        for g in rnd.games
        if g.b is not None and g.result is not None
    ]
    w, d, l_ = (int(x) for x in points.split("/"))
    old = oracle.compute(entries, games, oracle.Points(w, d, l_))
    new = fmt.standings(entries, history)
    assert [(s.entry, s.rank, s.shared, s.points, s.wins, s.draws, s.losses) for s in old] == [
        (r.entry, r.rank, r.shared, r.points, r.wins, r.draws, r.losses) for r in new.rows
    ]
    assert [(s.head_to_head, s.sonneborn_berger, s.hp_margin) for s in old] == [
        (r.tiebreak("head_to_head"), r.tiebreak("sonneborn_berger"), r.tiebreak("margin"))
        for r in new.rows
    ]
    assert all(isinstance(r.points, Fraction) for r in new.rows)
