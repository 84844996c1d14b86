"""Hand-derived tests of the 31 plus attack swords (§4.2, swords 16-46), one scenario or more each.

Notation as in ``test_swords_basic.py``; derivations cite ``rules/margaret-hundred.md``.
"""

from __future__ import annotations

from tests.rules.hundred.helpers import after, fight, flat, kinds, st, statuses


def test_16_null_sword_deals_0_and_a_cushion_makes_it_1():
    # ヌル剣 <高速>: 0 damage. A 10/0/0/1/ヌ vs B 20/0/0/1/膜. Turn 0: 0 damage, nothing happens.
    # Turn t ≥ 1 (simultaneous): B's Cushion first, then the 0 hit becomes 1 (§7 common facts):
    # B = 20 − t; at turn 20 B is at 0 and dies: A wins by death in turn 20.
    r = fight("10/0/0/1/ヌ", "20/0/0/1/膜")
    assert st(r, 0, 1).hp == 20
    assert st(r, 1, 1).hp == 19 and statuses(st(r, 1, 1)) == {}
    assert (r.winner, r.turns, r.reason) == (0, 20, "death")


def test_16_null_sword_still_spends_a_reflect():
    # The 0 hit is an attack: B's Reflect (鏡の剣, turn 2) sends it back: 0 damage on A, and the
    # Reflect is consumed (§4.2 notes).
    r = fight("10/0/0/1/ヌ", "20/0/0/1/鏡")
    assert ("reflect", 1, 0, 0, 0) in kinds(r, "reflect")
    assert statuses(st(r, 2, 1)) == {}


def test_17_18_sparkfire_and_burst_deal_1_fixed_and_stay_distinct():
    # 咲火剣 and 炸撃剣: 1 damage, DEF not subtracted (H23): B 5/0/9/0 dies in turn 5. They are
    # two swords (H4): each keeps its own code on the state line.
    for code in ("咲", "炸"):
        r = fight(f"10/0/0/1/{code}", "5/0/9/0/")
        assert st(r, 1, 1).hp == 4 and st(r, 1, 0).swords == (code,)
        assert (r.winner, r.turns) == (0, 5)


def test_19_blast_sword_deals_4():
    # 爆炎剣: 4 fixed: B 20/0/9/0: 16, 12, 8, 4, 0 → dead in turn 5.
    r = fight("10/0/0/1/爆", "20/0/9/0/")
    assert st(r, 1, 1).hp == 16 and (r.winner, r.turns) == (0, 5)


def test_20_greedflame_heals_by_the_damage_dealt_capped_at_max_hp():
    # 貪炎剣: 6 fixed, then (疎) the executor recovers 6. A 20/0/0/1/貪 vs B 30/3/0/1/斬:
    # every turn both attacks are super-simultaneous: B 30 → 24, A 20 → 17; then A recovers 6,
    # capped at 20 (§2.5 recover). B: 24, 18, 12, 6, 0 → A wins in turn 5 at 20 HP.
    r = fight("20/0/0/1/貪", "30/3/0/1/斬")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (20, 24)
    assert (r.winner, r.turns, r.final[0][0].hp) == (0, 5, 20)
    assert ("heal", 0, 0, 6, 20) in kinds(r, "heal")


def test_21_calamity_sword_also_deals_9_to_itself():
    # 災厄剣: 9 to the target, then (独) 9 to itself (H26). A 30/0/0/1 vs B 20/0/0/0:
    # turn 1: B 11, A 21; turn 2: B 2, A 12; turn 3: B −7 (dead), A 3: A wins in turn 3.
    r = fight("30/0/0/1/災", "20/0/0/0/")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (21, 11)
    assert (r.winner, r.turns, r.final[0][0].hp, r.final[1][0].hp) == (0, 3, 3, -7)


def test_21_calamity_self_damage_happens_even_when_dodged():
    # H26: the ／ effect does not depend on the first effect. B's 回避剣 (turn 1, support first)
    # dodges the 9; A still loses 9: A 21, B 20.
    r = fight("30/0/0/1/災", "20/0/0/1/避")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (21, 20)
    assert ("dodge", 1, 0) in kinds(r, "dodge")


