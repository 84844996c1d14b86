"""Hand-derived tests of the 19 plus supports (§4.3, swords 47-65).

Notation as in ``test_swords_basic.py``. B 30/x/0/1/斬 is an attacker of equal SPD, so every turn
the support comes first (support > attack, §8.10) and the attack meets the new status.
"""

from __future__ import annotations

from tests.rules.hundred.helpers import after, fight, flat, kinds, st, statuses, turn_events


def test_47_alert_sword_gives_guard_in_turn_0():
    # 警戒剣 <高速><リミ>: turn 0: Guard, then B's 高速剣 4 → ⌈4/2⌉ = 2 → A 8.
    r = fight("10/0/0/1/警", "30/4/0/1/高")
    assert st(r, 0, 0).hp == 8 and statuses(st(r, 0, 0)) == {}


def test_48_evasion_sword_dodges_one_attack():
    # 回避剣 <リミ>: turn 1: Dodge, B's 斬 vanishes (A 10); turn 2: 4 → A 6.
    r = fight("10/0/0/1/避", "30/4/0/1/斬")
    assert [st(r, t, 0).hp for t in (1, 2)] == [10, 6]


def test_49_shield_sword_halves_rounding_down():
    # 楯の剣: Shield ⌊5/2⌋ = 2: A 8, 6, 4, 2, 0 → B wins in turn 5.
    r = fight("10/0/0/1/楯", "30/5/0/1/斬")
    assert [st(r, t, 0).hp for t in (1, 2, 3, 4)] == [8, 6, 4, 2]
    assert (r.winner, r.turns) == (1, 5)


def test_50_amnion_sword_cushions_to_1():
    # 羊膜剣: Cushion makes the damage 1: 5 → 1: A 9 after turn 1.
    r = fight("10/0/0/1/膜", "30/5/0/1/斬")
    assert st(r, 1, 0).hp == 9


def test_50_cushion_turns_a_failing_hit_into_1_with_its_rider():
    # §7 common facts: 2 − 9 = −7 fails, but a Cushion makes it 1, so 衝撃剣's Stun rider fires.
    # B 30/2/0/1/衝 starts in turn 2: A 10/0/9/1/膜: turn 2: 1 damage → A 9 + Stun.
    r = fight("10/0/9/1/膜", "30/2/0/1/衝")
    assert st(r, 2, 0).hp == 9 and statuses(st(r, 2, 0)) == {"cushion": 1, "stun": 1}


def test_51_barrier_sword_makes_damage_0():
    # 障壁剣: Barrier: 5 → 0.
    r = fight("10/0/0/1/壁", "30/5/0/1/斬")
    assert st(r, 5, 0).hp == 10


def test_52_soul_sword_revives_at_max_hp():
    # 魂の剣 <遅延3><リミ>: A 20/0/0/1 vs B 30/5/0/1/斬: A 15, 10; turn 3: Soul, → 5; turn 4: 0 →
    # death, Soul assigns HP := 20 (§7). Turn 5: 15.
    r = fight("20/0/0/1/魂", "30/5/0/1/斬")
    assert [st(r, t, 0).hp for t in (3, 4, 5)] == [5, 20, 15]
    assert ("revive", 0, 0, "soul", 20) in kinds(r, "revive")


def test_53_push_sword_wins_the_over_turn_judge():
    # 押分剣 <高速>: one Push per turn, 21 in all. After turn 20 A has 10 HP and B 20, but A holds
    # more Push: A wins the HP judge without comparing HP (H57): reason push, by hp.
    r = fight("10/0/0/1/押", "20/0/0/0/")
    assert (r.winner, r.reason, r.by, r.push, r.totals) == (0, "push", "hp", (21, 0), (10, 20))


