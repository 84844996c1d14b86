"""Hand-derived tests of the control (66-76), addition (77-79), construction (80-99) and
environment (100) swords of ``rules/margaret-hundred.md`` §4.4-§4.7, and the 5 enchantments (§5).
"""

from __future__ import annotations

import pytest

from tests.rules.hundred.helpers import after, fight, kinds, st, statuses

# -- 4.4 control ----------------------------------------------------------------------------


def test_66_limit_sword_gives_limited():
    # 限定剣 <高速><リミ>: turn 0: 加熱剣 gains <リミテッド>; turn 1: ATK 1 and 熱 vanishes; turn 2:
    # nothing left.
    r = fight("10/0/0/1/限熱", "50/0/0/0/")
    assert st(r, 0, 0).enchants == ((0, 0, 0, False, True, 0),)
    assert (st(r, 1, 0).atk, st(r, 1, 0).swords) == (1, ())
    assert st(r, 2, 0).atk == 1


def test_66_limit_sword_on_a_limited_sword_changes_nothing():
    # H44: 高速剣 already has <リミ>: no enchantment is added.
    r = fight("10/0/0/1/限高", "50/0/0/0/")
    assert ("fizzle", 0, 0, "already-limited") in kinds(r, "fizzle")


def test_67_restraint_sword_holds_the_next_sword_while_hp_is_at_least_half():
    # 抑制剣 <高速>: A 10/0/0/2/抑熱護 vs B 30/3/0/1/斬. Every turn 抑 fires first and, while
    # 2·HP ≥ max HP (H43), marks 熱 used, so the second AP goes to 護 (DEF +1, from turn 1).
    # A acts first (SPD 2): turn 1: DEF 1, then B's 3 − 1 = 2 → A 8; turn 2: DEF 2, 1 → A 7;
    # turn 3: DEF 3, 0 → 7. HP never falls below half: ATK stays 0.
    r = fight("10/0/0/2/抑熱護", "30/3/0/1/斬")
    assert [(st(r, t, 0).hp, st(r, t, 0).atk, st(r, t, 0).df) for t in (1, 2, 3)] == [
        (8, 0, 1),
        (7, 0, 2),
        (7, 0, 3),
    ]


def test_67_restraint_lets_the_sword_through_below_half():
    # A 10/0/0/2/抑熱 vs B 30/6/0/3/斬 (B first, SPD 3). Turn 0: B skips 3 times (斬 is not
    # active), A's 抑 holds 熱. Turn 1: B 6 → A 4; then A: 2·4 = 8 < 10, so 抑 holds nothing and
    # 熱 fires: ATK 1. Turn 2: 6 → A −2: B wins.
    r = fight("10/0/0/2/抑熱", "30/6/0/3/斬")
    assert (st(r, 0, 0).atk, st(r, 1, 0).hp, st(r, 1, 0).atk) == (0, 4, 1)
    assert ("fizzle", 0, 0, "hp-below-half") in kinds(r, "fizzle")
    assert (r.winner, r.turns) == (1, 2)


def test_68_delay_sword_holds_the_next_sword_until_its_period_ends():
    # 遅延剣.2 <高速><ピリ2>: turns 0-2: 熱 held, 護 fires from turn 1 (DEF 1, 2); at the end of
    # turn 2 the period sword vanishes (x ≤ T). Turn 3: 熱 (ATK 1), 護 (DEF 3).
    r = fight("10/0/0/2/遅.2熱護", "50/0/0/0/")
    assert [(st(r, t, 0).atk, st(r, t, 0).df) for t in (0, 1, 2, 3)] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 3),
    ]
    assert st(r, 2, 0).swords == ("熱", "護")
    assert ("sword", 0, 0, "expired", "遅.2", None) in kinds(r, "sword")


def test_69_sheathe_sword_removes_the_next_sword():
    # 収鞘剣0 <遅延0><リミ>: turn 0: 熱 vanishes; nothing is left.
    r = fight("10/0/0/1/鞘0熱", "50/0/0/0/")
    assert st(r, 0, 0).swords == () and st(r, 5, 0).atk == 0