def test_22_requiem_sword_deals_2_to_the_turn_number():
    # 滅奏剣: 2^T: turn t deals 2^t, so after turn t B lost 2^(t+1) − 2. B 2000/0/50/0:
    # turn 9: 2000 − 1022 = 978; turn 10: 978 − 1024 = −46: A wins in turn 10.
    r = fight("10/0/0/1/滅", "2000/0/50/0/")
    assert st(r, 1, 1).hp == 1998 and st(r, 9, 1).hp == 978
    assert (r.winner, r.turns, r.final[1][0].hp) == (0, 10, -46)


def test_22_requiem_sword_in_turn_0_deals_1():
    # 導来剣0 gives 滅奏剣 <早期起動> (activation 1 → 0): in turn 0 it deals 2^0 = 1.
    r = fight("10/0/0/2/導0滅", "50/0/0/0/")
    assert st(r, 0, 1).hp == 49


def test_23_curtain_sword_deals_100_in_turn_20():
    # 幕引剣 <遅延20><リミ>: 100 in turn 20: B 100 → 0: A wins by death in turn 20.
    r = fight("10/0/0/1/幕", "100/0/0/0/")
    assert st(r, 19, 1).hp == 100
    assert (r.winner, r.turns, r.reason) == (0, 20, "death")


def test_24_double_sword_makes_two_hits_with_life_between_them():
    # H30's example: 連撃剣 (turn 3) on a 5-HP target with one Life, ATK − DEF = 5: hit 1 → 0,
    # death, Life → 1; hit 2 → −4, dead for good. A wins in turn 3, B exits at −4.
    r = fight("10/5/0/1/連", "5/0/0/1/命")
    hits = [e for e in kinds(r, "hit")]
    assert [h[-1] for h in hits] == [0, -4]
    assert [e[3] for e in kinds(r, "revive")] == ["life"]
    assert (r.winner, r.turns, r.final[1][0].hp) == (0, 3, -4)


def test_24_hits_go_on_after_the_target_died():
    # H30: the second hit lands on a dead target and raises its overkill: B 2/0/0/0: 2 − 3 = −1,
    # then −4.
    r = fight("10/3/0/1/連", "2/0/0/0/")
    assert [h[-1] for h in kinds(r, "hit")] == [-1, -4]
    assert r.final[1][0].hp == -4


def test_25_wave_sword_makes_five_hits():
    # 波状剣 <遅延6>: 5 hits of 2 − 0 = 2 in turn 6: B 50 → 40.
    r = fight("10/2/0/1/波", "50/0/0/0/")
    assert st(r, 5, 1).hp == 50 and st(r, 6, 1).hp == 40


def test_26_dance_sword_makes_itself_unused_and_fires_on_every_ap():
    # 舞踏剣 <遅延3>: (独) it becomes unused, so it is the first usable sword again (H45): with
    # SPD 3, turn 3 makes 3 hits of 2: B 50 → 44.
    r = fight("10/2/0/3/舞", "50/0/0/0/")
    assert st(r, 2, 1).hp == 50 and st(r, 3, 1).hp == 44


def test_27_sweep_sword_hits_every_enemy_front_to_back():
    # 全体剣 <遅延2>. B 20/0/0/1/泡 builds a バブリア (5/0/0/0) at its front in turns 0 and 1:
    # B's party is [泡2, 泡1, B]. Turn 2 (A and B both SPD 1, simultaneous): the attack comes
    # before the build (§8.10): 3 on each: 泡2 2, 泡1 2, B 17; then B builds 泡3.
    # Turn 3: 泡3 2, 泡2 −1 and 泡1 −1 die, B 14; B builds 泡4; at the settlement the two dead
    # bubbles exit (front first, H55): [泡4 5, 泡3 2, B 14].
    r = fight("10/3/0/1/全", "20/0/0/1/泡")
    assert [x.hp for x in after(r, 2)[1]] == [5, 2, 2, 17]
    party = after(r, 3)[1]
    assert [(x.name, x.hp, x.exited) for x in party] == [
        ("バブリア", 5, False),
        ("バブリア", 2, False),
        ("B", 14, False),
        ("バブリア", -1, True),
        ("バブリア", -1, True),
    ]
    assert [x.sm for x in party[3:]] == [2, 1]


