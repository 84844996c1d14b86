"""Hand-derived tests of the rare paths of ``rules/margaret-hundred.md`` (§12.14 and the rulings):
simultaneous action, tempos, judges, builds in the first turn, 星霜剣, the procedure limit, MP.
"""

from __future__ import annotations

from tests.rules.hundred.helpers import after, fight, flat, kinds, st, statuses, turn_events


def test_equal_spd_actions_are_super_simultaneous():  # §8.10
    # A 10/3/0/1/斬 vs B 10/3/0/1/斬: each turn both hits are computed from the same state: 7, 4,
    # 1, then both −2 in turn 4: both parties empty: the overkill judge: 2 against 2: a draw.
    r = fight("10/3/0/1/斬", "10/3/0/1/斬")
    assert [(st(r, t, 0).hp, st(r, t, 1).hp) for t in (1, 2, 3)] == [(7, 7), (4, 4), (1, 1)]
    assert (r.winner, r.reason, r.by, r.turns, r.totals) == (None, "draw", "overkill", 4, (2, 2))
    group = [e for e in turn_events(r, 1) if e[0] == "simul"][0]
    assert [p[0] for p in group[1]] == ["group"]  # one super-simultaneous attack group


def test_reflect_against_reflect_never_spends_one_reflect_twice():  # §8.10, rules/amaryllis.md
    # A 10/3/0/2/鏡斬 vs B 10/2/0/2/鏡斬. Turn 1 (鏡 not active): A 3 → B 7, B 2 → A 8 (one
    # procedure), then both skip. Turn 2: both Reflect (support group), then both 斬 (attack
    # group): tempo 0: A's attack meets B's Reflect and goes back to A; B's meets A's Reflect
    # and goes back to B; tempo 1: they arrive at their executors, who have no Reflect left:
    # A's 3 − 0 → A 5, B's 2 − 0 → B 5.
    r = fight("10/3/0/2/鏡斬", "10/2/0/2/鏡斬")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (8, 7)
    assert (st(r, 2, 0).hp, st(r, 2, 1).hp) == (5, 5)
    hits = [e for e in flat(turn_events(r, 2)) if e[0] == "hit"]
    assert sorted((e[1], e[3], e[-1]) for e in hits) == [(0, 1, 5), (1, 1, 5)]  # tempo 1


def test_a_reflected_member_of_a_whole_attack_goes_back_alone():  # H22
    # B 30/0/0/2/鏡泡 (SPD 2, first): bubbles in turns 0, 1, 2 and Reflect in turn 2. A's 全体剣
    # in turn 2: the three bubbles take 3 each; B reflects its member's attack back to A as a
    # single attack: 3 − 0 → A 7 (A's party is not hit as a whole).
    r = fight("10/3/0/1/全", "30/0/0/2/鏡泡")
    a, b = after(r, 2)
    assert [x.hp for x in b] == [2, 2, 2, 30] and a[0].hp == 7


def test_overkill_judge_smaller_overkill_wins():  # H55
    # A 5/6/0/1/斬 vs B 5/5/0/1/斬: turn 1: A → B −1, B → A 0: both die and exit; overkill A 0, B
    # 1: A wins by the overkill judge in turn 1.
    r = fight("5/6/0/1/斬", "5/5/0/1/斬")
    assert (r.winner, r.reason, r.by, r.turns, r.totals) == (0, "overkill", "overkill", 1, (0, 1))


def test_the_death_check_after_turn_0_reports_turn_0():  # M10, §8.12
    # 高速剣 in turn 0: B 5 → 0, not dead inside the first turn; the death check after it kills B.
    r = fight("10/5/0/1/高", "5/0/0/0/")
    assert (r.winner, r.turns, r.where) == (0, 0, "settlement")
    assert [e[0] for e in r.events[-3:]] == ["check", "settle", "end"]


def test_a_build_with_hp_0_lives_through_turn_0_and_dies_at_once_later():  # §6, H49
    # B 0/0/0/2/導0命: turn 0: 導0 brings 命 to turn 0: Life; the death check kills B and the Life
    # revives it at HP 1. A 10/0/0/1/反 builds B's registered spec (HP 0) in turn 0: not dead in
    # the first turn; it too takes Life and is revived at the death check. A 10/0/0/2/遅.0反 holds
    # its 反響剣 in turn 0 and builds in turn 1: the copy (HP 0) dies the moment it is built and
    # exits at the settlement.
    r = fight("10/0/0/1/反", "0/0/0/2/導0命")
    a, b = after(r, 0)
    assert [(x.name, x.hp, x.exited) for x in a] == [("B", 1, False), ("A", 10, False)]
    assert (b[0].hp, b[0].max_hp) == (1, 0)
    r = fight("10/0/0/2/遅.0反", "0/0/0/2/導0命")
    assert ("die", 0, 1, 0) in flat(turn_events(r, 1))
    assert [(x.name, x.exited) for x in after(r, 1)[0]] == [("A", False), ("B", True)]