def test_70_guide_sword_gives_early_activation():
    # 導来剣0: 加熱剣 is usable 1 turn earlier: turn 0 (SPD 2): 導, then 熱 → ATK 1.
    r = fight("10/0/0/2/導0熱", "50/0/0/0/")
    assert st(r, 0, 0).atk == 1
    assert st(r, 0, 0).enchants == ((0, 0, 0, False, False, 1),)


def test_70_guide_sword_aims_at_the_next_position_and_floors_at_turn_0():
    # H10: the first 導0's next sword is the second 導0 (activation 0 − 1 floors at 0, §5); that
    # one then brings 熱 to turn 0: turn 0 (SPD 3): 導, 導, 熱 → ATK 1.
    r = fight("10/0/0/3/導0導0熱", "50/0/0/0/")
    assert st(r, 0, 0).atk == 1
    assert [e[4] for e in kinds(r, "sword") if e[3] == "enchanted"] == ["導0", "熱"]
    # <早期起動> on 高速剣 (activation 0) keeps it at turn 0
    r = fight("10/1/0/2/導0高", "50/0/0/0/")
    assert st(r, 0, 1).hp == 49


def test_71_vibration_sword_gives_stun_to_an_attack():
    # 振動剣 <リミ>: A 10/2/0/2/振斬 vs B 30/0/0/1/熱. Turn 1: A (SPD 2) first: 斬 gains <スタン与え>,
    # then 斬 2 → B 28 + Stun; B's action is a stunned skip: ATK stays 0.
    r = fight("10/2/0/2/振斬", "30/0/0/1/熱")
    assert (st(r, 1, 1).hp, st(r, 1, 1).atk, statuses(st(r, 1, 1))) == (28, 0, {})
    assert st(r, 2, 1).atk == 0  # stunned again in turn 2


def test_71_vibration_sword_on_a_support_does_nothing():
    r = fight("10/0/0/1/振熱", "50/0/0/0/")
    assert ("fizzle", 0, 0, "wrong-kind") in kinds(r, "fizzle")


def test_72_toxin_sword_gives_poison_to_an_attack():
    # 毒薬剣: 斬 gains <毒与え>: turn 1: 2 → B 28 + Poison; turn 2: Poison 1 → 27, 斬 → 25 + Poison.
    r = fight("10/2/0/2/薬斬", "30/0/0/0/")
    assert (st(r, 1, 1).hp, statuses(st(r, 1, 1))) == (28, {"poison": 1})
    assert (st(r, 2, 1).hp, statuses(st(r, 2, 1))) == (25, {"poison": 2})


def test_73_spread_sword_makes_an_attack_whole():
    # 拡散剣: A 10/2/0/2/散斬 vs B 20/0/0/1/泡: turn 0: B builds a バブリア. Turn 1: A first: 斬
    # gains <全体化>; 斬 hits every enemy front to back: bubble 3, B 18; then B builds.
    r = fight("10/2/0/2/散斬", "20/0/0/1/泡")
    assert [x.hp for x in after(r, 1)[1]] == [5, 3, 18]


def test_74_training_sword_turns_slash_into_heavy():
    # 鍛錬剣 <遅延4><リミ>: A 10/1/0/2/鍛斬斬 vs B 50/0/0/0. Turns 1-3: 鍛 is not active: the two
    # 斬 deal 1 each: B 48, 46, 44. Turn 4: 鍛 → both 斬 become 重 (unused, as they were, §9);
    # the second AP is the first 重 (activation 4): 1×2 − 0 = 2 → B 42.
    r = fight("10/1/0/2/鍛斬斬", "50/0/0/0/")
    assert st(r, 3, 1).hp == 44
    assert (st(r, 4, 0).swords, st(r, 4, 1).hp) == (("重", "重"), 42)


