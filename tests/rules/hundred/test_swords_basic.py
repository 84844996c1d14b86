"""Hand-derived tests of the 15 basic swords (§4.1), one scenario each.

Every expected number is derived in the comment from ``rules/margaret-hundred.md``; "A"/"B" are
the two sides, ``X/Y/Z/W`` is HP/ATK/DEF/SPD. The dummy ``50/0/0/0`` never acts (SPD 0 → AP 0).
"""

from __future__ import annotations

from tests.rules.hundred.helpers import after, fight, kinds, st, statuses


def test_1_slash_sword_hits_atk_minus_def_every_turn_from_turn_1():
    # 斬撃剣 (usable from turn 1): A 10/3/0/1 vs B 20/0/1/0. Turn 0: not usable, A skips.
    # Turn t ≥ 1: 3 − 1 = 2 damage, so B = 20 − 2t; at t = 10 B is at 0, dies, exits at the
    # settlement after that action: A wins by death in turn 10.
    r = fight("10/3/0/1/斬", "20/0/1/0/")
    assert st(r, 0, 1).hp == 20
    assert st(r, 1, 1).hp == 18
    assert st(r, 9, 1).hp == 2
    assert (r.winner, r.reason, r.by, r.turns) == (0, "death", "death", 10)
    assert r.final[1][0].hp == 0 and r.final[1][0].exited


def test_2_swift_sword_fires_in_turn_0_once():
    # 高速剣 <高速><リミ>: turn 0: 3 − 1 = 2 → B 18, then it vanishes. Nothing else happens; at the
    # end of turn 20 the over-turn judge compares A 10 with B 18: B wins by HP.
    r = fight("10/3/0/1/高", "20/0/1/0/")
    assert st(r, 0, 1).hp == 18 and st(r, 0, 0).swords == ()
    assert (r.winner, r.reason, r.turns, r.totals) == (1, "hp", 20, (10, 18))


def test_3_heavy_sword_doubles_atk_from_turn_4():
    # 重撃剣 <遅延4>: ATK×2 − DEF = 6 − 1 = 5 from turn 4: B = 50 − 5(t − 3); turn 3 still 50,
    # turn 4 45, and B reaches 0 at t − 3 = 10, turn 13.
    r = fight("10/3/0/1/重", "50/0/1/0/")
    assert st(r, 3, 1).hp == 50
    assert st(r, 4, 1).hp == 45
    assert (r.winner, r.turns) == (0, 13)


def test_4_shock_sword_stuns_on_damage():
    # A 10/2/0/1/衝 vs B 10/1/0/1/斬 (equal SPD: every action is simultaneous).
    # Turn 1: 衝撃剣 is <遅延2>: A skips; B's 斬 1 → A 9.
    # Turn 2: both act: A's 衝 2 → B 8 and, damage ≥ 1, one Stun; B's 斬 was decided before, so
    #   it still hits: A 8 (super-simultaneous attacks, §8.10).
    # Turn 3: B holds Stun: its action is a skip that consumes it (H14); A hits: B 6 + Stun.
    r = fight("10/2/0/1/衝", "10/1/0/1/斬")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (9, 10)
    assert (st(r, 2, 0).hp, st(r, 2, 1).hp) == (8, 8)
    assert statuses(st(r, 2, 1)) == {"stun": 1}
    assert (st(r, 3, 0).hp, st(r, 3, 1).hp) == (8, 6)
    assert statuses(st(r, 3, 1)) == {"stun": 1}
    assert ("skip", 1, 0, "stun") in kinds(r, "skip")


def test_5_poison_sword_poisons_once_and_vanishes():
    # 蟲毒剣 <リミ>: turn 1: 2 − 0 = 2 → B 18 + Poison, the sword vanishes. From turn 2 each status
    # phase deals 1: B = 19 − t, 0 at turn 19, dead in that status phase: A wins in turn 19.
    r = fight("10/2/0/1/毒", "20/0/0/0/")
    assert st(r, 1, 1).hp == 18 and statuses(st(r, 1, 1)) == {"poison": 1}
    assert st(r, 1, 0).swords == ()
    assert st(r, 5, 1).hp == 14
    assert (r.winner, r.turns, r.where) == (0, 19, "settlement")


def test_6_absolute_sword_ignores_def_from_turn_3():
    # 絶対剣 <遅延3>: ATK = 3 fixed (DEF 5 is not subtracted, H23): B = 20 − 3(t − 2): turn 3 → 17;
    # t = 9 → −1: A wins in turn 9 with B at −1.
    r = fight("10/3/0/1/絶", "20/0/5/0/")
    assert st(r, 3, 1).hp == 17
    assert (r.winner, r.turns, r.final[1][0].hp) == (0, 9, -1)


def test_7_magic_sword_halves_hp_rounding_up():
    # 魔法剣 <遅延2><リミ>: ⌈25 / 2⌉ = 13 → B 12 in turn 2, and it vanishes; the judge after turn
    # 20: A 10 vs B 12 → B wins by HP.
    r = fight("10/0/0/1/魔", "25/0/0/0/")
    assert st(r, 2, 1).hp == 12
    assert (r.winner, r.reason) == (1, "hp")


def test_8_death_sword_deals_the_targets_hp_and_reads_both_codes():
    # デス剣 <遅延6><リミ>: HP damage (fixed): in turn 6, 25 → 0: dead, A wins in turn 6. 死 is
    # the same sword (M4, H60).
    for code in ("デ", "死"):
        r = fight(f"10/0/0/1/{code}", "25/0/9/0/")
        assert (r.winner, r.turns, r.final[1][0].hp) == (0, 6, 0)
        assert st(r, 5, 0).swords == ("デ",)


