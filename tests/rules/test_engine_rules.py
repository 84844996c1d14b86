"""One test per tricky rule of the battle (rules §2), each derived by hand from the rules page.

Units are built directly from the model so that these tests depend only on the engine. Every unit
is a legal build (10 bonus points, costs within TECH); the derivation of each expected value is in
the comments.
"""

from __future__ import annotations

from app.rules.amaryllis.costs import loadout_cost
from app.rules.amaryllis.engine import battle
from app.rules.amaryllis.events import (
    AttackDone,
    Died,
    PoisonDamage,
    Reason,
    Simultaneous,
    StunSpent,
    SupportDone,
    TurnEnded,
    TurnStarted,
)
from app.rules.amaryllis.model import Action, Unit
from app.rules.amaryllis.model import ActionClass as C


def unit(name: str, hp: int, atk: int, defense: int, spd: int, *actions: Action) -> Unit:
    """A legal unit: TECH is the remainder of the 10 bonus points (rules §1)."""
    tech = 10 - hp // 5 - atk - defense - spd
    u = Unit(name, hp, atk, defense, spd, tech, actions, tuple(dict.fromkeys(actions)))
    assert tech >= 0 and loadout_cost(u) <= tech, f"{name} is not a legal build"
    return u


def turn_events(result, turn: int) -> list[object]:
    """The events between TurnStarted(turn) and its TurnEnded."""
    out: list[object] = []
    inside = False
    for e in result.events:
        if isinstance(e, TurnStarted):
            inside = e.turn == turn
        elif isinstance(e, TurnEnded):
            if inside:
                return out
        elif inside:
            out.append(e)
    return out


def state_after(result, turn: int):
    return next(e.states for e in result.events if isinstance(e, TurnEnded) and e.turn == turn)


def test_simultaneous_attacks_at_equal_spd_both_land_and_both_die() -> None:
    # SPD 1 = SPD 1, AP 1 each: one simultaneous action (§2.3). Both attacks read the state
    # before either lands: A deals 7 - 0 = 7 (B: 5 -> -2), B deals 6 - 0 = 6 (A: 5 -> -1).
    # Both die; no victory check inside the simultaneous action, so the overkill comparison
    # decides: A at -1 beats B at -2 (§2.5).
    a = unit("A", 5, 7, 0, 1, Action("hit", C.DIRECT))
    b = unit("B", 5, 6, 0, 1, Action("hit", C.DIRECT))
    r = battle(a, b)
    [group, *deaths] = turn_events(r, 1)
    assert isinstance(group, Simultaneous)
    attacks = [e for e in group.events if isinstance(e, AttackDone)]
    assert sorted((e.side, e.damage, e.hp, e.tempo) for e in attacks) == [
        (0, 7, -2, 0),
        (1, 6, -1, 0),
    ]
    assert deaths == []  # the deaths are inside the group
    assert [e.side for e in group.events if isinstance(e, Died)] == [0, 1]
    assert (r.winner, r.reason, r.turns) == (0, Reason.OVERKILL, 1)


def test_reflect_against_reflect_sequential() -> None:
    # Turn 1: A (SPD 2) gives itself Reflect, then B (SPD 1) gives itself Reflect.
    # Turn 2: A attacks B: B's Reflect sends it to A, A's Reflect sends it back to B; each
    # Reflect is consumed once (§2.4 step 1). X is A's ATK 3, DEF read on the final target B
    # (0): 3 damage, B 10 -> 7.
    refl = Action("mirror", C.REFLECT, limited=True)  # 4 / 2 = 2
    a = unit("A", 5, 3, 0, 2, refl, Action("hit", C.DIRECT, delay=2))  # cost 2 + 1
    b = unit("B", 10, 0, 0, 1, refl)
    r = battle(a, b)
    [hit, *_] = [e for e in turn_events(r, 2) if isinstance(e, AttackDone)]
    assert (hit.side, hit.target, hit.reflected_by, hit.damage, hit.hp) == (0, 1, (1, 0), 3, 7)
    sa, sb = state_after(r, 2)
    assert (sa.reflect, sb.reflect) == (0, 0)


