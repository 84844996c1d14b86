"""Engine properties of Margaret Magicalized over random valid sheets and orders (Hypothesis).

Bounded by counts, never by time. The properties of the brief: all-pass orders are the battle
without cards; the mirror (sides and lead swapped) is the same battle; random valid sheets and
orders never raise and always end; and **secrecy**: what A's decider is shown and what it decides
does not depend on B's hidden hand or orders until B plays a card. Plus: without cards the
engine agrees with the Margaret Hundred engine on the swords the two games share.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.base import TERMINATIONS, BattleInputs
from app.rules.hundred.engine import battle as hundred_battle
from app.rules.magicalized.deciders import AllPass, StandingOrders
from app.rules.magicalized.engine import PublicState, WindowView
from app.rules.magicalized.events import mirror
from app.rules.magicalized.generate import random_orders_text, random_swordmaster
from app.rules.magicalized.orders import parse_orders
from app.rules.magicalized.plays import Play, SideOrders
from app.rules.magicalized.ruleset import MargaretMagicalized
from app.rules.margaret.model import Sword, Swordmaster
from tests.rules.magicalized.strategies import side_orders, swordmasters

RS = MargaretMagicalized()
SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _no_sizes(events: tuple[Any, ...]) -> list[Any]:
    """The log without the hand sizes of the turn-end lines (a hand that is held but never
    played is the only difference between all-pass orders and no cards)."""
    return [e[:4] + e[5:] if e[0] == "end" else e for e in events]


NEVER = SideOrders(("燃",) * 3 + ("無",) * 4, ())


@settings(max_examples=150, **SLOW)
@given(swordmasters(), swordmasters(), st.integers(0, 1))
def test_all_pass_orders_are_the_battle_without_cards(
    a: Swordmaster, b: Swordmaster, lead: int
) -> None:
    bare = RS.fight(a, b, BattleInputs(lead=lead))
    # orders whose rules never fire: the decider is asked at every opportunity and passes
    text = (
        "HAND 燃×3、無×4\nORDERS\nON any ACT IF turn > 30 PLAY 燃\n"
        "ON any HIT IF damage > 1000 PLAY 燃\nON enemy CARD 燃 PLAY 無 enemy THIS\nEND\n"
    )
    never = parse_orders(text).orders
    assert never is not None
    o = never.offline()
    asked = RS.fight(a, b, BattleInputs((o, o), lead))
    silent = RS.fight_with(a, b, (NEVER.hand, NEVER.hand), (AllPass(), AllPass()), lead=lead)
    for r in (asked, silent):
        assert r.cards == () and r.windows == bare.windows
        assert (r.winner, r.reason, r.turns, r.final) == (
            bare.winner,
            bare.reason,
            bare.turns,
            bare.final,
        )
        assert _no_sizes(r.events) == _no_sizes(bare.events)


@settings(max_examples=150, **SLOW)
@given(swordmasters(), swordmasters(), side_orders(), side_orders(), st.integers(0, 1))
def test_mirror_sides_and_lead_swapped(
    a: Swordmaster, b: Swordmaster, oa: SideOrders, ob: SideOrders, lead: int
) -> None:
    r = RS.fight(a, b, BattleInputs((oa, ob), lead))
    m = RS.fight(b, a, BattleInputs((ob, oa), 1 - lead))
    assert m.winner == (None if r.winner is None else 1 - r.winner)
    assert (m.reason, m.by, m.turns, m.windows) == (r.reason, r.by, r.turns, r.windows)
    assert m.hands == r.hands[::-1] and m.bans == r.bans[::-1]
    assert [c[:1] + (1 - c[1],) + c[2:] for c in m.cards] == list(r.cards)
    assert [mirror(e) for e in m.events] == list(r.events)


@settings(max_examples=300, **SLOW)
@given(swordmasters(), swordmasters(), side_orders(), side_orders(), st.integers(0, 1))
def test_random_sheets_and_orders_never_raise_and_always_end(
    a: Swordmaster, b: Swordmaster, oa: SideOrders, ob: SideOrders, lead: int
) -> None:
    r = RS.fight(a, b, BattleInputs((oa, ob), lead))
    assert r.reason in TERMINATIONS and r.by in ("death", "overkill", "hp")
    assert (r.winner is None) == (r.reason == "draw")
    assert 0 <= r.turns and r.where in ("settlement", "turn-end")
    assert len(r.hands[0]) + sum(1 for c in r.cards if c.side == 0) <= 7
    for c in r.cards:
        assert c.result in ("resolved", "target gone", "countered", "forbidden")
    data = RS.public_json(r, events=True)
    assert set(data) >= {
        "winner",
        "reason",
        "turns",
        "final",
        "by",
        "cards",
        "hands",
        "bans",
        "lead",
    }
    assert RS.fight(a, b, BattleInputs((oa, ob), lead), log=False) == r


def test_a_seeded_round_of_random_battles_with_orders() -> None:
    rng = random.Random(20240611)
    ended = set()
    for _ in range(300):
        a, b = random_swordmaster(rng), random_swordmaster(rng)
        orders = []
        for _side in (0, 1):
            text = random_orders_text(rng, rng.randint(5, 20), versions=rng.randint(1, 2))
            p = parse_orders(text)
            assert p.ok, p.problems
            orders.append(p.orders.offline() if p.orders else None)
        r = RS.fight(a, b, BattleInputs((orders[0], orders[1]), rng.randint(0, 1)), log=False)
        ended.add(r.reason)
    assert ended <= set(TERMINATIONS) and "death" in ended


# -- secrecy ------------------------------------------------------------------------------------


class _Recorder:
    """Wraps a decider and records everything it is shown and everything it answers."""

    def __init__(self, inner: StandingOrders) -> None:
        self.inner = inner
        self.passive = inner.passive
        self.seen: list[tuple[Any, ...]] = []

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        d = self.inner.decide(side, window, state, hand)
        b_played = any(rec[1] == 1 for rec in state.snapshot()[-1])
        self.seen.append(
            (
                b_played,
                window.snapshot(),
                state.snapshot(),
                hand,
                None if d is None else d.spec.text(),
            )
        )
        return d


@settings(max_examples=200, **SLOW)
@given(
    swordmasters(), swordmasters(), side_orders(), side_orders(), side_orders(), st.integers(0, 1)
)
def test_secrecy_a_sees_and_decides_the_same_whatever_b_hides(
    a: Swordmaster, b: Swordmaster, oa: SideOrders, ob1: SideOrders, ob2: SideOrders, lead: int
) -> None:
    runs = []
    for ob in (ob1, ob2):
        rec = _Recorder(StandingOrders(oa))
        RS.fight_with(a, b, (oa.hand, ob.hand), (rec, StandingOrders(ob)), lead=lead)
        runs.append(rec.seen)
    first, second = runs
    for x, y in zip(first, second, strict=False):
        if x[0] or y[0]:  # B has played a card in one of the battles: from here they may differ
            break
        assert x == y
    else:
        # neither battle saw a card of B while A was asked: A was asked the same number of times
        # up to the end of the shorter one, and if B never played, exactly the same
        if not any(r[0] for r in first + second):
            assert len(first) == len(second)


def test_secrecy_b_holding_cards_that_it_never_plays_changes_nothing_for_a() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        a, b = random_swordmaster(rng), random_swordmaster(rng)
        p = parse_orders(random_orders_text(rng, 15))
        assert p.orders is not None
        oa = p.orders.offline()
        assert oa is not None
        hands = (("無",) * 7, ("燃", "凍", "闇", "心", "払", "星", "虹"))
        lead = rng.randint(0, 1)
        seen = []
        for hb in hands:
            rec = _Recorder(StandingOrders(oa))
            r = RS.fight_with(a, b, (oa.hand, hb), (rec, AllPass()), lead=lead)
            seen.append((rec.seen, r.winner, r.turns, [c for c in r.cards]))
        assert seen[0] == seen[1]
        checked += len(seen[0][0])
    assert checked > 0


# -- the same battles as Margaret Hundred without cards -------------------------------------------

_TO_HUNDRED = {
    "斬": "斬",
    "衝": "衝",
    "毒": "毒",
    "絶": "絶",
    "魔": "魔",
    "死": "デ",
    "熱": "熱",
    "護": "護",
    "速": "速",
    "盾": "楯",
    "命": "命",
    "鏡": "鏡",
    "導": "導",
}


def _hundred(m: Swordmaster) -> Swordmaster:
    return Swordmaster(
        m.name,
        m.hp,
        m.atk,
        m.defense,
        m.spd,
        m.skill,
        tuple(Sword(_TO_HUNDRED[s.code], 0 if s.code == "導" else None) for s in m.swords),
    )


def test_without_cards_the_hundred_engine_agrees_on_the_shared_swords() -> None:
    """List 1 without 重撃剣 (<遅延3> here, <遅延4> there) and 回復剣 (<危殆>): 盾の剣 gives Shield
    as Hundred's 楯の剣, 導来剣 is Hundred's 導来剣0."""
    rng = random.Random(11)
    n = 0
    while n < 1500:
        a, b = random_swordmaster(rng, "A"), random_swordmaster(rng, "B")
        if any(s.code not in _TO_HUNDRED for m in (a, b) for s in m.swords):
            continue
        n += 1
        r = RS.battle(a, b, log=False)
        h = hundred_battle(_hundred(a), _hundred(b), log=False)
        assert (r.winner, r.reason, r.turns, r.final[0].hp, r.final[1].hp) == (
            h.winner,
            h.reason,
            h.turns,
            h.final[0][0].hp,
            h.final[1][0].hp,
        ), (a, b)