def test_taunt_with_a_dead_taunter_still_draws_the_decided_attack():  # H20, H30
    # A 10/3/0/2/従斬 vs B 3/0/0/3/泡誘.
    # Turn 0: B (SPD 3) builds a bubble (b1); A builds しゃるる (5/3/0/2/高高毒毒, front, AP 2);
    #   しゃるる's two 高速剣 hit b1: 5 → −1 (not dead in the first turn), A skips. The death
    #   check kills b1.
    # Turn 1: B: a bubble b2, then Taunt. しゃるる (rank 1) and A (rank 2) act together; both
    #   single attacks pick the taunter B at step 2. しゃるる's 蟲毒剣: 3 → B 0, dead (+ Poison);
    #   A's 斬, decided before, still hits the dead B: −3 (its overkill grows, H30).
    r = fight("10/3/0/2/従斬", "3/0/0/3/泡誘")
    hits = [e for e in flat(turn_events(r, 1)) if e[0] == "hit"]
    assert [(e[1], e[2], e[-1]) for e in hits[:2]] == [(1, 0, 0), (1, 0, -3)]
    b = after(r, 1)[1]
    assert [(x.sm, x.exited, x.hp) for x in b if x.sm == 0] == [(0, True, -3)]


def test_dance_sword_stolen_mid_procedure_is_made_unused_in_the_thiefs_list():  # H11
    # A 10/2/0/1/舞 vs B 30/2/0/1/遅.2盗. 遅延剣.2 holds 強盗剣 until it expires after turn 2.
    # Turn 3: A's 舞踏剣 and B's 強盗剣 are super-simultaneous: 2 → B 28, 2 → A 8; B takes A's
    # first sword, the 舞踏剣 itself; then the ／ effect makes that sword unused, in B's list.
    # Turn 4: B executes the stolen 舞踏剣: A 6.
    r = fight("10/2/0/1/舞", "30/2/0/1/遅.2盗")
    assert (st(r, 3, 0).swords, st(r, 3, 1).swords) == ((), ("舞",))
    assert ("sword", 1, 0, "unused", "舞", None) in flat(turn_events(r, 3))
    assert (st(r, 3, 0).hp, st(r, 4, 0).hp) == (8, 6)


def test_years_sword_inside_the_first_turn_keeps_the_first_turn_rules():  # H5 example
    # 10/0/0/3/導0星熱: turn 0: 導来剣0 brings 星霜剣 to turn 0; 星 raises T to 1 inside the first
    # turn, so 加熱剣 (turn 1) fires on the third AP at once. B 0/0/0/0 is at HP 0 but nothing
    # dies until the death check after that turn: B dies there, in the first turn, T = 1.
    r = fight("10/0/0/3/導0星熱", "0/0/0/0/")
    assert (r.winner, r.turns, r.where) == (0, 1, "settlement")
    assert r.final[0][0].atk == 1
    assert [e[1] for e in r.events if e[0] == "turn"] == [0]


def test_years_sword_in_the_first_turn_then_the_next_turn_is_t_plus_1():  # H5, H6
    r = fight("10/0/0/3/導0星熱", "50/0/0/0/")
    ends = [e[1] for e in r.events if e[0] == "end"]
    assert ends[:3] == [1, 3, 5]  # 星 (early, turn 0 from now on) +1 in every turn cycle


def test_years_sword_in_turn_20_ends_at_the_settlement_with_turn_21():  # H6
    # 遅延剣.19 holds 星霜剣 in turns 0-19 and vanishes at the end of turn 19; in turn 20 星 fires:
    # T = 21 > 20: the settlement after it ends the battle: turns 21, judged by HP (10 vs 5).
    r = fight("10/0/0/1/遅.19星", "5/0/0/0/")
    assert (r.turns, r.where, r.by, r.winner) == (21, "settlement", "hp", 0)


def test_period_sword_vanishes_at_a_settlement_when_t_passes_it():  # H16
    # 10/0/0/2/星遅.2熱: turn 0: 遅.2 holds 熱 (星 is not active). Turn 1: 星 → T 2, 遅.2 holds 熱.
    # Turn 3 (the next is T + 1 = 3): 星 → T 4; the settlement after it: T > 2: 遅.2 has already
    # vanished at the end of turn 2 (T ≥ x). Turn 3's second AP is 熱: ATK 1.
    r = fight("10/0/0/3/星遅.2熱", "50/0/0/0/")
    assert [e[1] for e in r.events if e[0] == "end"][:2] == [0, 2]
    assert st(r, 2, 0).swords == ("星", "熱") and st(r, 2, 0).atk == 0
    assert st(r, 4, 0).atk == 1