def test_reflect_against_reflect_simultaneous_never_spends_one_reflect_twice() -> None:
    # Both have one Reflect (turn 1) and attack simultaneously in turn 2 (SPD 1 each).
    # Tempo 0: A->B is reflected by B, B->A is reflected by A; each Reflect is spent once.
    # Tempo 1: each attack now targets its own attacker, who has no Reflect left: A hits
    # itself for 3 - 1 = 2 (A 10 -> 8), B hits itself for 2 - 0 = 2 (B 10 -> 8).
    refl = Action("mirror", C.REFLECT, limited=True)
    a = unit("A", 10, 3, 1, 1, refl, Action("hit", C.DIRECT, delay=2))
    b = unit("B", 10, 2, 0, 1, refl, Action("hit", C.DIRECT, delay=2))
    r = battle(a, b)
    [group] = turn_events(r, 2)
    attacks = sorted(
        (e.side, e.target, e.reflected_by, e.tempo, e.damage, e.hp)
        for e in group.events
        if isinstance(e, AttackDone)
    )
    assert attacks == [(0, 0, (1,), 1, 2, 8), (1, 1, (0,), 1, 2, 8)]


def test_reflected_attack_lands_one_tempo_later_and_reads_the_new_state() -> None:
    # Turn 1: B gives itself Reflect (A's halving is not started: Delay 2).
    # Turn 2, simultaneous (SPD 1 each): A's HP halving targets B, B's piercing targets A.
    # Tempo 0: B's piercing lands: 2 damage, A 20 -> 18; A's halving is reflected by B.
    # Tempo 1: the halving hits A and reads A's HP *after* tempo 0: ceil(18 / 2) = 9, A -> 9.
    # (Read at tempo 0 it would have been ceil(20 / 2) = 10, leaving A at 8.)
    a = unit("A", 20, 0, 0, 1, Action("halve", C.HALVING, delay=2))  # ceil(3 / 2) = 2
    b = unit(
        "B", 5, 2, 0, 1, Action("mirror", C.REFLECT, limited=True), Action("pierce", C.PIERCING)
    )  # 2 + 3 <= TECH 6
    r = battle(a, b)
    [group] = turn_events(r, 2)
    attacks = [e for e in group.events if isinstance(e, AttackDone)]
    assert [(e.side, e.tempo, e.target, e.damage, e.hp) for e in attacks] == [
        (1, 0, 0, 2, 18),
        (0, 1, 0, 9, 9),
    ]
    assert attacks[1].reflected_by == (1,)


def test_guard_on_zero_and_negative_damage() -> None:
    # B (SPD 2) gives itself two Guards in turn 1 before A (SPD 1) acts.
    # A's direct attack: ATK 1 - DEF 1 = 0; Guard triggers on 0 (consumed), ceil(0/2) = 0:
    # a 0-damage hit, no HP change, no Stun despite the Stun enchantment (§2.4 step 5).
    # Turn 2: B has DEF 1 and one Guard left... A's second strike: 0 again, the last Guard goes.
    guard = Action("guard", C.GUARD, limited=True)  # ceil(1/2) = 1
    a = unit("A", 10, 1, 0, 1, Action("zap", C.DIRECT, stun=1))  # 2
    b = unit("B", 10, 0, 1, 2, guard, guard)
    r = battle(a, b)
    [hit] = [e for e in turn_events(r, 1) if isinstance(e, AttackDone)]
    assert (hit.raw, hit.guarded, hit.damage, hit.failed, hit.hp, hit.stun) == (
        0,
        True,
        0,
        False,
        10,
        0,
    )
    assert state_after(r, 1)[1].guard == 1 and state_after(r, 1)[1].stun == 0

    # Negative damage: ATK 1 - DEF 4 = -3; Guard halves rounding up: ceil(-3/2) = -1 < 0, so the
    # attack fails: no HP change (§2.4 steps 3-4). The Guard is consumed all the same.
    c = unit("C", 10, 0, 4, 2, guard)  # 2 + 4 + 2 + TECH 2
    r = battle(a, c)
    [hit] = [e for e in turn_events(r, 1) if isinstance(e, AttackDone)]
    assert (hit.raw, hit.guarded, hit.damage, hit.failed, hit.hp) == (-3, True, -1, True, 10)
    assert state_after(r, 1)[1].guard == 0

    # -1 turned into 0 by Guard: ceil(-1/2) = 0, a 0-damage hit, not a failure, no Stun.
    d = unit("D", 10, 0, 2, 2, guard)
    r = battle(a, d)
    [hit] = [e for e in turn_events(r, 1) if isinstance(e, AttackDone)]
    assert (hit.raw, hit.damage, hit.failed, hit.stun, hit.hp) == (-1, 0, False, 0, 10)