def test_28_venom_sword_gives_venom_that_poisons_every_status_phase():
    # 猛毒剣 <遅延2><リミ>: turn 2: 1 → B 29 + Venom. From turn 3 each status phase: Venom gives a
    # Poison, then all Poison fire (H15): poison t − 2 in turn t; B after turn t = 29 − Σ(1..t−2):
    # turn 3 → 28, turn 4 → 26, turn 9 → 1, turn 10 → −7 (dead in the status phase).
    r = fight("10/1/0/1/猛", "30/0/0/0/")
    assert statuses(st(r, 2, 1)) == {"venom": 1}
    assert [st(r, t, 1).hp for t in (3, 4, 9)] == [28, 26, 1]
    assert statuses(st(r, 4, 1)) == {"venom": 1, "poison": 2}
    assert (r.winner, r.turns, r.final[1][0].hp) == (0, 10, -7)


def test_29_abort_sword_makes_the_next_build_fail():
    # 堕胎剣 <遅延2><リミ> vs B 30/0/0/1/遅.3泡: 遅延剣.3 holds 泡溢剣 every turn until it expires
    # at the end of turn 3 (x ≤ T, §8.1 step 5). Turn 2: A's hit 1 → B 29 + Abort. Turn 4: B's
    # build fails and consumes the Abort (§7, H50). Turn 5: B builds a バブリア.
    r = fight("10/1/0/1/堕", "30/0/0/1/遅.3泡")
    assert statuses(st(r, 2, 1)) == {"abort": 1}
    assert st(r, 3, 1).swords == ("泡",)
    assert len(after(r, 4)[1]) == 1 and statuses(st(r, 4, 1)) == {}
    assert ("nobuild", 1, 0, "abort") in kinds(r, "nobuild")
    assert [x.name for x in after(r, 5)[1]] == ["バブリア", "B"]


def test_30_break_sword_destroys_the_first_sword():
    # 破壊剣 <リミ>: turn 1: 1 damage → B 29, B's first sword (斬) is destroyed (H46).
    r = fight("10/1/0/1/壊", "30/0/0/0/斬盾")
    assert st(r, 1, 1).swords == ("盾",) and st(r, 1, 1).hp == 29


def test_31_clash_sword_marks_the_first_unused_sword_used():
    # 剣戟剣 <遅延2>: A 10/1/0/2/戟 vs B 30/0/0/1/熱護. Turn 1: B's 熱 → ATK 1.
    # Turn 2: A (SPD 2 > 1) first: 1 − 0 = 1 → B 29, and B's first unused sword (熱) is marked
    # used; so B's AP goes to 護 → DEF 1. Turn 3: 1 − 1 = 0: a 0-damage hit, no rider (H24); B's
    # 熱 → ATK 2.
    r = fight("10/1/0/2/戟", "30/0/0/1/熱護")
    assert (st(r, 2, 1).atk, st(r, 2, 1).df, st(r, 2, 1).hp) == (1, 1, 29)
    assert (st(r, 3, 1).atk, st(r, 3, 1).df, st(r, 3, 1).hp) == (2, 1, 29)


def test_31_clash_sword_can_waste_itself_on_a_sword_not_active_yet():
    # H38: "unused" does not skip a sword that is not active: 回復剣5 is marked, 熱 still fires.
    r = fight("10/1/0/2/戟", "30/0/0/1/回5熱")
    assert ("sword", 1, 0, "jammed", "回5", None) in kinds(r, "sword")
    assert st(r, 2, 1).atk == 2


def test_32_confusion_sword_reverses_the_list():
    # 撹乱剣 <リミ>: 斬盾熱 becomes 熱盾斬 (used marks and enchantments stay with their swords).
    r = fight("10/1/0/1/撹", "30/0/0/0/斬盾熱")
    assert st(r, 1, 1).swords == ("熱", "盾", "斬")


def test_33_vampire_sword_heals_by_the_damage():
    # 吸血剣 <リミ>: A 10/4/0/1/吸 vs B 30/2/1/2/斬斬. Turn 1: B (SPD 2) first: 2 → A 8, 2 → A 6;
    # then A: 4 − 1 = 3 → B 27, and A recovers 3 → 9 (H27).
    r = fight("10/4/0/1/吸", "30/2/1/2/斬斬")
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (9, 27)


