"""The hill: never more than ``size`` members, every push-off reported, scores over the current
members only, ages, and the same state whether kept or replayed from the history."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import NotYet, Pairing, Result, Round, RoundPairings
from app.formats.hill import Hill, HillState

outcomes = st.sampled_from([Result(0, 2), Result(1, -1), Result(None, 0), Result(0, 7)])


def _recount(state: HillState, hill: Hill) -> dict[int, tuple[Fraction, int, int]]:
    """Points, wins and margin of every member from the stored results, from scratch."""
    pts = hill.points
    out = {m: (Fraction(0), 0, 0) for m in state.members}
    for (a, b), r in state.results.items():
        for me, res in ((a, r), (b, r.flipped())):
            p, w, mg = out[me]
            gain = pts.draw if res.winner is None else (pts.win if res.winner == 0 else pts.loss)
            out[me] = (p + gain, w + (res.winner == 0), mg + res.margin)
    return out


@given(
    size=st.integers(2, 6),
    data=st.data(),
    steps=st.lists(
        st.tuples(st.sampled_from(["new", "replace", "leave"]), st.integers(0, 100)),
        min_size=1,
        max_size=25,
    ),
)
@settings(max_examples=80, deadline=None)
def test_the_hill_never_holds_more_than_its_size_and_reports_every_push_off(
    size: int, data: st.DataObject, steps: list[tuple[str, int]]
) -> None:
    hill = Hill({"size": size})
    state = HillState()
    next_id = 1
    for kind, pick in steps:
        before = set(state.members)
        if kind == "leave" and state.members:
            gone = state.members[pick % len(state.members)]
            state = hill.leave(state, gone)
            assert set(state.members) == before - {gone}
            assert state.log[-1].kind == "leave" and state.log[-1].entry == gone
            continue
        if kind == "replace" and state.members:
            who = state.members[pick % len(state.members)]
        else:
            who, next_id = next_id, next_id + 1
        boards = hill.challenge_pairings(state, who)
        assert all(p.a == who for p in boards)
        assert {p.b for p in boards if p.b is not None} == before - {who}
        results = {p.b: data.draw(outcomes) for p in boards if p.b is not None}
        up = hill.challenge(state, who, results)
        after = set(up.state.members)
        assert len(after) <= size
        pushed = {p.entry for p in up.pushed_off}
        assert after == (before | {who}) - pushed  # nobody leaves unannounced
        assert len(pushed) == max(0, len(before | {who}) - size)
        assert up.replaced == (who in before)
        assert all(p.place > size for p in up.pushed_off)
        for m in (after & before) - {who}:
            assert up.state.ages[m] == state.ages[m] + 1
        if who in after:
            assert up.state.ages[who] == 0
        assert _recount(up.state, hill) == {
            m: (t.points, t.wins, t.margin) for m, t in up.state.totals.items()
        }
        assert [r.entry for r in up.table.rows] == list(up.state.members)
        assert up.state.log[-1].pushed_off == tuple(p.entry for p in up.pushed_off)
        state = up.state
    assert HillState.from_json(state.to_json(), hill.points).to_json() == state.to_json()


@given(size=st.integers(2, 5), n=st.integers(1, 14), data=st.data())
@settings(max_examples=50, deadline=None)
def test_the_state_replayed_from_the_history_equals_the_kept_one(
    size: int, n: int, data: st.DataObject
) -> None:
    hill = Hill({"size": size})
    entries = list(range(1, n + 1))
    state = HillState()
    history: list[Round] = []
    while True:
        answer = hill.next_round(entries, history)
        if not isinstance(answer, RoundPairings):
            assert answer == NotYet("waiting-for-entries", len(history))
            break
        who = answer.pairings[0].a
        assert answer.pairings == hill.challenge_pairings(state, who)
        res = {p.board: data.draw(outcomes) for p in answer.pairings if p.b is not None}
        history.append(answer.to_round(res))
        state = hill.challenge(
            state, who, {p.b: res[p.board] for p in answer.pairings if p.b is not None}
        ).state
    assert hill.replay(entries, history).to_json() == state.to_json()
    assert [r.entry for r in hill.standings(entries, history).rows] == list(state.members)
    # a member disqualified after the last challenge leaves the replayed hill too
    gone = state.members[0]
    assert hill.replay(entries, history, inactive=[gone]).members == hill.leave(state, gone).members


def test_a_small_hill_by_hand() -> None:
    hill = Hill({"size": 2})
    s0 = HillState()
    up = hill.challenge(s0, 1, {})
    assert up.place == 1 and up.pushed_off == () and up.state.members == (1,)
    up = hill.challenge(up.state, 2, {1: Result(0, 3)})  # 2 beats 1
    assert up.state.members == (2, 1) and up.state.ages == {1: 1, 2: 0}
    up = hill.challenge(up.state, 3, {2: Result(0, 1), 1: Result(None, 0)})
    # 3: win over 2 + draw with 1 = 4; 2: 3 (beat 1) + 0 = 3; 1: 0 + 1 = 1 → 1 falls
    assert [p.entry for p in up.pushed_off] == [1] and up.pushed_off[0].place == 3
    assert up.state.members == (3, 2)
    # with 1 gone, only 3 v 2 counts: 3 has 3 points, 2 has 0
    assert [(r.entry, r.points) for r in up.table.rows] == [(3, 3), (2, 0)]
    assert up.state.ages == {2: 1, 3: 0}
    with pytest.raises(ValueError, match="missing \\[2\\]"):
        hill.challenge(up.state, 4, {3: Result(0)})


def test_a_replacement_drops_the_old_results_first() -> None:
    hill = Hill({"size": 3})
    st0 = hill.challenge(HillState(), 1, {}).state
    st1 = hill.challenge(st0, 2, {1: Result(0, 5)}).state
    up = hill.challenge(st1, 2, {1: Result(1, -5)})  # 2 replaced its unit and lost
    assert up.replaced and up.state.members == (1, 2)
    assert up.state.totals[2].points == 0 and up.state.totals[1].points == 3
    assert len(up.state.results) == 1


def test_hill_history_rounds_must_be_challenges() -> None:
    hill = Hill({"size": 3})
    bad = [Round.of(1, [Pairing(1, 1, None)]), Round.of(2, [Pairing(1, 2, 3)], {1: Result(0)})]
    with pytest.raises(ValueError, match="does not fit the hill"):
        hill.replay([1, 2, 3], bad)