def test_poison_kills_both_units_in_one_status_phase() -> None:
    # Turn 1, simultaneous: A's Limited strike with two Poisons (1×2×2/2 = 2) deals 5 to B
    # (10 -> 5, Poison 2); B's Limited strike with one Poison (1×2/2 = 1) deals 2 to A
    # (5 -> 3, Poison 1). No action remains. Status phases: turn 2: A 2, B 3; turn 3: A 1,
    # B 1; turn 4: A 0, B -1: both die in the same status phase; Guard does not apply to Poison.
    # Overkill: A (0) beats B (-1).
    a = unit("A", 5, 5, 0, 1, Action("fang", C.DIRECT, limited=True, poison=2))
    b = unit("B", 10, 2, 0, 1, Action("sting", C.DIRECT, limited=True, poison=1))
    r = battle(a, b)
    assert [e for e in turn_events(r, 4)] == [
        PoisonDamage(0, 1, 0),
        PoisonDamage(1, 2, -1),
        Died(0, 0, False),
        Died(1, -1, False),
    ]
    assert (r.winner, r.reason, r.turns) == (0, Reason.OVERKILL, 4)


def test_turn0_quick_attack_then_turn1_death_check_without_life() -> None:
    # Turn 0: only Quick actions (§2.1); SPD 1 = 1, so one simultaneous action: A's Quick
    # strike deals 5 (B 5 -> 0), B's deals 1 (A 5 -> 4). No death check in turn 0: B is not
    # dead yet and still acted. Start of turn 1: B at HP 0 dies; A wins in turn 1.
    a = unit("A", 5, 5, 0, 1, Action("quick", C.DIRECT, quick=True))  # 2 <= 3
    b = unit("B", 5, 1, 0, 1, Action("quick", C.DIRECT, quick=True))
    r = battle(a, b)
    assert not any(isinstance(e, Died) for e in turn_events(r, 0))
    assert state_after(r, 0)[1].hp == 0 and not state_after(r, 0)[1].dead
    assert turn_events(r, 1) == [Died(1, 0, False)]
    assert (r.winner, r.reason, r.turns) == (0, Reason.DEATH, 1)


def test_turn0_quick_attack_then_turn1_death_check_with_life() -> None:
    # Turn 0: B (SPD 2) first gives itself Life (Quick, Limited: 2×2/2 = 2), then strikes A
    # (5 -> 4); then A strikes B for 5 (5 -> 0). B stays at 0 through turn 0.
    # Turn 1 start: the death check finds B at 0, B's Life is consumed: HP 1. Then B (SPD 2)
    # strikes A again (4 -> 3) and has nothing else usable; A strikes B: 1 - 5 = -4, dead.
    a = unit("A", 5, 5, 0, 1, Action("quick", C.DIRECT, quick=True))
    b = unit(
        "B",
        5,
        1,
        0,
        2,
        Action("life", C.LIFE, quick=True, limited=True),
        Action("quick", C.DIRECT, quick=True),
    )
    r = battle(a, b)
    t1 = turn_events(r, 1)
    assert t1[0] == Died(1, 0, True)
    assert [(e.side, e.hp) for e in t1 if isinstance(e, AttackDone)] == [(1, 3), (0, -4)]
    assert (r.winner, r.reason, r.turns) == (0, Reason.DEATH, 1)
    assert r.final[1].hp == -4 and r.final[1].life == 0


def test_spd_up_changes_who_acts_next_but_not_the_ap() -> None:
    # Turn 1, SPD 2 = 2: the first action is simultaneous: A strikes (1 - 1 = 0 damage), B's
    # SPD+2 makes B's SPD 4. SPD is compared anew: B (4) > A (2), so B acts alone next (its
    # strike), then A acts (its second strike). B's AP stays 2 (AP is not recomputed mid-turn),
    # so B's third action does not run in turn 1; in turn 2 B gets AP 4.
    strike = Action("strike", C.DIRECT)
    a = unit("A", 10, 1, 1, 2, strike, strike)
    b = unit("B", 10, 1, 1, 2, Action("haste", C.SPD_UP, n=2, limited=True), strike, strike)
    r = battle(a, b)
    t1 = turn_events(r, 1)
    assert isinstance(t1[0], Simultaneous)
    assert {type(e) for e in t1[0].events} == {SupportDone, AttackDone}
    assert [(type(e).__name__, e.side) for e in t1[1:]] == [("AttackDone", 1), ("AttackDone", 0)]
    assert state_after(r, 1)[1].spd == 4
    b_attacks_t2 = [e for e in turn_events(r, 2) if isinstance(e, AttackDone) and e.side == 1]
    assert len(b_attacks_t2) == 2  # both strike copies; AP 4 but only two usable actions


