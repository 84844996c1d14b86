"""Swiss: never the same pair twice, at most one bye per player and to the lowest-ranked
eligible, pairing within score groups (Dutch: top half against bottom half)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import Finished, Pairing, Result, Round, RoundPairings
from app.formats.swiss import DOWN, UP, Swiss, floats, pair_round
from app.formats.tiebreaks import ScoreTable

from .helpers import play

outcomes = st.sampled_from([Result(0, 3), Result(1, -2), Result(None, 0)])


def _pairable(players: list[int], met: set[frozenset[int]]) -> bool:
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from(
        (a, b)
        for i, a in enumerate(players)
        for b in players[i + 1 :]
        if frozenset((a, b)) not in met
    )
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(players)


@given(n=st.integers(2, 22), rounds=st.integers(1, 12), data=st.data())
@settings(max_examples=60, deadline=None)
def test_no_repeated_pair_one_bye_at_most_and_to_the_lowest_eligible(
    n: int, rounds: int, data: st.DataObject
) -> None:
    entries = [100 + i for i in range(n)]
    fmt = Swiss({"rounds": rounds})
    history, end = play(fmt, entries, lambda r, p: data.draw(outcomes))
    met: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    for k, rnd in enumerate(history):
        seen = sorted(x for g in rnd.games for x in (g.a, g.b) if x is not None)
        assert seen == entries
        assert (sum(g.is_bye for g in rnd.games) == 1) == (n % 2 == 1)
        before = history[:k]
        table = ScoreTable.build(entries, before, fmt.points, bye_points=fmt.bye_value)
        ranked = sorted(entries, key=lambda e: (-table.points[e], entries.index(e)))
        for g in rnd.games:
            if g.b is None:
                # every lower-ranked entry without a bye could not take it
                for lower in ranked[ranked.index(g.a) + 1 :]:
                    if byes[lower] == 0:
                        assert not _pairable([e for e in entries if e != lower], met)
                byes[g.a] += 1
            else:
                pair = frozenset((g.a, g.b))
                assert pair not in met, f"{sorted(pair)} meet twice"
                met.add(pair)
                assert ranked.index(g.a) < ranked.index(g.b)  # side A is the higher-ranked
    assert all(v == 1 for v in byes.values())
    if isinstance(end, Finished) and end.reason == "no-legal-pairing":
        rest = [e for e in entries if n % 2 == 0 or byes[e] == 0]
        assert len(history) < rounds
        assert (
            n % 2 == 0
            and not _pairable(entries, met)
            or all(not _pairable([e for e in entries if e != x], met) for x in rest)
        )
    else:
        assert len(history) == rounds and end == Finished("all-rounds-played")


def test_round_one_pairs_top_half_against_bottom_half() -> None:
    entries = list(range(1, 9))
    answer = Swiss({"rounds": 3}).next_round(entries, [])
    assert isinstance(answer, RoundPairings)
    assert [(p.a, p.b) for p in answer.pairings] == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_round_two_pairs_within_score_groups() -> None:
    entries = list(range(1, 9))
    fmt = Swiss({"rounds": 3})
    first = fmt.next_round(entries, [])
    assert isinstance(first, RoundPairings)
    # 1, 2, 3, 4 win; the winners' group is 1 2 3 4 (top half 1 2 against 3 4)
    history = [first.to_round({p.board: Result(0, 1) for p in first.pairings})]
    second = fmt.next_round(entries, history)
    assert isinstance(second, RoundPairings)
    assert [(p.a, p.b) for p in second.pairings] == [(1, 3), (2, 4), (5, 7), (6, 8)]


def test_the_bye_goes_to_the_lowest_ranked_once() -> None:
    entries = [1, 2, 3, 4, 5]
    fmt = Swiss({"rounds": 4})
    first = fmt.next_round(entries, [])
    assert isinstance(first, RoundPairings)
    assert first.pairings[-1] == Pairing(3, 5, None)
    history = [first.to_round({p.board: Result(1, -1) for p in first.pairings})]
    # round 1 was 1 v 3, 2 v 4 (Dutch within the one group) and 5's bye; side B won
    # everywhere, so 1 and 2 have 0 points and 2, ranked below 1 by seed order, is the
    # lowest-ranked entry without a bye
    second = fmt.next_round(entries, history)
    assert isinstance(second, RoundPairings)
    bye = second.pairings[-1]
    assert bye.b is None and bye.a == 2
    assert fmt.standings(entries, history).row(5).byes == 1


def test_three_players_run_out_of_pairs() -> None:
    fmt = Swiss({"rounds": 5})
    history, end = play(fmt, [1, 2, 3], lambda r, p: Result(0, 1))
    assert len(history) == 3 and end == Finished("no-legal-pairing")


def test_standings_use_buchholz_then_sonneborn_berger() -> None:
    fmt = Swiss({"rounds": 2})
    entries = [1, 2, 3, 4]
    history = [
        Round.of(1, [Pairing(1, 1, 3), Pairing(2, 2, 4)], {1: Result(0, 4), 2: Result(0, 1)}),
        Round.of(2, [Pairing(1, 1, 2), Pairing(2, 3, 4)], {1: Result(None, 0), 2: Result(0, 2)}),
    ]
    rows = fmt.standings(entries, history).rows
    # points 1: 4, 2: 4, 3: 3, 4: 0; Buchholz 1: 3+4 = 7, 2: 0+4 = 4
    assert [(r.entry, r.points, r.tiebreak("buchholz")) for r in rows] == [
        (1, 4, 7),
        (2, 4, 4),
        (3, 3, 4),
        (4, 0, 7),
    ]


# ------------------------------------------------------------------ floats (C.04.3 C.12-C.15)

SIX = [1, 2, 3, 4, 5, 6]
ONE_ZERO = {
    1: Fraction(1),
    2: Fraction(1),
    3: Fraction(1),
    4: Fraction(0),
    5: Fraction(0),
    6: Fraction(0),
}


def test_floats_of_the_last_two_rounds() -> None:
    # 3/1/0. R1: 1 beats 2, 3 draws 4, 5 has the bye. R2 (scores 1: 3, 5: 3, 3: 1, 4: 1, 2: 0):
    # 1 v 5 drawn (equal: no float), 3 v 2 (3 floats down, 2 up), 4 has the bye (a downfloat).
    hist = [
        Round.of(
            1,
            [Pairing(1, 1, 2), Pairing(2, 3, 4), Pairing(3, 5, None)],
            {1: Result(0, 1), 2: Result(None)},
        ),
        Round.of(
            2,
            [Pairing(1, 1, 5), Pairing(2, 3, 2), Pairing(3, 4, None)],
            {1: Result(None), 2: Result(1, -1)},
        ),
    ]
    fl = floats(hist, Swiss({"rounds": 3}).points, Fraction(3), SIX[:5])
    assert fl == {1: (None, None), 2: (UP, None), 3: (DOWN, None), 4: (DOWN, None), 5: (None, DOWN)}
    # a game voided because the opponent is out was not played: a downfloat (1 v 5 with 5 out)
    assert floats(hist, Swiss({"rounds": 3}).points, Fraction(3), [1, 2, 3, 4])[1] == (DOWN, None)
    assert floats(hist, Swiss({"rounds": 3}).points, Fraction(3), [2, 3, 4, 5])[5] == (DOWN, DOWN)


def test_an_entry_that_floated_down_last_round_does_not_float_down_again() -> None:
    # One of the three entries on 1 point floats down. The Dutch order picks 3 (the lowest of
    # the upper group against 4, the highest of the lower one); 3 floated down last round (C.12)
    # and 2 floats down instead, at the same score spread.
    assert pair_round(SIX, ONE_ZERO, set(), set()) == [(1, 2), (3, 4), (5, 6)]
    assert pair_round(SIX, ONE_ZERO, set(), set(), {3: (DOWN, None)}) == [(1, 3), (2, 4), (5, 6)]
    # the same two rounds before (C.14), and upfloats (C.13, C.15) for the lower group
    assert pair_round(SIX, ONE_ZERO, set(), set(), {3: (None, DOWN)}) == [(1, 3), (2, 4), (5, 6)]
    assert pair_round(SIX, ONE_ZERO, set(), set(), {4: (UP, None)}) == [(1, 2), (3, 5), (4, 6)]
    assert pair_round(SIX, ONE_ZERO, set(), set(), {4: (None, UP)}) == [(1, 2), (3, 5), (4, 6)]
    # equal scores are no float: a pair within a group ignores the history
    assert pair_round(SIX, ONE_ZERO, set(), set(), {1: (DOWN, DOWN), 2: (UP, UP)}) == [
        (1, 2),
        (3, 4),
        (5, 6),
    ]


def test_a_repeated_downfloat_weighs_more_than_a_repeated_upfloat() -> None:
    # 3 has met 4 and 5, so it can float down only to 6, who floated up last round; 1 and 2
    # floated down last round. C.12 outranks C.13: 3 v 6 (6 floats up again).
    met = {frozenset((3, 4)), frozenset((3, 5))}
    fl = {1: (DOWN, None), 2: (DOWN, None), 6: (UP, None)}
    assert pair_round(SIX, ONE_ZERO, met, set(), fl) == [(1, 2), (3, 6), (4, 5)]


@given(n=st.integers(2, 22), rounds=st.integers(2, 8), data=st.data())
@settings(max_examples=40, deadline=None)
def test_floats_never_change_the_score_spread_or_the_bye(
    n: int, rounds: int, data: st.DataObject
) -> None:
    entries = list(range(1, n + 1))
    fmt = Swiss({"rounds": rounds})
    history, _ = play(fmt, entries, lambda r, p: data.draw(outcomes))
    for k in range(1, len(history)):
        before = history[:k]
        table = ScoreTable.build(entries, before, fmt.points, bye_points=fmt.bye_value)
        ranked = sorted(entries, key=lambda e: (-table.points[e], e))
        met = {frozenset((g.a, g.b)) for r in before for g in r.games if g.b is not None}
        had_bye = {g.a for r in before for g in r.games if g.b is None}
        fl = floats(before, fmt.points, fmt.bye_value, entries)
        plain = pair_round(ranked, table.points, met, had_bye)
        with_floats = pair_round(ranked, table.points, met, had_bye, fl)

        def spread(pairs: list[tuple[int, int | None]], points: Any = table.points) -> Fraction:
            return sum(
                ((points[a] - points[b]) ** 2 for a, b in pairs if b is not None), Fraction(0)
            )

        assert spread(with_floats) == spread(plain)
        assert [p for p in with_floats if p[1] is None] == [p for p in plain if p[1] is None]
