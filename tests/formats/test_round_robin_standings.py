"""A round robin's standings (``RoundRobin.standings``, the one standings pipeline of every
league) with hand-computed tables: points, then head-to-head, Sonneborn-Berger, HP margin (the
ruleset's ``Outcome.margin``), and shared ranks when everything is equal. Points 3/1/0 unless
stated."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

from app.formats import Pairing, Points, Result, Round
from app.formats.round_robin import RoundRobin


@dataclass(frozen=True)
class GameResult:
    """One fought battle: ``a`` against ``b``, ``winner`` 0/1/None, final HP (the margin)."""

    a: int
    b: int
    winner: int | None
    hp_a: int
    hp_b: int


@dataclass(frozen=True)
class Line:
    """A standings row under the names the hand-computed tables use."""

    entry: int
    rank: int
    shared: bool
    points: Fraction
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    head_to_head: Fraction
    sonneborn_berger: Fraction
    hp_margin: Fraction


def compute(
    entries: list[int],
    games: list[GameResult],
    points: Points = Points(),
    byes: dict[int, int] | None = None,
) -> list[Line]:
    """The round robin's standings of ``games`` (one round each; a bye as its own round)."""
    history: list[Round] = []
    for g in games:
        history.append(
            Round.of(
                len(history) + 1, [Pairing(1, g.a, g.b)], {1: Result(g.winner, g.hp_a - g.hp_b)}
            )
        )
    for e, n in (byes or {}).items():
        for _ in range(n):
            history.append(Round.of(len(history) + 1, [Pairing(1, e, None)]))
    known = set(entries) | {x for g in games for x in (g.a, g.b)}
    ids = list(entries) + sorted(known - set(entries))
    fmt = RoundRobin({"points": str(points)})
    rows: Any = fmt.standings(ids, history, inactive=set(ids) - set(entries)).rows
    return [
        Line(
            r.entry,
            r.rank,
            r.shared,
            r.points,
            r.played,
            r.wins,
            r.draws,
            r.losses,
            r.byes,
            r.tiebreak("head_to_head"),
            r.tiebreak("sonneborn_berger"),
            r.tiebreak("margin"),
        )
        for r in rows
    ]


def W(a: int, b: int, hp_a: int = 5, hp_b: int = 0) -> GameResult:
    """``a`` beats ``b``."""
    return GameResult(a, b, 0, hp_a, hp_b)


def D(a: int, b: int, hp: int = 3) -> GameResult:
    """A draw (equal final HP, rules §2.5)."""
    return GameResult(a, b, None, hp, hp)


def table(scores):  # type: ignore[no-untyped-def]
    return [(s.entry, s.rank, s.points) for s in scores]


def test_plain_points_no_ties() -> None:
    scores = compute([1, 2, 3], [W(1, 2), W(1, 3), W(2, 3)])
    assert table(scores) == [(1, 1, 6), (2, 2, 3), (3, 3, 0)]
    one = scores[0]
    assert (one.played, one.wins, one.draws, one.losses) == (2, 2, 0, 0)
    assert not any(s.shared for s in scores)
    assert all(s.head_to_head == 0 for s in scores)  # nobody tied on points


def test_head_to_head_breaks_a_tie_on_points() -> None:
    # 1: beat 2, lost to 3, beat 4 = 6; 2: lost to 1, beat 3, beat 4 = 6
    # 3: beat 1, lost to 2, lost to 4 = 3; 4: lost 1, lost 2, beat 3 = 3
    games = [W(1, 2), W(3, 1), W(1, 4), W(2, 3), W(2, 4), W(4, 3)]
    scores = compute([1, 2, 3, 4], games)
    assert table(scores) == [(1, 1, 6), (2, 2, 6), (4, 3, 3), (3, 4, 3)]
    h2h = {s.entry: s.head_to_head for s in scores}
    assert h2h == {1: 3, 2: 0, 4: 3, 3: 0}
    # Sonneborn-Berger, hand-computed: 1 beat 2 (6) and 4 (3); 2 beat 3 (3) and 4 (3);
    # 3 beat 1 (6); 4 beat 3 (3). Here SB would have ranked 3 above 4: h2h comes first.
    sb = {s.entry: s.sonneborn_berger for s in scores}
    assert sb == {1: 9, 2: 6, 3: 6, 4: 3}


def test_sonneborn_berger_breaks_a_tie_when_head_to_head_is_equal() -> None:
    # 1 draws 2; 1 beats 3; 4 beats 1; 2 beats 4; 3 beats 2; 4 beats 3
    # points: 1 = 1+3+0 = 4, 2 = 1+3+0 = 4, 3 = 0+3+0 = 3, 4 = 3+0+3 = 6
    games = [D(1, 2), W(1, 3), W(4, 1), W(2, 4), W(3, 2), W(4, 3)]
    scores = compute([1, 2, 3, 4], games)
    assert table(scores) == [(4, 1, 6), (2, 2, 4), (1, 3, 4), (3, 4, 3)]
    sb = {s.entry: s.sonneborn_berger for s in scores}
    # SB(1) = 3's points (3) + half of 2's (4/2) = 5; SB(2) = 4's (6) + half of 1's (2) = 8
    assert sb[1] == 5 and sb[2] == 8
    assert {s.entry: s.head_to_head for s in scores}[1] == 1  # the draw, for each
    assert {s.entry: s.head_to_head for s in scores}[2] == 1