def test_34_robber_sword_moves_the_first_sword_to_the_thiefs_end():
    # 強盗剣 <遅延2><リミ>: turn 2: 2 → B 28, B's first sword (護) moves to A's end (H39);
    # turn 3: A executes it: DEF 1.
    r = fight("10/2/0/1/盗", "30/0/0/0/護熱")
    assert (st(r, 2, 0).swords, st(r, 2, 1).swords, st(r, 2, 1).hp) == (("護",), ("熱",), 28)
    assert st(r, 3, 0).df == 1


def test_34_two_robbers_take_each_others_original_first_sword():
    # §8.11: both 強盗剣 of a tempo decide their sword first. A 10/2/0/1/盗熱 vs B 10/2/0/1/盗護.
    # Turn 1: 盗 is not active: A 熱 → ATK 3, B 護 → DEF 1. Turn 2: both 盗 (paid: they vanish):
    # 3 − 1 = 2 → B 8, 2 − 0 = 2 → A 8; A takes 護 and B takes 熱.
    r = fight("10/2/0/1/盗熱", "10/2/0/1/盗護")
    a, b = st(r, 2, 0), st(r, 2, 1)
    assert (a.hp, a.swords, b.hp, b.swords) == (8, ("護",), 8, ("熱",))


def test_35_darkness_sword_ignores_defence_and_protection():
    # 闇黒剣: B 30/0/0/1/鏡盾: turn 1: Guard (鏡 not active yet), 3 → 27 unhalved; turn 2: Reflect,
    # 3 → 24: nothing fired and nothing was consumed.
    r = fight("10/3/0/1/闇", "30/0/0/1/鏡盾")
    assert st(r, 1, 1).hp == 27 and statuses(st(r, 1, 1)) == {"guard": 1}
    assert st(r, 2, 1).hp == 24 and statuses(st(r, 2, 1)) == {"reflect": 1, "guard": 1}


def test_36_seal_sword_damages_mp():
    # 魔封剣: ATK − DEF to MP (H28). A 10/3/0/1/封 vs B 30/0/1/1/詠: each turn MP +1 (support
    # first), then −2: MP −t after turn t; HP never moves, so B wins the HP judge 30 to 10.
    r = fight("10/3/0/1/封", "30/0/1/1/詠")
    assert [st(r, t, 1).mp for t in (1, 2, 20)] == [-1, -2, -20]
    assert (r.winner, r.reason, r.totals) == (1, "hp", (10, 30))


def test_37_overload_sword_triples_atk():
    # 過重剣 <遅延5>: 2×3 − 1 = 5 → B 25 in turn 5.
    r = fight("10/2/0/1/過", "30/0/1/0/")
    assert st(r, 4, 1).hp == 30 and st(r, 5, 1).hp == 25


def test_38_sure_sword_deals_half_atk_rounded_down():
    # 確実剣: ⌊5/2⌋ = 2, fixed: B 30/0/9/0 → 28.
    r = fight("10/5/0/1/確", "30/0/9/0/")
    assert st(r, 1, 1).hp == 28


def test_39_sonic_sword_makes_ten_hits_of_a_fifth():
    # 音速剣 <高速><リミ>: (⌊7/5⌋ − 0) × 10 = 10 in turn 0: B 20.
    r = fight("10/7/0/1/音", "30/0/0/0/")
    assert st(r, 0, 1).hp == 20 and len(kinds(r, "hit")) == 10


def test_40_light_sword_makes_a_hundred_hits_of_a_tenth():
    # 光速剣 <高速><リミ>: (⌊10/10⌋ − 0) × 100 = 100 in turn 0: B 150 → 50.
    r = fight("10/10/0/1/光", "150/0/0/0/")
    assert st(r, 0, 1).hp == 50 and len(kinds(r, "hit")) == 100


def test_41_rage_sword_deals_the_executors_lost_hp():
    # 激怒剣3 <遅延3><リミ>: A 30/0/0/1/怒3 vs B 50/5/0/1/斬: A 25, 20 after turns 1, 2; turn 3:
    # both attacks read the same state: 30 − 20 = 10 → B 40, B's 5 → A 15.
    r = fight("30/0/0/1/怒3", "50/5/0/1/斬")
    assert (st(r, 3, 0).hp, st(r, 3, 1).hp) == (15, 40)