def test_75_return_sword_makes_every_sword_unused():
    # 再来剣1 <遅延1><リミ>: A 10/0/0/3/熱再1: turn 1: 熱 (ATK 1), 再 (all unused), 熱 (ATK 2).
    r = fight("10/0/0/3/熱再1", "50/0/0/0/")
    assert st(r, 1, 0).atk == 2 and st(r, 2, 0).atk == 3


def test_76_resonance_sword_makes_every_sword_the_same_as_the_next():
    # 共鳴剣0 <遅延0><リミ>: turn 0: every own sword (鳴 has vanished at its cost step, H42)
    # becomes the same as the next sword, 熱: (熱, 熱, 熱).
    r = fight("10/0/0/1/鳴0熱斬護", "50/0/0/0/")
    assert st(r, 0, 0).swords == ("熱", "熱", "熱")


def test_76_resonance_copies_enchantments_of_the_reference():
    # H41: "the same" takes the enchantments. A 10/0/0/2/鳴1導0熱斬. Turn 0: 鳴1 is not active;
    # 導0 gives 熱 <早期起動> and vanishes: [鳴1, 熱, 斬]; 熱 (now turn 0) → ATK 1.
    # Turn 1: 鳴1: sub-target = its next sword, 熱; 斬 becomes a 熱 with <早期起動> too; then the
    # first 熱 (unused) → ATK 2.
    r = fight("10/0/0/2/鳴1導0熱斬", "50/0/0/0/")
    assert st(r, 0, 0).atk == 1
    s = st(r, 1, 0)
    assert (s.swords, s.atk) == (("熱", "熱"), 2)
    assert [(e[0], e[5]) for e in s.enchants] == [(0, 1), (1, 1)]


def test_76_resonance_at_the_end_of_the_list_changes_nothing():
    # H10: no next sword, no sub-target: the effect vanishes (§8.6). 熱 is not active in turn 0,
    # so 共鳴剣0 fires first.
    r = fight("10/0/0/1/熱鳴0", "50/0/0/0/")
    assert st(r, 0, 0).swords == ("熱",)
    assert ("fizzle", 0, 0, "no-target") in kinds(r, "fizzle")


# -- 4.5 addition ---------------------------------------------------------------------------


def test_77_fiction_sword_adds_a_null_sword():
    # 虚構剣: turn 1: ヌル剣 added at the end: (虚, ヌ); turn 2 (SPD 1): 虚 again: (虚, ヌ, ヌ).
    r = fight("10/0/0/1/虚", "50/0/0/0/")
    assert st(r, 1, 0).swords == ("虚", "ヌ") and st(r, 2, 0).swords == ("虚", "ヌ", "ヌ")


def test_78_replica_sword_copies_the_enemy_fronts_first_sword():
    # 複製剣 <リミ>: a copy of B's first sword (熱) at the end of A's list.
    r = fight("10/0/0/1/複", "50/0/0/0/熱")
    assert st(r, 1, 0).swords == ("熱",)


def test_78_two_replicas_read_before_either_adds():
    # §8.10: super-simultaneous 複製剣 read the enemy's front sword before either addition:
    # A 複熱 vs B 複護: both pay (複 vanishes) then A copies 護, B copies 熱.
    r = fight("10/0/0/1/複熱", "10/0/0/1/複護")
    assert (st(r, 1, 0).swords, st(r, 1, 1).swords) == (("熱", "護"), ("護", "熱"))


def test_79_multiply_sword_copies_the_next_sword():
    r = fight("10/0/0/1/増熱", "50/0/0/0/")
    assert st(r, 1, 0).swords == ("増", "熱", "熱")


# -- 4.6 construction -----------------------------------------------------------------------

