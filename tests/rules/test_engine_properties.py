"""Property tests of the engine's invariants (rules §2.6) over generated valid units."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings

from app.rules.amaryllis.engine import LAST_TURN, battle
from app.rules.amaryllis.events import (
    AttackDone,
    Died,
    PoisonDamage,
    Simultaneous,
    StunSpent,
    SupportDone,
    TurnEnded,
)
from tests.rules.strategies import valid_units

SWAP = {0: 1, 1: 0}


def mirror(event: object) -> object:
    """The event as seen from the swapped battle (side 0 <-> side 1)."""
    if isinstance(event, (PoisonDamage, StunSpent, SupportDone, Died)):
        return replace(event, side=SWAP[event.side])
    if isinstance(event, AttackDone):
        return replace(
            event,
            side=SWAP[event.side],
            target=SWAP[event.target],
            reflected_by=tuple(SWAP[s] for s in event.reflected_by),
        )
    if isinstance(event, Simultaneous):
        return Simultaneous(tuple(mirror(e) for e in event.events))
    if isinstance(event, TurnEnded):
        return TurnEnded(event.turn, (event.states[1], event.states[0]))
    return event


def canonical(events: tuple[object, ...]) -> list[object]:
    """Events with everything that happens to both units at once as an unordered multiset: the
    halves of a simultaneous action, and the two units' entries of one status phase (Poison) or
    one death check (events.py lists them side 0 first)."""
    out: list[object] = []
    for e in events:
        if isinstance(e, Simultaneous):
            out.append(Counter(e.events))
        elif (
            isinstance(e, (PoisonDamage, Died))
            and out
            and isinstance(out[-1], Counter)
            and type(next(iter(out[-1]))) is type(e)
            and len(out[-1]) == 1
        ):
            out[-1][e] += 1
        elif isinstance(e, (PoisonDamage, Died)):
            out.append(Counter([e]))
        else:
            out.append(e)
    return out


@settings(max_examples=300, deadline=None)
@given(valid_units(), valid_units())
def test_same_pair_same_log(a, b) -> None:
    first, second = battle(a, b), battle(a, b)
    assert first == second and first.events == second.events


@settings(max_examples=300, deadline=None)
@given(valid_units(), valid_units())
def test_battle_is_symmetric(a, b) -> None:
    ab, ba = battle(a, b), battle(b, a)
    assert ab.reason == ba.reason and ab.turns == ba.turns
    assert ab.winner == (None if ba.winner is None else SWAP[ba.winner])
    assert ab.final == (ba.final[1], ba.final[0])
    assert canonical(ab.events) == canonical(tuple(mirror(e) for e in ba.events))


@settings(max_examples=500, deadline=None)
@given(valid_units(), valid_units())
def test_never_raises_and_ends_by_turn_20(a, b) -> None:
    r = battle(a, b)
    assert 0 <= r.turns <= LAST_TURN
    dead = [s.dead for s in r.final]
    if r.turns < LAST_TURN:
        assert any(dead), "a battle ending before turn 20 ends with a death"
    if r.winner is not None:
        w, lo = r.final[r.winner], r.final[1 - r.winner]
        assert (not w.dead and lo.dead) or w.hp > lo.hp
    else:
        assert r.final[0].hp == r.final[1].hp


@settings(max_examples=300, deadline=None)
@given(valid_units(), valid_units())
def test_log_does_not_change_the_result(a, b) -> None:
    logged, fast = battle(a, b), battle(a, b, log=False)
    assert (logged.winner, logged.reason, logged.turns, logged.final) == (
        fast.winner,
        fast.reason,
        fast.turns,
        fast.final,
    )
    assert fast.events == ()
    # the last state line of the log is the final state
    assert [e for e in logged.events if isinstance(e, TurnEnded)][-1].states == logged.final