def test_41_rage_sword_at_full_hp_deals_0():
    # At HP = max HP, max HP − HP = 0: a 0-damage hit that changes nothing (H24).
    r = fight("30/0/0/1/怒1", "50/0/0/0/")
    assert st(r, 1, 1).hp == 50 and kinds(r, "hit")[0][7] == 0


def test_42_43_44_cooling_peeling_slowing_reset_to_initial_values():
    # 冷却剣 / 剥落剣 / 減速剣 reset the target's ATK / DEF / SPD to its initial value (H36), no
    # damage. B 30/1/1/3/熱護速 (SPD 3 > 1): turn 1: ATK 2, DEF 2, SPD 4, then A resets one.
    for code, attr, value in (("冷", "atk", 1), ("剥", "df", 1), ("減", "spd", 3)):
        r = fight(f"10/0/0/1/{code}", "30/1/1/3/熱護速")
        s = st(r, 1, 1)
        assert getattr(s, attr) == value, code
        assert s.hp == 30


def test_42_a_reflected_cooling_sword_resets_its_own_executor():
    # H29: non-damage attacks can be reflected: A 10/2/0/2/熱冷 gets ATK 3... turn 2: A (SPD 2)
    # first: 熱 → ATK 4, then 冷 arrives at B, who reflected nothing yet (鏡 at SPD 1 comes after
    # A). Turn 3: B's Reflect (given in turn 2) sends 冷 back: A's ATK 5 → 2.
    r = fight("10/2/0/2/熱冷", "30/0/0/1/鏡")
    assert st(r, 2, 0).atk == 4
    assert st(r, 3, 0).atk == 2


def test_45_gentle_sword_assigns_max_hp():
    # 優撃剣 <遅延2><リミ>: A 10/3/0/2/斬優 vs B 30/0/0/0: turn 1: 27; turn 2: 24, then HP := 30.
    r = fight("10/3/0/2/斬優", "30/0/0/0/")
    assert st(r, 1, 1).hp == 27 and st(r, 2, 1).hp == 30 and st(r, 3, 1).hp == 27


def test_46_blaze_sword_burns_every_sword_of_both():
    # 炎上剣: A 10/1/0/1/炎 vs B 30/0/0/1/重盾. Turn 1: B's Guard (support first), then A's 炎:
    # B's 重, 盾 become 炸撃剣 (used marks kept: 盾 was used this turn); A's own list burns too:
    # its 炎 becomes a used 炸 (H40). Turn 2: A 炸 1 → Guard ⌈1/2⌉ = 1 → B 29; B 炸 1 → A 9.
    r = fight("10/1/0/1/炎", "30/0/0/1/重盾")
    assert (st(r, 1, 0).swords, st(r, 1, 1).swords) == (("炸",), ("炸", "炸"))
    assert (st(r, 2, 0).hp, st(r, 2, 1).hp) == (9, 29)
    assert statuses(st(r, 2, 1)) == {}


def test_46_blaze_drops_enchantments_and_limited():
    # H40: a burnt sword loses its enchantments and <リミ>. A 10/0/0/1/限熱 vs B 30/0/0/2/高炎.
    # Turn 0: B (SPD 2) first: 高速剣 0 − 0 = 0, then 炎 is not active (skip); A: 限定剣 gives 熱
    # <リミテッド>. Turn 1: B's 炎 burns A's [熱] into [炸] (no <リミテッド>, unused) and its own
    # into a used 炸; A's 炸 then hits: 1 → B 29. Turn 2: B's 炸 → A 9, A's 炸 (still there: not
    # limited) → B 28.
    r = fight("10/0/0/1/限熱", "30/0/0/2/高炎")
    assert st(r, 0, 0).enchants == ((0, 0, 0, False, True, 0),)
    s = st(r, 1, 0)
    assert s.swords == ("炸",) and s.enchants == ()
    assert (st(r, 1, 1).hp, st(r, 2, 1).hp, st(r, 2, 0).hp) == (29, 28, 9)


def test_attack_events_name_the_target_and_tempo():
    r = fight("10/3/0/1/斬", "20/0/1/0/")
    hit = kinds(r, "hit")[0]
    assert hit == ("hit", 1, 0, 0, 2, 0, "", 2, False, False, 18)
    assert flat(r)[0] == ("turn", 0)
