"""Base Margaret through the ``Ruleset`` interface: registry, record, samples, outcome."""

from __future__ import annotations

import json
import pickle

import pytest

from app.rules import RULESET_MODULES, all_rulesets, find_ruleset
from app.rules.base import Outcome
from app.rules.margaret import BASIC, ENGINE_VERSION, Sword

M = find_ruleset("margaret")()


def test_registered_once_with_its_aliases() -> None:
    cls = find_ruleset("margaret")
    assert cls is find_ruleset("マーガレット") is find_ruleset("MARGARET")
    assert [c.name for c in all_rulesets()][:2] == ["amaryllis", "margaret"]
    assert "app.rules.margaret" in RULESET_MODULES
    assert cls.engine_version == ENGINE_VERSION and not cls.party
    assert pickle.loads(pickle.dumps(M)) == M and M.options == {}
    with pytest.raises(ValueError):
        cls({"pool": "hundred"})


def test_the_record_names_pool_budget_party_and_mp() -> None:
    ja, en = M.describe("ja"), M.describe("en")
    assert "斬 高 重 衝 毒 絶 魔 デ 熱 護 速 盾 鏡 命 回N" in ja[1] and "１０点" in ja[2]
    assert en == [
        "Ruleset: Margaret (15 swords)",
        "pool: the 15 basic swords (斬 高 重 衝 毒 絶 魔 デ 熱 護 速 盾 鏡 命 回N)",
        "budget: 10 points (HP x5, ATK, DEF, SPD, 1 per sword)",
        "one swordmaster a side",
        "MP costs: none",
    ]


def test_the_sword_table_is_data() -> None:
    assert len(BASIC) == 15 and [s.code for s in BASIC][:3] == ["斬", "高", "重"]
    death = BASIC.by_code("死")
    assert death is not None and death.code == "デ" and death.tags == ("遅延6", "リミ")
    kai = BASIC.by_code("回")
    assert kai is not None and kai.param == 1 and kai.start_turn(5) == 5 and kai.start_turn(1) == 1
    assert BASIC.by_code("高").start_turn() == 0 and BASIC.by_code("斬").start_turn() == 1
    assert BASIC.sword_name(Sword("回", 3), "en") == "Heal Sword 3"
    assert BASIC.by_name("ｈｅａｌ ｓｗｏｒｄ ３") == (kai, "3", "en")
    assert [t.text for t in BASIC.read_codes("速回12デ")] == ["速", "回12", "デ"]
    assert {s.kind_id for s in BASIC} == {"attack", "support"}


def test_samples_and_examples_are_valid() -> None:
    samples = [M.parse_sheet(t) for t in M.sample_sheets()]
    assert len(samples) == 20 and all(s.ok for s in samples)
    assert {M.label(s.entry) for s in samples} >= {"あいざわ", "徘徊するライカ", "日路"}
    for lang in ("ja", "en"):
        sheet = M.parse_sheet(M.example_sheet(lang))
        assert sheet.ok and sheet.lang == lang and not sheet.warnings


def test_outcome_round_trips_and_matches_the_json() -> None:
    a = M.parse_sheet("15/0/4/1/斬デ/あいざわ").entry
    b = M.parse_sheet("40/0/0/1/デ/るーしえ君").entry
    r = M.battle(a, b)
    out = M.outcome(r)
    assert (out.winner, out.termination, out.turns, out.by, out.margin) == (
        1,
        "death",
        6,
        "death",
        -40,
    )
    assert Outcome.from_json(json.loads(json.dumps(out.to_json()))) == out
    data = M.result_json(r, events=False)
    assert data["final"]["A"] == [f.to_json() for f in out.final[0]]
    assert out.hp(1) == 40 and out.hp(0) == 0  # the dead one has exited


def test_wrong_entries_are_refused() -> None:
    unit = find_ruleset("amaryllis")().parse_sheet("Wall: 50/0/0/0").entry
    with pytest.raises(TypeError, match="Swordmaster"):
        M.battle(unit, unit)
    with pytest.raises(TypeError, match="BattleResult"):
        M.outcome({"winner": "A"})
