"""Rulings of ``rules/margaret-magicalized.md`` that the golden battles do not show, each derived
by hand in its test (the numbers are worked out from the rules, not copied from the engine), and
the interface of the ruleset (checkpoints, the lead draw, the public/private split)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from app.reports.battle import render_report
from app.rules.base import BattleInputs
from app.rules.magicalized.deciders import Scripted, StandingOrders
from app.rules.magicalized.engine import IllegalPlay, PublicState, WindowView
from app.rules.magicalized.events import describe
from app.rules.magicalized.orders import parse_orders, read_play
from app.rules.magicalized.plays import Play, SideOrders
from app.rules.magicalized.ruleset import MargaretMagicalized, lead_draw

RS = MargaretMagicalized()


def sheet(text: str) -> Any:
    s = RS.parse_sheet(text)
    assert s.ok, s.problems
    return s.entry


def orders(text: str) -> SideOrders:
    r = parse_orders(text)
    assert r.ok and r.orders is not None, [(p.code, p.line, p.message) for p in r.problems]
    o = r.orders.offline()
    assert o is not None
    return o


def fight(
    a: str,
    b: str,
    oa: str | None = None,
    ob: str | None = None,
    lead: int = 0,
    stop: int | None = None,
) -> Any:
    return RS.fight(
        sheet(a),
        sheet(b),
        BattleInputs((orders(oa) if oa else None, orders(ob) if ob else None), lead, stop),
    )


def lines(r: Any) -> list[str]:
    return [x for e in r.events for x in describe(e)]


def after(ls: list[str], *wanted: str) -> None:
    """``wanted`` appear in ``ls`` in this order."""
    at = 0
    for w in wanted:
        assert w in ls[at:], f"{w!r} not found after line {at}:\n" + "\n".join(ls[at : at + 20])
        at = ls.index(w, at) + 1


class Probe:
    """A decider that records every opportunity (window kind, leader, turn) and, at the first
    one where ``when`` holds, answers ``play`` (or records the legality reason of ``play``)."""

    passive = False

    def __init__(self, play: str | None = None, when: Any = None) -> None:
        self.play = read_play(play) if play else None
        self.when = when or (lambda w, s: True)
        self.seen: list[tuple[str, int, int]] = []
        self.reasons: list[str | None] = []
        self.done = False

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        self.seen.append((window.kind, window.leader, state.turn))
        if self.play is None or self.done or not self.when(window, state):
            return None
        reason = state.legality(self.play, side, window, hand)
        self.reasons.append(reason)
        if reason is None:
            self.done = True
            return Play(self.play)
        return None


# -- G28: 導来剣 with no next sword has no effect and no window ------------------------------------


def test_guide_sword_at_the_end_of_the_list_opens_no_effect_window() -> None:
    # A 10/0/0/1/斬導: turn 0: 斬 (from turn 1) is not executable, 導 (<高速>) is: ACT window,
    # VANISH window (<リミ>), no next sword: no EFFECT window. 2 windows passed in turn 0.
    r = fight("10/0/0/1/斬導/A", "10/0/0/0//B", "HAND 燃×7\nORDERS\nON any HIT PLAY 燃\nEND")
    after(lines(r), "turn 0", "A act 導", "A 導 vanishes", "A fizzle no-target", "passed 2")


# -- G47: <早期起動> on a <危殆> sword --------------------------------------------------------------


def test_early_activation_does_not_lift_critical() -> None:
    # A 10/0/0/2/導回 (SPD 2): turn 0: 導 gives 回 <早期起動> (active from turn 0), but A is not
    # critical (20 > 10): the second AP whiffs. B 5/5/0/1/斬 hits 5 in turn 1 (A whiffs twice,
    # still 20 > 10 before B acts... A acts first: whiffs). Turn 2: A at 5: 2 x 5 <= 10: 回 fires.
    r = fight("10/0/0/2/導回/A", "5/5/0/1/斬/B")
    after(
        lines(r),
        "turn 0",
        "A act 導",
        "A 回 early",
        "A skip none",
        "turn 1",
        "A skip none",
        "A skip none",
        "hit A by 斬 raw 5 damage 5 hp 5",
        "turn 2",
        "A act 回",
        "A hp 10",
    )


# -- G50: halving negative damage floors -------------------------------------------------------


def test_shield_halves_negative_damage_down() -> None:
    # A 5/0/0/1/斬 against B 5/0/3/1/盾: turn 1 is simultaneous: the support first (Shield),
    # then 斬: 0 - 3 = -3, Shield: floor(-3/2) = -2: the hit fails, B keeps 5.
    r = fight("5/0/0/1/斬/A", "5/0/3/1/盾/B")
    after(lines(r), "turn 1", "B gains Shield 1", "hit B by 斬 raw -3 shield damage -2 fails hp 5")


# -- G49: a reflected attack landing on its own executor -----------------------------------------


def test_this_of_a_reflected_attack_belongs_to_its_executor() -> None:
    # B 10/0/0/2/鏡 (acts first) gains Reflect in turn 2; A's 斬 goes back to A: the HIT window is
    # on A ("my HIT") and THIS is A's own 斬 ("my THIS"): 無 my THIS is legal and resolves.
    r = fight("5/1/0/1/斬/A", "10/0/0/2/鏡/B", "HAND 無×7\nORDERS\nON my HIT PLAY 無 my THIS\nEND")
    assert [c.to_json() for c in r.cards] == [
        {
            "turn": 2,
            "side": "A",
            "card": "無",
            "args": "無 my THIS",
            "window": "HIT",
            "result": "resolved",
        }
    ]
    after(
        lines(r),
        "turn 2",
        "B gains Reflect 1",
        "A act 斬",
        "B reflects to A",
        "A plays 無 my THIS (HIT)",
        "hit A by 斬 raw 1 damage 1 hp 4",
    )


# -- G29, G30, G41, G46: legality of 覆, 策 and the arguments -------------------------------------


def test_spilt_water_returns_is_legal_only_above_a_pending_vanishing() -> None:
    # A 10/3/0/1/毒: 毒's VANISH window in turn 1 (empty stack): legal. In its HIT window: not.
    hit = Probe("覆", lambda w, s: w.kind == "HIT")
    RS.fight_with(sheet("10/3/0/1/毒/A"), sheet("10/0/0/0//B"), (("覆",) * 7, ()), (hit, None))
    assert hit.reasons[0] == "no pending vanishing"
    vanish = Probe("覆", lambda w, s: w.kind == "VANISH")
    r = RS.fight_with(
        sheet("10/3/0/1/毒/A"), sheet("10/0/0/0//B"), (("覆",) * 7, ()), (vanish, None)
    )
    assert vanish.reasons == [None] and r.cards[0].window == "VANISH"


def test_a_countered_card_is_not_used_and_countermeasure_cannot_name_it() -> None:
    # The battle of golden 06, with B also holding 策 and a rule to ban A's 覆 only once A has
    # used it, and A holding 策 for B's 無 (countered: not used, G30): A's 策 rule is skipped.
    a = "HAND 覆×6、策\nORDERS\nON enemy CARD 無 PLAY 覆\nON any ACT PLAY 策 enemy 無\nEND"
    b = "HAND 無×6、策\nORDERS\nON enemy ACT 斬 PLAY 無 enemy THIS ONCE\nON any ACT PLAY 策 enemy 覆\nEND"
    r = fight("5/3/0/1/斬/A", "10/1/0/1/斬/B", a, b)
    data = RS.result_json(r)
    trace_a = [t["outcome"] for t in data["private"]["A"]["trace"] if t["rule"] == 2]
    assert "kind not used by that player" in trace_a and all(o != "fired" for o in trace_a)
    # B's 策 on 覆 is legal once A's 覆 has resolved: B leads again on the emptied stack of the
    # same ACT window (turn 1) and its rule 2 fires there
    assert [c.card for c in r.cards] == ["無", "覆", "策"]
    assert r.cards[2].turn == 1 and r.cards[2].window == "ACT" and r.bans == (("覆",), ())


def test_countermeasure_may_name_its_own_player_and_itself() -> None:
    # A 5/3/0/1/斬: turn 1 ACT window: 燃 (rule 1) resolves; then 策 my 燃 (rule 2: A has used 燃)
    # resolves at once; then 策 my 策 (rule 3: 策 is now used by A). A is banned from both.
    a = (
        "HAND 燃×3、策×4\nORDERS\nON my ACT PLAY 燃 ONCE\nON my ACT PLAY 策 my 燃 ONCE\n"
        "ON my ACT PLAY 策 my 策 ONCE\nON my HIT PLAY 燃\nEND"
    )
    r = fight("5/3/0/1/斬/A", "50/0/0/0//B", a)
    assert [(c.card, c.args, c.result) for c in r.cards] == [
        ("燃", "燃", "resolved"),
        ("策", "策 my 燃", "resolved"),
        ("策", "策 my 策", "resolved"),
    ]
    assert r.bans == (("燃", "策"), ())


@pytest.mark.parametrize(
    ("play", "reason"),
    [
        ("闇 my 速 unseen", "not an attack sword"),
        ("赤 my 斬 AT 5", "position beyond n+1"),
        ("赤 my 斬 AT BEFORE enemy @1", "not a sword of the receiver"),
        ("黄 DISCARD 凍 my 滅 AT END", "discard not in hand"),
        ("心 my ORDER 斬 斬", "more copies named than present"),
        ("払 enemy Reflect", "holds none of those statuses"),
        ("策 enemy 燃", "kind not used by that player"),
        ("無 enemy @9", "no such sword"),
        ("無 my THIS", "no such sword"),
        ("知 my", "not in hand"),
    ],
)
def test_illegal_arguments_are_refused_at_play(play: str, reason: str) -> None:
    # A 10/1/0/1/斬速 in its first ACT window (turn 0: a whiff predicted, so no THIS); hand: the
    # cards named, one 燃, no 知 or 凍.
    p = Probe(play)
    hand = ("闇", "赤", "黄", "燃", "心", "払", "策", "無")
    RS.fight_with(sheet("10/1/0/1/斬速/A"), sheet("10/0/0/1/斬/B"), (hand, ()), (p, None))
    assert p.reasons[0] == reason


def test_a_decider_that_plays_an_illegal_card_is_an_error() -> None:
    with pytest.raises(IllegalPlay):
        RS.fight_with(
            sheet("5/3/0/1/斬/A"),
            sheet("5/0/0/0//B"),
            (("燃",) * 7, ()),
            (Scripted([read_play("凍")]), None),
        )


# -- G31, G32, G33: 払 counts, 軌跡 positions at resolution, 心 instances ----------------------------


def test_dispel_counts() -> None:
    # A 20/0/0/1 with no sword, B 10/3/0/1/衝 (simultaneous actions). Turn 2: 衝 → A 17 and
    # Stun 1. Turn 3: A's actor holds Stun: ON my ACT STUN PLAY 払 my Stun (a bare status
    # removes 1, G31): the Stun is gone before step 1, A whiffs instead of a stunned skip.
    # A does so every turn until it dies in turn 8 (17, 14, 11, 8, 5, 2, -1): 6 cards.
    r = fight(
        "20/0/0/1//A", "10/3/0/1/衝/B", "HAND 払×7\nORDERS\nON my ACT STUN PLAY 払 my Stun\nEND"
    )
    ls = lines(r)
    assert "A skip stun" not in ls and r.turns == 8
    assert [(c.turn, c.window, c.result) for c in r.cards] == [
        (t, "ACT", "resolved") for t in range(3, 9)
    ]


def test_trail_position_is_checked_at_resolution() -> None:
    # A plays 赤 enemy 斬 AT 2 in B's first ACT window of turn 1 (B holds one sword: n + 1 = 2 is
    # legal); B answers on it with 無 my 斬 (its only sword): at resolution B holds none, position
    # 2 > 0 + 1: target gone, nothing added (G32: no clamping).
    a = "HAND 赤×7\nORDERS\nON enemy ACT 斬 PLAY 赤 enemy 斬 AT 2 ONCE\nEND"
    b = "HAND 無×7\nORDERS\nON enemy CARD 赤 PLAY 無 my 斬\nEND"
    r = fight("10/0/0/1//A", "10/1/0/2/斬/B", a, b)
    assert [(c.card, c.result) for c in r.cards] == [("赤", "target gone"), ("無", "resolved")]
    assert r.final[1].swords == ()


def test_mindset_names_instances_and_keeps_the_rest_in_order() -> None:
    # A 10/0/0/1/熱護速熱: 心 my ORDER 熱 速 熱 in turn 1's ACT window: the first 熱, 速, the
    # second 熱, then 護: [熱, 速, 熱, 護] (G33).
    r = fight(
        "10/0/0/1/熱護速熱/A",
        "10/0/0/0//B",
        "HAND 心×7\nORDERS\nON my ACT IF turn = 1 PLAY 心 my ORDER 熱 速 熱\nEND",
    )
    assert r.final[0].swords == ("熱", "速", "熱", "護")


# -- G35, G36, G37, G39, G42 ----------------------------------------------------------------------


def test_targets_of_an_act_item_is_the_predicted_swords_target() -> None:
    # B's predicted sword is an attack: `targets my` holds for A in B's ACT window (G35).
    r = fight(
        "10/0/0/1//A",
        "10/1/0/2/斬/B",
        "HAND 愛×7\nORDERS\nON enemy ACT IF targets my PLAY 愛 enemy ONCE\nEND",
    )
    assert r.cards[0].turn == 1 and r.cards[0].args == "愛 enemy"


def test_lead_is_true_for_the_windows_leader() -> None:
    # Both SPD 1, lead A: A leads the simultaneous windows of even turns only (G20, G36).
    r = fight(
        "10/1/0/1/斬/A", "10/1/0/1/斬/B", "HAND 燃×7\nORDERS\nON any HIT IF lead PLAY 燃 ONCE\nEND"
    )
    assert r.cards[0].turn == 2  # turn 0 has no hit; turn 1 is led by B


def test_simultaneous_deaths_open_their_death_windows_leader_first() -> None:
    # Both 5/5/0/1/斬: turn 1 (led by B): both hits, then both deaths, each with a DEATH window,
    # B's attack's (on A) first (G37); both windows are led by B (G18).
    pa, pb = Probe(), Probe()
    r = RS.fight_with(sheet("5/5/0/1/斬/A"), sheet("5/5/0/1/斬/B"), (("燃",), ("燃",)), (pa, pb))
    deaths = [(k, lead) for k, lead, t in pa.seen if k == "DEATH"]
    assert deaths == [("DEATH", 1), ("DEATH", 1)]
    after(lines(r), "turn 1", "simultaneous lead B", "A dies hp 0", "B dies hp 0")
    assert (r.reason, r.by) == ("draw", "overkill")


def test_scroll_of_years_inside_a_simultaneous_action_keeps_its_leader() -> None:
    # Both SPD 1, lead A. Turn 2 (A leads): A plays 星 in the ACT window: T = 3, but the rest of
    # the action (its HIT windows) is still led by A (G39).
    pa = Probe("星", lambda w, s: s.turn == 2 and w.kind == "ACT")
    RS.fight_with(sheet("10/1/0/1/斬/A"), sheet("10/1/0/1/斬/B"), (("星", "燃"), ()), (pa, None))
    after_star = [(k, lead, t) for k, lead, t in pa.seen if t == 3]
    # the rest of the ACT window, then both HIT windows: all still led by A in (odd) turn 3
    assert after_star[:3] == [("ACT", 0, 3), ("HIT", 0, 3), ("HIT", 0, 3)]


def test_act_prediction_is_reread_after_a_card_resolves() -> None:
    # A 5/1/0/1/死斬 vs B: in turn 6 both B's rules look at A's predicted デス剣. Rule 1 plays 無 on
    # it; after it resolves A's prediction is 斬, so rule 2 (ON enemy ACT 死 PLAY 凍) no longer
    # matches in that window (G42).
    b = "HAND 無、凍×6\nORDERS\nON enemy ACT 死 PLAY 無 enemy THIS\nON enemy ACT 死 PLAY 凍\nEND"
    r = fight("5/1/0/1/死斬/A", "30/0/0/1/熱/B", None, b)
    assert [(c.turn, c.card) for c in r.cards][:1] == [(6, "無")]
    assert all(c.card != "凍" for c in r.cards if c.turn == 6)


# -- checkpoints (§3.2, G53), the lead draw (G20), the public/private split (§4.4) ---------------


A_ORDERS = (
    "HAND 燃×4、凍×3\nORDERS\nON enemy HIT IF damage >= 2 PLAY 燃\nON my HIT PLAY 凍 ONCE\nEND"
)


def test_a_checkpoint_stops_the_battle_and_the_replay_is_the_same_battle() -> None:
    full = fight("10/2/0/1/斬/A", "15/1/0/1/斬/B", A_ORDERS)
    stop = fight("10/2/0/1/斬/A", "15/1/0/1/斬/B", A_ORDERS, stop=2)
    assert RS.checkpoint(stop) == 2 and RS.checkpoint(full) is None
    assert stop.events == full.events[: len(stop.events)]
    with pytest.raises(ValueError):
        RS.outcome(stop)
    data = RS.public_json(stop)
    assert data["reason"] == "checkpoint" and data["winner"] is None and data["checkpoint"] == 2
    assert "hands" not in data and data["hand_sizes"]["A"] == 7 - sum(
        1 for c in stop.cards if c.side == 0
    )
    report = RS.report(sheet("10/2/0/1/斬/A"), sheet("15/1/0/1/斬/B"), stop, lang="en")
    assert report.checkpoint == 2 and "checkpoint" in report.verdict
    assert "Result" not in render_report(report)
    # a revision from turn 3 replays turns 0-2 unchanged (G53)
    base = orders(A_ORDERS)
    revised = RS.revise_orders(base, "ORDERS FROM TURN 3\nON enemy HIT PLAY 燃\nEND", from_turn=3)
    assert revised.ok
    again = RS.fight(
        sheet("10/2/0/1/斬/A"), sheet("15/1/0/1/斬/B"), BattleInputs((revised.orders, None))
    )
    assert again.events[: len(stop.events) - 1] == stop.events[:-1]


def test_lead_draw_follows_g20() -> None:
    for seed, a, b in (("", "a", "b"), ("league-7", "ミラ", "ヤミ"), ("x", "b", "a")):
        first = hashlib.sha256(f"magicalized-lead:{seed}:{a}:{b}".encode()).digest()[0]
        assert lead_draw(seed, a, b) == RS.lead_draw(seed, a, b) == (0 if first % 2 == 0 else 1)
    assert {RS.lead_draw(str(i), "a", "b") for i in range(20)} == {0, 1}


def test_public_and_private_parts() -> None:
    a, b = sheet("10/2/0/1/斬/A"), sheet("15/1/0/1/斬/B")
    r = RS.fight(a, b, BattleInputs((orders(A_ORDERS), None), 1))
    data = RS.result_json(r)
    assert set(data) == {"public", "private"} and set(data["private"]) == {"A", "B"}
    pub = RS.public_json(r, events=False)
    assert {"winner", "reason", "turns", "final", "by", "cards", "hands", "bans", "lead"} <= set(
        pub
    )
    assert pub["lead"] == "B" and "trace" not in json.dumps(pub)
    priv = data["private"]["A"]
    assert priv["hand"] == pub["hands"]["A"]
    assert any(t["outcome"] == "fired" for t in priv["trace"])
    assert data["private"]["B"] == {"hand": [], "trace": [], "omitted": 0}
    public = RS.report(a, b, r, lang="ja")
    mine = RS.report_for(a, b, r, lang="ja", side=0)
    theirs = RS.report_for(a, b, r, lang="ja", side=1)
    assert public.private == () and [p.side for p in mine.private] == [0]
    assert mine.public() == public and mine.for_side(1).private == ()
    assert any("規則" in line for line in mine.private[0].lines)
    text = render_report(mine)
    assert mine.private[0].title in text and mine.private[0].lines[0] in text
    assert theirs.private[0].lines[0] == "残りの手札：なし"
    hidden = MargaretMagicalized({"reveal_hands": False})
    assert "hands" not in hidden.public_json(r)


def test_options() -> None:
    assert RS.options == {"checkpoints": "none", "reveal_hands": True}
    every = MargaretMagicalized({"checkpoints": "every"})
    assert every.checkpoint_turns() == tuple(range(20))
    some = MargaretMagicalized({"checkpoints": [10, 5], "reveal-hands": "no"})
    assert some.checkpoint_turns() == (5, 10) and some.options["reveal_hands"] is False
    for bad in (
        {"checkpoints": [25]},
        {"checkpoints": "often"},
        {"reveal_hands": "maybe"},
        {"budget": 12},
    ):
        with pytest.raises(ValueError):
            MargaretMagicalized(bad)


def test_standing_orders_trace_names_why_rules_were_skipped() -> None:
    so = StandingOrders(
        orders(
            "HAND 燃×7\nORDERS\nON enemy HIT IF damage >= 99 PLAY 燃\n"
            "ON enemy HIT PLAY 燃 ONCE\nEND"
        )
    )
    RS.fight_with(sheet("5/3/0/1/斬/A"), sheet("10/0/0/0//B"), (("燃",) * 7, ()), (so, None))
    outcomes = [t[5] for t in so.trace]
    assert "condition 1" in outcomes and "fired" in outcomes and "ONCE" in outcomes