# code -> (name, HP, ATK, DEF, SPD, swords after its own turn-0 actions): a swordmaster built in
# turn 0 holds AP = SPD and acts with the swords usable then (H49, H51); its own builds fail (永絶).
BUILT = {
    "泡": ("バブリア", 5, 0, 0, 0, ()),
    "精": ("ウィスプ", 5, 0, 0, 1, ("精", "詠")),
    "胎": ("マトリョックス", 15, 0, 0, 1, ("黙",)),
    "鋸": ("デスエリーナ", 5, 0, 0, 3, ("速", "護", "護", "衝", "衝", "デ")),
    "沢": ("あいざわ", 15, 0, 4, 1, ("斬", "デ")),
    "紫": ("紫電", 5, 0, 0, 4, ("速", "衝", "熱", "衝", "熱")),
    "蘭": ("無考オランダ", 5, 3, 0, 3, ("デ", "デ", "デ")),
    "従": ("しゃるる", 5, 3, 0, 2, ("毒", "毒")),
    "脚": ("るーしえ君", 40, 0, 0, 1, ("デ",)),
    "狗": ("徘徊するライカ", 15, 0, 1, 2, ("速", "熱", "衝", "絶")),
    "ｺｳ": ("コウ", 5, 5, 0, 2, ()),
    "吉": ("武本吉宏", 10, 0, 0, 3, ("速", "熱", "熱", "熱", "重")),
    "聖": ("ゾアラ", 15, 0, 0, 3, ("速", "護", "熱", "熱", "重")),
    "撃": ("撃鉄", 10, 0, 0, 4, ("詠", "爆", "詠", "爆")),
    "鶏": ("撃鉄Act.6", 55, 0, 3, 6, ("黙", "黙", "抑", "滅", "遅.19", "滅")),
    "怪": ("メテオラ", 10, 5, 3, 2, ("斬", "斬")),
    "歪": ("司闇", 10, 0, 0, 2, ("黙", "黙", "デ", "詠", "膜")),
    "龍": ("ドラゴン", 30, 0, 6, 4, ("熱", "斬", "熱", "斬")),
}


@pytest.mark.parametrize("code", list(BUILT))
def test_82_to_99_build_swords_build_their_printed_swordmaster(code):
    # A 10/0/0/1/<code> builds in turn 0 (base-registered swordmasters may, H49); the new one
    # stands at the front (§6) with the spec's values (H51), built as printed even when the spec
    # is over 10 points (§3.1).
    name, hp, atk, df, spd, swords = BUILT[code]
    r = fight(f"10/0/0/1/{code}", "50/0/0/0/")
    new, me = after(r, 0)[0][:2]
    assert (new.name, new.max_hp, new.atk, new.df, new.spd, new.swords) == (
        name,
        hp,
        atk,
        df,
        spd,
        swords,
    )
    assert new.hp == hp and not new.base and me.name == "A"


def test_92_kou_and_89_sharuru_act_in_the_turn_they_are_built():
    # コウ 5/5/0/2/高高: AP 2 at once (§6): two 高速剣 in turn 0: 5 + 5 → B 40. しゃるる: 3 + 3.
    assert st(fight("10/0/0/1/ｺｳ", "50/0/0/0/"), 0, 1).hp == 40
    assert st(fight("10/0/0/1/従", "50/0/0/0/"), 0, 1).hp == 44


def test_80_echo_sword_builds_the_own_registered_spec():
    # 残響剣: a copy of A as registered (10/0/0/1/残); it acts in turn 0 and its own 残響剣 fails
    # (永絶, built this turn) and vanishes (H50).
    r = fight("10/0/0/1/残", "50/0/0/0/")
    party = after(r, 0)[0]
    assert [(x.name, x.swords, x.base) for x in party] == [("A", (), False), ("A", (), True)]
    assert ("nobuild", 0, 1, "eternal") in kinds(r, "nobuild")