def test_stun_is_consumed_when_no_action_is_usable() -> None:
    # A (SPD 2) strikes with Stun: 3 - 1 = 2 damage (B 20 -> 18) and one Stun on B.
    # B (SPD 1) acts: its only action waits for turn 5 (Delay 5), but the Stun is consumed
    # anyway and the AP is spent (§2.2 step 1).
    a = unit("A", 10, 3, 0, 2, Action("zap", C.DIRECT, stun=1))
    b = unit("B", 20, 1, 1, 1, Action("late", C.DIRECT, delay=5))
    r = battle(a, b)
    t1 = turn_events(r, 1)
    assert [type(e).__name__ for e in t1] == ["AttackDone", "StunSpent"]
    assert t1[1] == StunSpent(1, 0)

    # Equal SPD: the Stun lands in the first simultaneous action, B (nothing usable) still has
    # an AP and spends it on Stun processing in the second simultaneous action.
    a2 = unit("A", 10, 3, 0, 2, Action("zap", C.DIRECT, stun=1))
    b2 = unit("B", 15, 1, 1, 2, Action("late", C.DIRECT, delay=5))
    r = battle(a2, b2)
    first, second = turn_events(r, 1)
    assert isinstance(first, AttackDone) and first.stun == 1
    assert second == StunSpent(1, 0)  # A has nothing usable left: not logged as simultaneous
    assert state_after(r, 1)[1].stun == 0


def test_hp_halving_with_effect_x2_takes_all_hp_and_guard_halves_it() -> None:
    # HP halving <Limited><Delay 2><Effect x2>: cost 3×4/2/2 = 3. In turn 2 X = B's HP 25,
    # X×2 = 50, ceil(50/2) = 25 damage: B 25 -> 0, dead; A wins in turn 2.
    halve = Action("doom", C.HALVING, limited=True, delay=2, effect=2)
    a = unit("A", 10, 0, 0, 1, halve)
    b = unit("B", 25, 0, 0, 1)
    r = battle(a, b)
    [hit] = [e for e in turn_events(r, 2) if isinstance(e, AttackDone)]
    assert (hit.raw, hit.damage, hit.hp) == (25, 25, 0)
    assert (r.winner, r.reason, r.turns) == (0, Reason.DEATH, 2)
    # With a Guard (given in turn 1): ceil(25/2) = 13, B 25 -> 12 and survives.
    c = unit("C", 25, 0, 0, 1, Action("guard", C.GUARD, limited=True))
    r = battle(a, c)
    [hit] = [e for e in turn_events(r, 2) if isinstance(e, AttackDone)]
    assert (hit.raw, hit.guarded, hit.damage, hit.hp) == (25, True, 13, 12)


def test_full_heal_restores_the_initial_hp() -> None:
    # Turn 1: B (SPD 2) pierces A for 3 (10 -> 7). Turn 2: B pierces again first (7 -> 4),
    # then A's full heal (Limited, Delay 2: 2/2/2 = 1) sets A's HP to its initial 10.
    a = unit("A", 10, 0, 0, 1, Action("heal", C.HEAL, limited=True, delay=2))
    b = unit("B", 5, 3, 0, 2, Action("pierce", C.PIERCING))
    r = battle(a, b)
    assert state_after(r, 1)[0].hp == 7
    t2 = turn_events(r, 2)
    assert t2[-1] == SupportDone(0, "heal", "heal", 10, True)
    assert state_after(r, 2)[0].hp == 10


def test_turn20_hp_comparison() -> None:
    # Nobody can hurt anybody: after turn 20 the higher HP wins (15 > 10).
    r = battle(unit("A", 15, 0, 0, 0), unit("B", 10, 0, 0, 0))
    assert (r.winner, r.reason, r.turns) == (0, Reason.HP, 20)
    assert [e.turn for e in r.events if isinstance(e, TurnEnded)] == list(range(21))


def test_draws() -> None:
    # Equal HP after turn 20: a draw.
    r = battle(unit("A", 10, 0, 0, 0), unit("B", 10, 0, 0, 0))
    assert (r.winner, r.reason, r.turns) == (None, Reason.DRAW, 20)
    # Both die with equal HP in one simultaneous action: a draw too (§2.5).
    a = unit("A", 5, 5, 0, 1, Action("hit", C.DIRECT))
    r = battle(a, a)
    assert (r.winner, r.reason, r.turns) == (None, Reason.DRAW, 1)
    assert r.final[0].dead and r.final[1].dead and r.final[0].hp == r.final[1].hp == 0
