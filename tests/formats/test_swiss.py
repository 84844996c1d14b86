"""Swiss: never the same pair twice, at most one bye per player and to the lowest-ranked
eligible, pairing within score groups (Dutch: top half against bottom half)."""

from __future__ import annotations

from collections import Counter

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import Finished, Pairing, Result, Round, RoundPairings
from app.formats.swiss import Swiss
from app.formats.tiebreaks import ScoreTable

from .helpers import play

outcomes = st.sampled_from([Result(0, 3), Result(1, -2), Result(None, 0)])


def _pairable(players: list[int], met: set[frozenset[int]]) -> bool:
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from((a, b) for i, a in enumerate(players) for b in players[i + 1:]
                         if frozenset((a, b)) not in met)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(players)


@given(n=st.integers(2, 22), rounds=st.integers(1, 12), data=st.data())
@settings(max_examples=60, deadline=None)
def test_no_repeated_pair_one_bye_at_most_and_to_the_lowest_eligible(
        n: int, rounds: int, data: st.DataObject) -> None:
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
                for lower in ranked[ranked.index(g.a) + 1:]:
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
        assert n % 2 == 0 and not _pairable(entries, met) or all(
            not _pairable([e for e in entries if e != x], met) for x in rest)
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
        (1, 4, 7), (2, 4, 4), (3, 3, 4), (4, 0, 7)]