def test_hp_margin_breaks_a_tie_when_head_to_head_and_sb_are_equal() -> None:
    games = [
        W(1, 3, 10, -1),  # +11 for 1
        W(1, 4, 5, 0),  # +5
        D(1, 2, 3),
        W(2, 3, 8, 0),  # +8 for 2
        W(2, 4, 2, -2),  # +4
        D(3, 4, 4),
    ]
    scores = compute([1, 2, 3, 4], games)
    assert table(scores) == [(1, 1, 7), (2, 2, 7), (4, 3, 1), (3, 4, 1)]
    by = {s.entry: s for s in scores}
    assert by[1].head_to_head == by[2].head_to_head == 1
    assert by[1].sonneborn_berger == by[2].sonneborn_berger == Fraction(11, 2)  # 1 + 1 + 7/2
    assert (by[1].hp_margin, by[2].hp_margin) == (16, 12)
    assert by[3].sonneborn_berger == by[4].sonneborn_berger == Fraction(1, 2)
    assert (by[3].hp_margin, by[4].hp_margin) == (-19, -9)


def test_ties_left_after_every_tiebreak_share_a_rank() -> None:
    # 1 and 2 draw, both beat 3 by the same margin: equal on everything
    games = [D(1, 2), W(1, 3, 5, 0), W(2, 3, 5, 0)]
    scores = compute([1, 2, 3], games)
    assert [(s.entry, s.rank, s.shared) for s in scores] == [
        (1, 1, True),
        (2, 1, True),
        (3, 3, False),
    ]


def test_competition_ranking_with_a_shared_second_place() -> None:
    # 1 beats everyone; 2 and 3 draw and both beat 4 identically: 1, 2=, 2=, 4
    games = [W(1, 2), W(1, 3), W(1, 4), D(2, 3), W(2, 4, 4, 0), W(3, 4, 4, 0)]
    scores = compute([1, 2, 3, 4], games)
    assert [(s.entry, s.rank) for s in scores] == [(1, 1), (2, 2), (3, 2), (4, 4)]


def test_double_round_robin_counts_both_games() -> None:
    # 1 and 2 meet twice: 1 wins one, they draw the other; 3 loses to both twice
    games = [W(1, 2), D(2, 1), W(1, 3), W(3, 1), W(2, 3), W(2, 3)]
    scores = compute([1, 2, 3], games)
    # 1: 3+1+3+0 = 7; 2: 0+1+3+3 = 7; 3: 0+3+0+0 = 3
    assert table(scores) == [(1, 1, 7), (2, 2, 7), (3, 3, 3)]
    by = {s.entry: s for s in scores}
    assert (by[1].head_to_head, by[2].head_to_head) == (4, 1)


def test_other_points_and_byes() -> None:
    pts = Points.parse("2/1/0")
    scores = compute([1, 2, 3], [W(1, 2), D(2, 3)], pts, byes={3: 1})
    by = {s.entry: s for s in scores}
    assert (by[1].points, by[2].points, by[3].points) == (2, 1, 1)
    assert by[3].byes == 1 and by[3].played == 1  # a bye is no game and scores nothing


def test_games_of_entries_not_listed_are_ignored() -> None:
    # entry 9 was disqualified: its games leave the standings
    scores = compute([1, 2], [W(9, 1), W(1, 2), W(2, 9)])
    assert table(scores) == [(1, 1, 3), (2, 2, 0)]


def test_points_parse() -> None:
    assert Points.parse(" 3/1/0 ") == Points(3, 1, 0)
    assert str(Points(2, 1, 0)) == "2/1/0"
    for bad in ["3-1-0", "3/1", "a/b/c", "1/3/0", "-1/0/0", ""]:
        with pytest.raises(ValueError):
            Points.parse(bad)


def test_duplicate_entries_are_refused() -> None:
    with pytest.raises(ValueError):
        compute([1, 1], [])


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402


@hs.composite
def leagues(draw):  # type: ignore[no-untyped-def]
    n = draw(hs.integers(2, 8))
    games = []
    for a in range(n):
        for b in range(a + 1, n):
            winner = draw(hs.sampled_from([0, 1, None]))
            hp = draw(hs.integers(-5, 30))
            other = hp if winner is None else draw(hs.integers(-5, 30))
            if winner == 0 and other >= hp:
                other = hp - 1
            if winner == 1 and other <= hp:
                other = hp + 1
            games.append(GameResult(a, b, winner, hp, other))
    return list(range(n)), games


@given(leagues(), hs.randoms())
@settings(max_examples=150, deadline=None)
def test_standings_invariants(league, rnd) -> None:  # type: ignore[no-untyped-def]
    entries, games = league
    scores = compute(entries, games)
    # every game hands out 3 points (win/loss) or 2 (draw)
    assert sum(s.points for s in scores) == sum(2 if g.winner is None else 3 for g in games)
    assert sum(s.hp_margin for s in scores) == 0
    ranks = [s.rank for s in scores]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for s in scores:
        assert s.shared == (ranks.count(s.rank) > 1)
        assert s.played == len(entries) - 1 == s.wins + s.draws + s.losses
    # the ranking does not depend on the order the entries are listed in
    shuffled = entries[:]
    rnd.shuffle(shuffled)
    assert {s.entry: s.rank for s in compute(shuffled, games)} == {s.entry: s.rank for s in scores}