def test_period_sword_built_after_its_period_vanishes_at_the_next_settlement():  # H16
    # 鶏皇剣 in turn 20 builds 撃鉄Act.6 whose 遅延剣.19 is already past its period: T = 20 > 19:
    # the settlement after that procedure removes it.
    r = fight("10/0/0/1/遅.19鶏", "50/0/0/0/")
    events = flat(turn_events(r, 20))
    assert ("build", 0, 0, 1, "撃鉄Act.6") in events
    assert ("sword", 0, 1, "expired", "遅.19", None) in events


def test_push_decides_the_over_turn_judge():  # H57
    r = fight("10/0/0/1/押", "20/0/0/0/")
    assert (r.winner, r.reason, r.by) == (0, "push", "hp")


def test_equal_push_totals_fall_back_to_hp():  # H57
    # Both sides hold 21 Push (押分剣 every turn): equal totals: the HP comparison decides.
    r = fight("10/0/0/1/押", "20/0/0/1/押")
    assert (r.winner, r.reason, r.push) == (1, "hp", (21, 21))


def test_the_procedure_limit_ends_the_turn():  # H61
    # 舞踏剣 with SPD 5 makes 5 procedures a turn; with a league limit of 3 the turn ends after the
    # third: 3 hits of 2 per turn from turn 3: B 100 → 94 after turn 3, 4 after turn 18, and in
    # turn 19 the second hit kills it. Turns 0-18 were cut (19 cuts; turn 19 ends at the
    # settlement). Without the limit, 5 hits a turn: 90 after turn 3.
    r = fight("10/2/0/5/舞", "100/0/0/0/", procedure_limit=3)
    assert (st(r, 3, 1).hp, st(r, 18, 1).hp) == (94, 4)
    assert ("limit", 3, 3) in r.events and r.max_turn_procedures == 3
    assert (r.turns, r.limit_hits) == (19, 19)
    assert st(fight("10/2/0/5/舞", "100/0/0/0/"), 3, 1).hp == 90


def test_mp_costs_make_a_sword_unexecutable_until_paid():  # H3, H17
    # A 10/0/0/2/詠爆 with 爆炎剣 costing 2 MP: turn 1: 詠 (MP 1), 爆 needs 2: not executable, a
    # skip; turn 2: 詠 (MP 2), 爆: MP 0, 4 damage: B 46.
    r = fight("10/0/0/2/詠爆", "50/0/0/0/", mp_costs={"爆": 2})
    assert (st(r, 1, 0).mp, st(r, 1, 1).hp) == (1, 50)
    assert (st(r, 2, 0).mp, st(r, 2, 1).hp) == (0, 46)
    assert ("act", 0, 0, "爆", 4, False, 2) in kinds(r, "act")


def test_a_sword_without_mp_cost_fires_at_negative_mp():  # ruling on H9 with H3 (see docs)
    # 魔封剣 drives B's MP below 0; B's 詠唱剣 (no MP cost) still executes every turn.
    r = fight("10/3/0/1/封", "30/0/0/1/詠")
    assert [st(r, t, 1).mp for t in (1, 2, 3)] == [-2, -4, -6]


def test_whole_support_gives_every_ally_a_status():  # H33
    # 10/0/0/2/泡散盾: turn 0: a bubble; turn 1: a second bubble, 散 gives 盾の剣 <全体化>; turn 2:
    # a third bubble, 盾 → Guard on all four.
    r = fight("10/0/0/2/泡散盾", "50/0/0/0/")
    assert [statuses(x) for x in after(r, 2)[0]] == [{"guard": 1}] * 4


def test_eternity_holds_for_the_whole_turn_cycle_even_after_years_sword():  # H49
    # A built swordmaster fails every build of its own turn cycle: 遅延剣.0 holds 精霊剣 in turn 0;
    # in turn 1 the ウィスプ built then tries 精霊剣 in the same cycle: 永絶; in turn 2 both build.
    r = fight("10/0/0/1/遅.0精", "50/0/0/0/")
    events = flat(turn_events(r, 1))
    assert ("nobuild", 0, 1, "eternal") in events
    assert len(after(r, 1)[0]) == 2 and len(after(r, 2)[0]) == 4


def test_eternity_is_per_turn_cycle_even_when_years_sword_changes_t():  # H49
    # B 10/0/0/3/導0星精 (SPD 3, first): turn 0: 導0 brings 星霜剣 to turn 0; 星 → T 1; 精 builds a
    # ウィスプ. A 10/0/0/1/反 and the wisp (SPD 1) act together: the wisp's build fails (永絶) and
    # A builds B' (B's registered spec, A's serial 1, AP 3), which then acts: 導0, 星 → T 2, and
    # its 精霊剣 fails: it was built in this turn cycle, whatever T says now.
    r = fight("10/0/0/1/反", "10/0/0/3/導0星精")
    events = flat(turn_events(r, 0))
    assert ("years", 0, 1, 2) in events
    assert ("nobuild", 0, 1, "eternal") in events
    assert [e[1] for e in r.events if e[0] == "end"][0] == 2