def test_54_drive_sword_adds_3_and_costs_1_atk():
    # 駆動剣: A 10/2/0/2/駆斬 vs B 30/0/0/0. Turn 1: Drive; 斬 2 + 3 = 5, ATK → 1: B 25.
    # Turn 2: Drive; 1 + 3 = 4, ATK → 0: B 21. Turn 3: Drive fires at ATK 0 (consumed) with no
    # bonus: 0 damage: B 21.
    r = fight("10/2/0/2/駆斬", "30/0/0/0/")
    assert [(st(r, t, 0).atk, st(r, t, 1).hp) for t in (1, 2, 3)] == [(1, 25), (0, 21), (0, 21)]
    assert statuses(st(r, 3, 0)) == {}


def test_55_flip_sword_subtracts_3_and_costs_1_def():
    # 蠕動剣: A 10/0/2/1/蠕 vs B 30/6/0/1/斬. Turn 1: 6 − 2 = 4, Flip: 4 − 3 = 1, DEF → 1: A 9.
    # Turn 2: 6 − 1 = 5 → 2, DEF → 0: A 7. Turn 3: DEF 0: the Flip fires, changes nothing: 6 → A 1.
    r = fight("10/0/2/1/蠕", "30/6/0/1/斬")
    assert [(st(r, t, 0).hp, st(r, t, 0).df) for t in (1, 2, 3)] == [(9, 1), (7, 0), (1, 0)]


def test_56_lure_sword_taunts_single_attacks():
    # 誘引剣 <リミ>: B 30/0/0/2/誘泡 (SPD 2 > A's 1). Turn 0: 誘 not active; B builds a バブリア.
    # Turn 1: B: Taunt, then a second バブリア; A's 斬 picks B, the taunter, not the bubble at the
    # front (H20): B 27.
    r = fight("10/3/0/1/斬", "30/0/0/2/誘泡")
    party = after(r, 1)[1]
    assert [(x.name, x.hp) for x in party] == [("バブリア", 5), ("バブリア", 5), ("B", 27)]
    assert ("taunt", 1, 0) in kinds(r, "taunt")


def test_57_lead_sword_acts_before_higher_spd():
    # 先行剣 <高速><リミ>: A 10/2/0/1/先斬 vs B 10/2/0/3/斬. Turn 0: A gains Quick. Turn 1: among
    # holders, Quick − Slow first (§8.5): A hits first (B 8), then B (A 8).
    r = fight("10/2/0/1/先斬", "10/2/0/3/斬")
    acts = [e for e in kinds(r, "act") if e[3] == "斬"]
    assert [e[1] for e in acts[:2]] == [0, 1]
    assert (st(r, 1, 0).hp, st(r, 1, 1).hp) == (8, 8)


def test_58_follow_sword_acts_after_lower_spd():
    # 後続剣 <高速><リミ>: A 10/2/0/3/後斬 with Slow acts after B 10/2/0/1/斬 in turn 1.
    r = fight("10/2/0/3/後斬", "10/2/0/1/斬")
    acts = [e for e in kinds(r, "act") if e[3] == "斬"]
    assert [e[1] for e in acts[:2]] == [1, 0]


def test_59_passage_sword_asks_for_a_rewrite_when_its_side_wins():
    # 疎通剣 <高速><リミ>: Heaven's Door on A, whose registered spec carries 疎通剣; A wins (B 5 →
    # 2 → −1 in turn 2): the result asks to rewrite A's entry with B's registered spec (H58).
    r = fight("10/3/0/1/疎斬", "5/0/0/0/")
    assert (r.winner, r.turns, r.heavens_door) == (0, 2, 0)


def test_59_a_losers_heavens_door_does_nothing():
    r = fight("10/0/0/1/疎", "10/3/0/1/斬")
    assert r.winner == 1 and r.heavens_door is None


def test_60_cure_sword_removes_the_bad_statuses():
    # 快癒剣2 <遅延2><リミ>: B's 蟲毒剣 poisons A in turn 1 (A 29); turn 2: Poison → A 28, then the
    # cure removes it (support first); turn 3: A still 28.
    r = fight("30/0/0/1/癒2", "30/1/0/1/毒")
    assert statuses(st(r, 1, 0)) == {"poison": 1}
    assert (st(r, 2, 0).hp, statuses(st(r, 2, 0))) == (28, {})
    assert st(r, 3, 0).hp == 28


