"""Hand-derived tests of the 20 statuses (§7): one scenario each for the rule that makes it
distinct (stacking, consumption, timing, priority within its category).

The sword tests already show each status being given; these pin its firing rules.
"""

from __future__ import annotations

from tests.rules.hundred.helpers import after, fight, flat, kinds, st, statuses, turn_events


def test_stun_costs_one_action_and_the_remaining_ap_act():  # H14
    # A 30/1/0/3/熱熱熱 vs B 30/1/0/4/衝 (B first, SPD 4). Turn 1: A: three 加熱剣 → ATK 4.
    # Turn 2: B's 衝撃剣: 1 → A 29 + Stun; B skips 3 times. A: its first action is a stunned skip
    # (one Stun consumed), then two 熱 → ATK 6.
    r = fight("30/1/0/3/熱熱熱", "30/1/0/4/衝")
    assert st(r, 1, 0).atk == 4
    s = st(r, 2, 0)
    assert (s.hp, s.atk, statuses(s)) == (29, 6, {})
    assert ("skip", 0, 0, "stun") in flat(turn_events(r, 2))


def test_sleep_is_consumed_in_the_ap_phase():  # H13
    # 臥竜剣 in turn 0 gives Sleep; the AP phase of turn 1 consumes it: AP 0, so 加熱剣 waits.
    r = fight("10/0/0/1/臥熱", "50/0/0/0/")
    assert ("sleep", 0, 0, 0) in kinds(r, "sleep")
    assert st(r, 1, 0).atk == 0 and st(r, 2, 0).atk == 1


def test_venom_gives_poison_before_poison_fires():  # H15
    # 猛毒剣 in turn 2: turn 3's status phase: Venom → Poison 1, which fires at once: 29 → 28.
    r = fight("10/1/0/1/猛", "30/0/0/0/")
    phase = [e for e in turn_events(r, 3) if e[0] == "phase"][0]
    assert [e[0] for e in phase[1][1]] == ["venom", "poison"]
    assert st(r, 3, 1).hp == 28


def test_poison_deaths_are_simultaneous_and_go_to_the_overkill_judge():  # §8.4
    # A and B 5/1/0/1/毒: turn 1: 1 each → 4, 4, each poisoned; status phases of turns 2-5: 3, 2,
    # 1, 0: both die in the same status phase; the settlement finds both parties empty: overkill
    # judge, 0 against 0: a draw, in turn 5.
    r = fight("5/1/0/1/毒", "5/1/0/1/毒")
    assert (r.winner, r.reason, r.by, r.turns, r.totals) == (None, "draw", "overkill", 5, (0, 0))


def test_abort_fires_before_eternity_and_is_consumed():  # H50
    # A 10/0/0/3/遅.1精 vs B 30/1/0/2/堕. 遅延剣.1 holds 精霊剣 in turns 0 and 1, then expires.
    # Turn 2: A (SPD 3) builds a ウィスプ W at its front (AP 1); B (SPD 2): 堕胎剣 on the front W:
    # 1 → W 4 + Abort; then W (SPD 1) tries 精霊剣: it was built this turn (永絶) but the Abort is
    # checked first and consumed: "abort".
    r = fight("10/0/0/3/遅.1精", "30/1/0/2/堕")
    w = st(r, 2, 0, 0)
    assert (w.name, w.hp, statuses(w)) == ("ウィスプ", 4, {})
    assert ("nobuild", 0, 1, "abort") in kinds(r, "nobuild")


def test_reflect_fires_before_dodge_one_per_arrival():  # §7 priority, H22
    # B holds Reflect and Dodge (鏡 turn 2, 避 turn 1); in turn 2 A's 斬 arrives: the Reflect
    # fires (Dodge waits): it goes back to A: 3 → A 7. Turn 3: the Dodge cancels the next one.
    r = fight("10/3/0/1/斬", "30/0/0/2/避鏡")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (10, 30)  # turn 1: dodged
    assert (st(r, 2, 0).hp, st(r, 2, 1).hp) == (7, 30)  # turn 2: reflected
    assert statuses(st(r, 2, 1)) == {}


