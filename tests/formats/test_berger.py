"""Berger tables (``RoundRobin.schedule``): every pair meets exactly once (twice when double),
byes rotate fairly, nobody meets themselves, and the table matches FIDE's published Berger
tables (Handbook C.05, Annex 1)."""

from __future__ import annotations

from collections import Counter

import pytest

from app.formats.round_robin import berger_pairs, berger_rounds

from .helpers import Seat, berger_schedule


def berger_round(n: int, r: int) -> list[Seat]:
    """Round ``r`` of one cycle (``berger_pairs``)."""
    return [Seat(r, i, a, b) for i, (a, b) in enumerate(berger_pairs(n, r), start=1)]


def rounds_count(n: int, *, double: bool = False) -> int:
    return berger_rounds(n) * (2 if double else 1)


@pytest.mark.parametrize("n", range(2, 13))
@pytest.mark.parametrize("double", [False, True])
def test_every_pair_meets_the_right_number_of_times(n: int, double: bool) -> None:
    rounds = berger_schedule(n, double=double)
    assert len(rounds) == rounds_count(n, double=double) == (n - 1 + n % 2) * (1 + double)
    meetings: Counter[frozenset[int]] = Counter()
    for number, boards in enumerate(rounds, start=1):
        seats_this_round: list[int] = []
        for p in boards:
            assert p.round == number
            seats_this_round.append(p.a)
            if p.b is not None:
                assert p.a != p.b, "a seat meets itself"
                seats_this_round.append(p.b)
                meetings[frozenset((p.a, p.b))] += 1
        # every seat appears exactly once per round (playing or on the bye)
        assert sorted(seats_this_round) == list(range(n))
        assert [p.board for p in boards] == list(range(1, len(boards) + 1))
    expected = 2 if double else 1
    all_pairs = {frozenset((i, j)) for i in range(n) for j in range(i + 1, n)}
    assert set(meetings) == all_pairs
    assert set(meetings.values()) == {expected}


@pytest.mark.parametrize("n", range(2, 13))
@pytest.mark.parametrize("double", [False, True])
def test_byes_rotate_fairly(n: int, double: bool) -> None:
    rounds = berger_schedule(n, double=double)
    byes = Counter(p.a for boards in rounds for p in boards if p.is_bye)
    per_round = [sum(p.is_bye for p in boards) for boards in rounds]
    if n % 2 == 0:
        assert not byes and set(per_round) == {0}
    else:
        # one bye per round, and everyone gets exactly one per cycle
        assert set(per_round) == {1}
        assert byes == {seat: 1 + double for seat in range(n)}
        # and a bye is listed last
        assert all(boards[-1].is_bye for boards in rounds)


@pytest.mark.parametrize("n", range(2, 13))
def test_sides_are_balanced_and_double_swaps_them(n: int) -> None:
    single = berger_schedule(n)
    a_count: Counter[int] = Counter()
    games: Counter[int] = Counter()
    for boards in single:
        for p in boards:
            if p.b is not None:
                a_count[p.a] += 1
                games[p.a] += 1
                games[p.b] += 1
    for seat in range(n):
        # side A (white in FIDE's tables) is balanced: at most one game off half
        assert abs(2 * a_count[seat] - games[seat]) <= 1
    double = berger_schedule(n, double=True)
    half = len(single)
    for r, boards in enumerate(single):
        for p, q in zip(boards, double[half + r], strict=True):
            assert q.round == half + r + 1
            assert (q.a, q.b) == ((p.b, p.a) if p.b is not None else (p.a, None))


def test_fide_berger_table_for_six() -> None:
    # FIDE Handbook C.05 Annex 1, 5 or 6 players (1-based seats)
    fide = [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]
    got = [[(p.a + 1, p.b + 1) for p in berger_round(6, r)] for r in range(1, 6)]
    assert got == fide


def test_odd_field_uses_the_phantom_seat_as_bye() -> None:
    # 5 players use the 6-player table with seat 6 as the bye
    got = [
        [(p.a + 1, None if p.b is None else p.b + 1) for p in berger_round(5, r)]
        for r in range(1, 6)
    ]
    assert got[0] == [(2, 5), (3, 4), (1, None)]
    assert got[1] == [(5, 3), (1, 2), (4, None)]


def test_deterministic() -> None:
    assert berger_schedule(9, double=True) == berger_schedule(9, double=True)


def test_small_and_bad_fields() -> None:
    assert berger_schedule(0) == [] and berger_schedule(1) == []
    assert rounds_count(1) == 0
    with pytest.raises(ValueError):
        rounds_count(-1)
    with pytest.raises(ValueError):
        berger_round(4, 4)
    with pytest.raises(ValueError):
        berger_round(1, 1)