def test_9_heat_sword_raises_atk():
    # A 10/0/0/2/熱斬 vs B 100/0/0/0: every turn 加熱剣 then 斬撃剣 with the new ATK t:
    # B = 100 − t(t + 1)/2: turn 13 → 9, turn 14 → −5: A wins in turn 14.
    r = fight("10/0/0/2/熱斬", "100/0/0/0/")
    assert st(r, 1, 0).atk == 1 and st(r, 1, 1).hp == 99
    assert st(r, 13, 0).atk == 13 and st(r, 13, 1).hp == 9
    assert (r.winner, r.turns, r.final[1][0].hp) == (0, 14, -5)


def test_10_ward_sword_raises_def():
    # A 10/0/0/1/護 vs B 50/3/0/1/斬, simultaneous: supports before attacks (§8.10).
    # Turn 1: DEF 1, then 3 − 1 = 2 → A 8. Turn 2: DEF 2 → 1 → A 7. Turn 3: DEF 3 → 0 → 7.
    r = fight("10/0/0/1/護", "50/3/0/1/斬")
    assert [st(r, t, 0).hp for t in (1, 2, 3, 4)] == [8, 7, 7, 7]
    assert st(r, 4, 0).df == 4


def test_11_haste_sword_raises_spd_but_not_this_turns_ap():
    # A 10/1/0/1/速斬 vs B 50/0/0/0. Turn 1: AP 1: 加速剣 → SPD 2 (AP is not recomputed, §8.5).
    # Turn 2: AP 2: 速 (SPD 3), 斬 1 → 49. Turn 3: AP 3: 速 (SPD 4), 斬 → 48, then nothing is
    # executable: a skip (H8).
    r = fight("10/1/0/1/速斬", "50/0/0/0/")
    assert (st(r, 1, 0).spd, st(r, 1, 1).hp) == (2, 50)
    assert (st(r, 2, 0).spd, st(r, 2, 1).hp) == (3, 49)
    assert (st(r, 3, 0).spd, st(r, 3, 1).hp) == (4, 48)


def test_12_guard_sword_halves_rounding_up():
    # 盾の剣: Guard halves damage rounding up (§7). A 10/0/0/1/盾 vs B 30/5/0/1/斬: each turn the
    # Guard comes first (support > attack): ⌈5/2⌉ = 3: A 7, 4, 1, −2 → B wins in turn 4.
    r = fight("10/0/0/1/盾", "30/5/0/1/斬")
    assert [st(r, t, 0).hp for t in (1, 2, 3)] == [7, 4, 1]
    assert (r.winner, r.turns, r.final[0][0].hp) == (1, 4, -2)


def test_13_mirror_sword_reflects_one_attack():
    # 鏡の剣 <遅延2><リミ>: A 10/0/0/1/鏡 vs B 30/3/0/1/斬. Turn 1: A skips, B hits: A 7.
    # Turn 2: Reflect first, then B's 斬 goes back to B: 3 − 0 = 3 → B 27 (X from B's ATK, DEF from
    # the final target B, H21). Turns 3-5: A 4, 1, −2: B wins in turn 5.
    r = fight("10/0/0/1/鏡", "30/3/0/1/斬")
    assert (st(r, 2, 0).hp, st(r, 2, 1).hp) == (7, 27)
    assert ("reflect", 0, 0, 1, 0) in kinds(r, "reflect")
    assert (r.winner, r.turns) == (1, 5)


def test_14_life_sword_revives_at_hp_1():
    # 命の剣: A 5/0/0/1/命 vs B 30/5/0/1/斬. Turn 1: Life, then 5 → A 0: A dies and its Life
    # fires at once: HP 1 (§8.3). Turn 2: 5 → −4, dead for good: B wins in turn 2.
    r = fight("5/0/0/1/命", "30/5/0/1/斬")
    assert st(r, 1, 0).hp == 1 and statuses(st(r, 1, 0)) == {}
    assert (r.winner, r.turns, r.final[0][0].hp) == (1, 2, -4)
    assert ("revive", 0, 0, "life", 1) in kinds(r, "revive")


def test_15_healing_sword_assigns_max_hp_from_turn_n():
    # 回復剣3 <遅延3><リミ>: A 20/0/0/1/回3 vs B 30/3/0/1/斬: turns 1, 2: A 17, 14. Turn 3: HP :=
    # 20 (support first), then 3 → 17. Turn 4: 14.
    r = fight("20/0/0/1/回3", "30/3/0/1/斬")
    assert [st(r, t, 0).hp for t in (1, 2, 3, 4)] == [17, 14, 17, 14]
    assert "回3" not in st(r, 3, 0).swords


def test_healing_sword_1_is_usable_from_turn_1():
    # 回復剣1: N = 1 means usable from turn 1 (M5); it assigns HP := max HP even at full HP.
    r = fight("10/0/0/1/回1", "50/0/0/0/")
    assert st(r, 0, 0).swords == ("回1",) and st(r, 1, 0).swords == ()


def test_state_lines_after_turn_0_list_both_parties():
    r = fight("10/3/0/1/高斬", "20/0/1/0/")
    a, b = after(r, 0)
    assert [x.name for x in a] == ["A"] and [x.name for x in b] == ["B"]
    assert a[0].swords == ("斬",) and b[0].hp == 18