def test_dodge_cancels_every_hit_of_an_attack():  # H22
    # B's 回避剣 in turn 1; A's 連撃剣 (2 hits, turn 3) meets the Dodge: both hits vanish.
    r = fight("10/3/0/1/連", "30/0/0/1/避")
    assert st(r, 3, 1).hp == 30
    assert [e[0] for e in flat(turn_events(r, 3)) if e[0] in ("hit", "dodge")] == ["dodge"]
    assert st(r, 4, 1).hp == 24


def test_protection_priority_barrier_cushion_flip_shield_guard():  # §7
    # B gives itself Guard, Shield, Flip, Cushion, Barrier in turns 0-... (SPD 5, all from turn
    # 1): after its 5 supports in turn 1, A's 斬 (SPD 1, after B) meets the Barrier first: 0.
    # Turn 2: B has 4 of each but Barrier again; the others wait. One fires per hit (§8.8).
    r = fight("10/5/0/1/斬", "30/0/2/5/盾楯蠕膜壁")
    hit = kinds(r, "hit")[0]
    assert hit[6] == "barrier" and hit[7] == 0
    assert statuses(st(r, 1, 1)) == {"cushion": 1, "flip": 1, "shield": 1, "guard": 1}


def test_each_protection_status_rounds_as_stated():  # §7 examples
    # Guard: 5 → 3 and −3 → −1; Shield: 5 → 2, 1 → 0; Flip: −3 at DEF ≥ 1; Cushion → 1.
    cases = [
        ("盾", 5, 0, 3),
        ("盾", 2, 5, -1),
        ("楯", 5, 0, 2),
        ("楯", 1, 0, 0),
        ("蠕", 5, 1, 1),
        ("膜", 9, 0, 1),
        ("壁", 9, 0, 0),
    ]
    for code, atk, df, expected in cases:
        r = fight(f"30/0/{df}/1/{code}", f"30/{atk}/0/1/斬")
        hit = kinds(r, "hit")[0]
        assert hit[7] == expected, (code, atk, df, hit)


def test_soul_fires_before_life_and_a_failing_soul_keeps_its_holder_dead():  # §7, H31
    # A 0/0/0/2/導0命命魂 vs B 30/5/0/1/絶. Turn 0: 導0 brings the first 命 to turn 0: Life.
    # A is at HP 0 but nobody dies in the first turn; at the death check after it, A dies and the
    # Life fires: HP 1 (max HP stays 0). Turn 1: the second 命: Life. Turn 3: 魂 (Soul), then B's
    # 絶対剣: 5 → A −4: A dies; Soul fires first and assigns HP := max HP = 0 < 1: it fails, A
    # stays dead, and the Life held does not fire for that death.
    r = fight("0/0/0/2/導0命命魂", "30/5/0/1/絶")
    assert (st(r, 0, 0).hp, st(r, 0, 0).max_hp) == (1, 0)
    assert [e[3] for e in kinds(r, "revive")] == ["life", "soul-failed"]
    assert (r.winner, r.turns, r.final[0][0].hp) == (1, 3, 0)
    assert r.final[0][0].statuses == (("life", 1),)


def test_soul_and_life_given_to_a_dead_swordmaster_fire_at_once():  # §7, §8.3
    # With the 100 swords this cannot happen in a battle: Soul and Life come only from supports,
    # supports run before attacks in a procedure (§8.10) and the dead exit at every settlement.
    # The rule is still implemented; this drives the engine's support step directly on a dead
    # swordmaster (outside the first turn): Soul → HP := max HP 10; Life → HP 1.
    from app.rules.hundred.engine import PROGS, _Battle
    from app.rules.hundred.options import Options
    from tests.rules.hundred.helpers import sm

    for code, hp in (("魂", 10), ("命", 1)):
        b = _Battle(sm("10/0/0/1/", "A"), sm("10/0/0/1/", "B"), True, Options())
        b.first = False
        x = b.P[0].members[0]
        x.hp, x.dead = -3, True
        b._support(x, PROGS[code], None, False, b.log)
        assert (x.hp, x.dead, x.soul, x.life) == (hp, False, 0, 0), code


def test_push_counts_while_exited_in_the_overkill_judge():  # H57
    # A 5/5/0/1/斬押 vs B 5/5/0/1/斬: turn 0: 斬 is not active, 押分剣 (<高速>) gives Push. Turn
    # 1: both 斬: 5 → both at 0, both die and exit: overkill 0 against 0, but A's exited
    # swordmaster holds 1 Push: A wins by push, judge overkill.
    r = fight("5/5/0/1/斬押", "5/5/0/1/斬")
    assert (r.winner, r.reason, r.by, r.turns, r.push) == (0, "push", "overkill", 1, (1, 0))