def test_61_62_chant_and_prayer_raise_mp():
    # 詠唱剣 +1 every turn; 黙祷剣 +3 once (<リミ>): A 10/0/0/2/黙詠: turn 1: 3 + 1 = 4, turn 2: 5.
    r = fight("10/0/0/2/黙詠", "50/0/0/0/")
    assert (st(r, 1, 0).mp, st(r, 2, 0).mp) == (4, 5)


def test_63_ritual_sword_gives_3_more_actions():
    # 儀式剣N <遅延N><リミ>: AP +3. A 10/1/0/1/儀1斬: turn 1: AP 1 → 儀 (AP 0 + 3 = 3); 斬 1 → B
    # 49; two skips (斬 is used). A 10/1/0/1/儀3舞: turn 3: 儀 → AP 3, then 舞踏剣 three times
    # (it unuses itself, H45): 3 hits of 1: B 47.
    r = fight("10/1/0/1/儀1斬", "50/0/0/0/")
    assert st(r, 1, 1).hp == 49
    r = fight("10/1/0/1/儀3舞", "50/0/0/0/")
    assert st(r, 3, 1).hp == 47


def test_64_sleeping_dragon_adds_10_and_sleep():
    # 臥竜剣 <高速><リミ>: turn 0: max HP 20, HP 20 (an increase, H37), Sleep. Turn 1: the AP phase
    # consumes the Sleep: AP 0, 加熱剣 does not fire (H13). Turn 2: ATK 1.
    r = fight("10/0/0/1/臥熱", "50/0/0/0/")
    s0 = st(r, 0, 0)
    assert (s0.hp, s0.max_hp, statuses(s0)) == (20, 20, {"sleep": 1})
    assert (st(r, 1, 0).atk, statuses(st(r, 1, 0))) == (0, {})
    assert st(r, 2, 0).atk == 1


def test_65_dragon_sword_doubles_the_values():
    # 竜化剣 <遅延10><リミ>: turn 10: max HP, HP, MP, ATK, DEF and SPD doubled (H47). A
    # 10/1/1/2/竜詠: MP +1 each turn from 詠唱剣: 9 after turn 9; turn 10 (AP 2): 竜 first:
    # 20/20, MP 18, ATK 2, DEF 2, SPD 4, then 詠 → MP 19. AP is not doubled: still 2 actions.
    r = fight("10/1/1/2/竜詠", "50/0/0/0/")
    s = st(r, 10, 0)
    assert (s.hp, s.max_hp, s.mp, s.atk, s.df, s.spd) == (20, 20, 19, 2, 2, 4)
    assert st(r, 9, 0).mp == 9
    # turn 10: AP 2 (竜, 詠), no skip; turn 11: AP = SPD 4: 詠 and three skips
    assert [e[0] for e in flat(turn_events(r, 10)) if e[0] in ("act", "skip")] == ["act", "act"]
    assert [e[0] for e in flat(turn_events(r, 11)) if e[0] in ("act", "skip")] == [
        "act",
        "skip",
        "skip",
        "skip",
    ]


def test_whole_support_targets_every_ally():
    # 拡散剣 gives 加熱剣 <全体化> (§5). A 20/0/0/2/泡散熱: turn 0: a バブリア, skip. Turn 1: a
    # second バブリア; 散 → 熱 whole. Turn 2: a third; 熱 (whole): every ally ATK 1 (H33).
    r = fight("20/0/0/2/泡散熱", "50/0/0/0/")
    party = after(r, 2)[0]
    assert [(x.name, x.atk) for x in party] == [
        ("バブリア", 1),
        ("バブリア", 1),
        ("バブリア", 1),
        ("A", 1),
    ]
