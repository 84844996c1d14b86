"""On the 15 basic swords with one swordmaster a side, the Hundred engine gives the same battle as
base Margaret on the Amaryllis engine (``rules/margaret-hundred.md`` §12.14, ``rules/margaret.md``
§2.2 and M6): same winner, reason, final HP and per-turn states.

The ``margaret`` package is not on this branch yet, so the Amaryllis units are built here from the
table of ``rules/margaret.md`` §2.2 (each basic sword is one Amaryllis action of cost 1). The only
mapping is M10: Amaryllis runs the death check that follows turn 0 at the start of turn 1; the
Hundred page runs it after turn 0 and reports it there.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.amaryllis.engine import battle as amaryllis_battle
from app.rules.amaryllis.events import Died, TurnEnded, TurnStarted
from app.rules.amaryllis.model import Action, ActionClass, Unit
from app.rules.hundred.engine import battle as hundred_battle
from app.rules.hundred.model import Sword, Swordmaster, swordmaster
from app.rules.hundred.swords import BASIC
from tests.rules.strategies import DrawRng

C = ActionClass


def action(s: Sword) -> Action:
    """``rules/margaret.md`` §2.2: the Amaryllis action of a basic sword (named by its code)."""
    name = s.code if s.n is None else f"{s.code}{s.n}"
    table = {
        "斬": dict(cls=C.DIRECT),
        "高": dict(cls=C.DIRECT, quick=True, limited=True),
        "重": dict(cls=C.DIRECT, delay=4, effect=2),
        "衝": dict(cls=C.DIRECT, delay=2, stun=1),
        "毒": dict(cls=C.DIRECT, limited=True, poison=1),
        "絶": dict(cls=C.PIERCING, delay=3),
        "魔": dict(cls=C.HALVING, limited=True, delay=2),
        "デ": dict(cls=C.HALVING, effect=2, delay=6, limited=True),
        "熱": dict(cls=C.ATK_UP, n=1),
        "護": dict(cls=C.DEF_UP, n=1),
        "速": dict(cls=C.SPD_UP, n=1),
        "盾": dict(cls=C.GUARD),
        "鏡": dict(cls=C.REFLECT, delay=2, limited=True),
        "命": dict(cls=C.LIFE, limited=True),
        # 回復剣1: no delay (usable from turn 1); N ≥ 2: <遅延起動N>
        "回": dict(cls=C.HEAL, limited=True, delay=s.n if s.n and s.n >= 2 else None),
    }
    return Action(name, **table[s.code])  # type: ignore[arg-type]


def unit(m: Swordmaster) -> Unit:
    acts = tuple(action(s) for s in m.swords)
    return Unit(m.name, m.hp, m.atk, m.defense, m.spd, len(acts), acts, acts)


def base_swordmaster(rng: Any, spd: int | None = None) -> Swordmaster:
    """A legal base-Margaret swordmaster: 10 points over HP/5, ATK, DEF, SPD and the swords."""
    points = [0, 0, 0, 0]
    for _ in range(rng.randint(0, 10)):
        points[rng.randint(0, 3)] += 1
    if spd is not None:
        points[3] = spd
    swords = []
    for _ in range(rng.randint(0, max(0, 10 - sum(points)))):
        code = rng.choice(BASIC)
        swords.append(Sword(code, rng.randint(1, 6) if code == "回" else None))
    return swordmaster("A", points[0] * 5, points[1], points[2], points[3], tuple(swords))


def _amaryllis_states(events: tuple[Any, ...]) -> tuple[dict[int, Any], bool]:
    """Per-turn states of an Amaryllis log, with the death check at the start of turn 1 moved
    into turn 0 (M10); and whether the battle ended at that death check."""
    out: dict[int, Any] = {}
    for e in events:
        if isinstance(e, TurnEnded):
            out[e.turn] = [
                [
                    s.hp,
                    s.atk,
                    s.defense,
                    s.spd,
                    tuple(s.actions),
                    s.guard,
                    s.reflect,
                    s.life,
                    s.stun,
                    s.poison,
                    s.dead,
                ]
                for s in e.states
            ]
    ended_at_check = False
    if 0 in out:
        i = events.index(TurnStarted(1)) if TurnStarted(1) in events else len(events)
        j = i + 1
        while j < len(events) and isinstance(events[j], Died):
            s = out[0][events[j].side]
            if events[j].revived:
                s[0], s[7] = 1, s[7] - 1
            else:
                s[10] = True
            j += 1
        ended_at_check = (
            j < len(events) and isinstance(events[j], TurnEnded) and j == len(events) - 1
        )
    return {t: tuple(tuple(s) for s in v) for t, v in out.items()}, ended_at_check


def _hundred_states(events: tuple[Any, ...]) -> dict[int, Any]:
    out = {}
    for e in events:
        if e[0] == "end":
            sides = []
            for party in e[2]:
                s = party[0]
                st_ = dict(s.statuses)
                sides.append(
                    (
                        s.hp,
                        s.atk,
                        s.df,
                        s.spd,
                        s.swords,
                        st_.get("guard", 0),
                        st_.get("reflect", 0),
                        st_.get("life", 0),
                        st_.get("stun", 0),
                        st_.get("poison", 0),
                        s.dead or s.exited,
                    )
                )
            out[e[1]] = tuple(sides)
    return out


def check_same_battle(a: Swordmaster, b: Swordmaster) -> None:
    ra = amaryllis_battle(unit(a), unit(b))
    rh = hundred_battle(a, b)
    states, at_check = _amaryllis_states(ra.events)
    turns = ra.turns
    if at_check:
        assert turns == 1
        turns = 0
        del states[1]
    assert (rh.winner, rh.reason, rh.turns) == (ra.winner, ra.reason.value, turns)
    assert (rh.final[0][0].hp, rh.final[1][0].hp) == (ra.final[0].hp, ra.final[1].hp)
    assert _hundred_states(rh.events) == states


@st.composite
def base_pairs(draw: Any) -> tuple[Swordmaster, Swordmaster]:
    rng = DrawRng(draw)
    a = base_swordmaster(rng)
    b = base_swordmaster(rng, a.spd if draw(st.booleans()) else None)
    return a, b


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base_pairs())
def test_basic_swords_battle_as_on_the_amaryllis_engine(pair):
    check_same_battle(*pair)


def test_basic_swords_seeded_pairs_half_with_equal_spd():
    rng = random.Random(15)
    for i in range(3_000):
        a = base_swordmaster(rng)
        b = base_swordmaster(rng, a.spd if i % 2 else None)
        check_same_battle(a, b)


def test_the_printed_base_swordmasters_battle_alike():
    # rules/margaret.md §6: the nine legal base swordmasters of the seed, plus 日路, round robin.
    from app.rules.hundred.model import parse_spec

    specs = [
        "5/0/0/3/速護護衝衝デ",
        "15/0/4/1/斬デ",
        "5/0/0/4/速衝熱衝熱",
        "5/3/0/3/デデデ",
        "5/3/0/2/高高毒毒",
        "40/0/0/1/デ",
        "15/0/1/2/速熱衝絶",
        "5/5/0/2/高高",
        "10/0/0/3/速熱熱熱重",
        "5/0/0/3/速速魔熱衝絶",
    ]
    for x in specs:
        for y in specs:
            check_same_battle(parse_spec(x), parse_spec(y))


def test_a_battle_decided_by_the_death_check_after_turn_0_maps_by_m10():
    from app.rules.hundred.model import parse_spec

    a, b = parse_spec("10/5/0/1/高"), parse_spec("5/0/0/0/")
    states, at_check = _amaryllis_states(amaryllis_battle(unit(a), unit(b)).events)
    assert at_check  # Amaryllis: decided at the start of turn 1
    check_same_battle(a, b)  # Hundred: turns 0
    a = parse_spec("5/0/0/1/命")  # the Life fires at that death check in both engines
    check_same_battle(parse_spec("10/5/0/1/高"), a)