def test_heavens_door_needs_the_sword_in_the_registered_spec():  # H58
    # A copies B's 疎通剣 with 複製剣 and gives itself Heaven's Door, then wins; A's registered
    # spec has no 疎通剣, so there is no rewrite request. Turn 1 (SPD 3): 複 → [斬, 疎]; 斬 → B 7;
    # 疎 → Heaven's Door. B 10 → 7, 4, 1, −2: A wins in turn 4.
    r = fight("10/3/0/3/複斬", "10/0/0/0/疎")
    assert statuses(st(r, 1, 0)) == {"hdoor": 1}
    assert (r.winner, r.turns, r.heavens_door) == (0, 4, None)


def test_quick_minus_slow_decides_before_spd():  # §8.5
    # A with Quick and Slow (先 and 後 in turn 0): Quick − Slow = 0, so SPD decides again: B
    # (SPD 3) acts first in turn 1.
    r = fight("10/2/0/2/先後斬", "10/2/0/3/斬")
    first = [e for e in flat(turn_events(r, 1)) if e[0] == "act"][0]
    assert first[1] == 1


def test_drive_fires_on_the_first_hit_of_each_member_of_a_whole_attack():  # H22
    # A 10/3/0/3/駆駆全 vs B 30/0/0/1/泡. Turn 1: two Drives (全 not active). Turn 2: two more (4),
    # then 全体剣 on B's party [泡2, 泡1, B]: 3 + 3 = 6 (ATK → 2), 2 + 3 = 5 (ATK → 1), 1 + 3 = 4
    # (ATK → 0): 泡2 −1, 泡1 0, B 26; one Drive left. The settlement after A's action: both
    # bubbles exit, front first; then B builds 泡3.
    r = fight("10/3/0/3/駆駆全", "30/0/0/1/泡")
    hits = [e for e in flat(turn_events(r, 2)) if e[0] == "hit"]
    assert [(e[4], e[5], e[7]) for e in hits] == [(3, 2, 6), (2, 2, 5), (1, 2, 4)]
    a, b = after(r, 2)
    assert (a[0].atk, statuses(a[0])) == (0, {"drive": 1})
    assert [(x.name, x.hp, x.exited) for x in b] == [
        ("バブリア", 5, False),
        ("B", 26, False),
        ("バブリア", -1, True),
        ("バブリア", 0, True),
    ]


def test_taunt_picks_the_front_most_taunter():  # H20
    # B 30/0/0/3/誘残泡 vs A 10/3/0/1/斬. Turn 0: B: 誘 is not active; 残響剣 builds Bc (B's
    # registered spec, serial 1) at the front, with AP 3. Bc and B (SPD 3) then act together:
    # Bc's 残響剣 fails (永絶, H49), B's 泡溢剣 builds a bubble (serial 2); next Bc's 泡溢剣 fails
    # too (永絶) and B skips. Party: [泡2, Bc, B]. Turn 1: Bc and B both take Taunt first (and
    # build); A's 斬 (SPD 1, last) picks the front-most taunter, Bc, not a bubble at the front.
    r = fight("10/3/0/1/斬", "30/0/0/3/誘残泡")
    assert [x.sm for x in after(r, 0)[1]] == [2, 1, 0]
    hits = [e for e in flat(turn_events(r, 1)) if e[0] == "hit"]
    assert [(e[1], e[2], e[-1]) for e in hits] == [(1, 1, 27)]
    assert ("taunt", 1, 1) in kinds(r, "taunt")


def test_taunt_does_not_affect_whole_attacks():  # H20
    # B 30/0/0/2/誘泡 (SPD 2, before A) builds a bubble in turns 0, 1 and 2 and taunts in turn 1;
    # A's 全体剣 (turn 2) still hits front to back: the three bubbles, then B.
    r = fight("10/3/0/1/全", "30/0/0/2/誘泡")
    hits = [e for e in flat(turn_events(r, 2)) if e[0] == "hit"]
    assert [(e[1], e[2]) for e in hits] == [(1, 3), (1, 2), (1, 1), (1, 0)]
    assert kinds(r, "taunt") == []