def test_81_reverb_sword_builds_the_enemys_registered_spec():
    # 反響剣: a copy of B (20/3/0/0/斬) joins A's party at the front; it is A's now: its 斬 (SPD 0
    # means it never acts, but it is A's front: B's attacks would meet it first).
    r = fight("10/0/0/1/反", "20/3/0/0/斬")
    party = after(r, 0)[0]
    assert [(x.name, x.hp, x.atk, x.swords) for x in party] == [
        ("B", 20, 3, ("斬",)),
        ("A", 10, 0, ()),
    ]


def test_83_spirit_sword_doubles_the_party_until_the_cap():
    # H53 with the default cap of 8: 2, 4, 8 members after turns 0, 1, 2: in turn 1 the two (SPD
    # 1, equal) build in one procedure; the new wisps fail (永絶). In turn 3 every build fails:
    # "party full".
    r = fight("10/0/0/1/精", "50/0/0/0/")
    assert [len(after(r, t)[0]) for t in (0, 1, 2, 3)] == [2, 4, 8, 8]
    assert any(e[3] == "full" for e in kinds(r, "nobuild"))


def test_83_the_party_cap_is_a_league_option():
    r = fight("10/0/0/1/精", "50/0/0/0/", party_cap=3)
    assert [len(after(r, t)[0]) for t in (0, 1, 2)] == [2, 3, 3]


# -- 4.7 environment ------------------------------------------------------------------------


def test_100_years_sword_raises_the_turn_number():
    # 星霜剣 (from turn 1): every turn cycle starts at T, ends at T + 1 and the next is T + 2: T
    # after turn cycle k is 2k; the end of the cycle with T = 20 ends the battle (T ≥ 20, H6).
    r = fight("10/0/0/1/星", "50/0/0/0/")
    ends = [e[1] for e in r.events if e[0] == "end"]
    assert ends[:3] == [0, 2, 4] and ends[-1] == 20
    assert (r.turns, r.where, r.winner) == (20, "turn-end", 1)


def test_100_years_sword_pushes_the_turn_past_20():
    # Two 星霜剣 (SPD 2): cycle k (k ≥ 1) starts at 3k − 2 and ends at 3k; cycle 7 starts at 19:
    # the first 星 makes 20, the second 21, and the settlement after it sees T > 20: the battle
    # ends there with turns 21 (§8.4, H6).
    r = fight("10/0/0/2/星星", "50/0/0/0/")
    assert (r.turns, r.where, r.by) == (21, "settlement", "hp")


# -- enchantments (§5) --------------------------------------------------------------------------


def test_stun_enchantments_stack_and_are_copied():
    # §5: <スタン与え> stacks; a copy takes the reference's enchantments (§9, H41).
    # A 10/2/0/3/増振斬 vs B 50/0/0/0 (B never acts, so its Stuns pile up).
    # Turn 1: 増 copies its next (振) to the end: [増, 振, 斬, 振']; 振 gives 斬 <スタン与え> and
    #   vanishes: [増, 斬, 振']; 斬 hits: 2 → B 48 + 1 Stun.
    # Turn 2: 増 copies 斬 with its enchantment: [増, 斬, 振', 斬']; 斬 → B 46 + 1 Stun; 振' gives
    #   斬' a second <スタン与え>: [増, 斬(1), 斬'(2)].
    r = fight("10/2/0/3/増振斬", "50/0/0/0/")
    s = st(r, 2, 0)
    assert s.swords == ("増", "斬", "斬")
    assert [(e[0], e[1]) for e in s.enchants] == [(1, 1), (2, 2)]
    assert (st(r, 2, 1).hp, statuses(st(r, 2, 1))) == (46, {"stun": 2})


def test_builtin_rider_comes_with_the_enchantment_riders():
    # H32: 衝撃剣's own Stun plus its <スタン与え>: 2 Stuns per hit. A 10/2/0/1/振衝: turn 1: 振
    # enchants 衝; turn 2: 衝 2 → B 48 + 2 Stuns.
    r = fight("10/2/0/1/振衝", "50/0/0/0/")
    assert (st(r, 2, 1).hp, statuses(st(r, 2, 1))) == (48, {"stun": 2})
