"""Properties of base Margaret over generated legal swordmasters (``rules/margaret.md`` §4.3, M6):
the battle of a swordmaster written in either notation is the battle of the same swordmaster
written as an Amaryllis sheet; sheets round-trip in both notations; battles are mirror-symmetric;
nothing raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import find_ruleset
from app.rules.amaryllis.events import Reason
from app.rules.base import TERMINATIONS
from app.rules.margaret import BASIC, Swordmaster
from app.rules.margaret.notation import format_swordmaster
from tests.rules.margaret.strategies import swordmasters
from tests.rules.test_engine_properties import SWAP, canonical, mirror

M = find_ruleset("margaret")()
A = find_ruleset("amaryllis")()
ZEN = str.maketrans("0123456789", "０１２３４５６７８９")

# rules/margaret.md §2.2, the Amaryllis column, as text (what a player mails, §4.3)
AMARYLLIS_DEFINITION = {
    "斬": "直接攻撃",
    "高": "直接攻撃＜高速起動＞＜リミテッド＞",
    "重": "直接攻撃＜遅延起動４＞＜効果２倍＞",
    "衝": "直接攻撃＜遅延起動２＞＜スタン与え＞",
    "毒": "直接攻撃＜リミテッド＞＜毒与え＞",
    "絶": "防御無視攻撃＜遅延起動３＞",
    "魔": "ＨＰ減殺＜リミテッド＞＜遅延起動２＞",
    "デ": "ＨＰ減殺＜効果２倍＞＜遅延起動６＞＜リミテッド＞",
    "熱": "攻撃力＋１",
    "護": "防御力＋１",
    "速": "素早さ＋１",
    "盾": "ガード与え",
    "鏡": "反射与え＜遅延起動２＞＜リミテッド＞",
    "命": "ライフ与え＜リミテッド＞",
}


def amaryllis_sheet(m: Swordmaster) -> str:
    """``m`` as an Amaryllis sheet (§4.3): TECH = 剣技, every sword an action of declared cost 1."""
    names = [BASIC.sword_name(s, "ja") for s in m.swords]
    stats = "／".join(str(v).translate(ZEN) for v in (m.hp, m.atk, m.defense, m.spd))
    lines = [f"{m.name}：{stats}" + ("／" + "、".join(names) if names else "")]
    if m.skill_explicit:
        lines.append(f"技術{m.skill}")
    for sword, name in dict(zip(m.swords, names, strict=False)).items():
        if sword.code == "回":
            n = sword.n or 1
            definition = "ＨＰ回復＜リミテッド＞" + (f"＜遅延起動{n}＞" if n >= 2 else "")
        else:
            definition = AMARYLLIS_DEFINITION[sword.code]
        lines.append(f"・{name}（１）：{definition}")
    return "\n".join(lines)


def texts(m: Swordmaster) -> list[str]:
    """``m`` in every notation: full (ja and en names) and compact."""
    return [
        format_swordmaster(m, BASIC, lang, notation)
        for lang, notation in (("ja", "full"), ("en", "full"), ("ja", "compact"))
    ]


@settings(max_examples=300, deadline=None)
@given(swordmasters(), swordmasters())
def test_both_notations_fight_the_battle_of_the_amaryllis_sheet(
    a: Swordmaster, b: Swordmaster
) -> None:
    ua, ub = (A.parse_sheet(amaryllis_sheet(m)) for m in (a, b))
    assert ua.ok and ub.ok, A.format_problems(ua.errors + ub.errors, "en")  # every cost is 1
    want = A.battle(ua.entry, ub.entry)
    for ta, tb in zip(texts(a), texts(b), strict=False):
        sa, sb = M.parse_sheet(ta), M.parse_sheet(tb)
        assert sa.ok and sb.ok and sa.entry == a and sb.entry == b
        got = M.battle(sa.entry, sb.entry)
        assert got == want and got.events == want.events
        # the one mapping of the result: M10
        data = M.result_json(got, events=False)
        turns = 0 if want.ended_at == "start" else want.turns
        assert (data["winner"], data["reason"], data["turns"]) == (
            A.result_json(want)["winner"],
            want.reason.value,
            turns,
        )


@settings(max_examples=200, deadline=None)
@given(swordmasters(spd=2), swordmasters(spd=2))
def test_equal_speed_pairs_agree_with_amaryllis_too(a: Swordmaster, b: Swordmaster) -> None:
    # equal SPD reaches simultaneous and super-simultaneous actions far more often
    ua, ub = (A.parse_sheet(amaryllis_sheet(m)).entry for m in (a, b))
    got, want = M.battle(a, b), A.battle(ua, ub)
    assert got == want and got.events == want.events


@settings(max_examples=500, deadline=None)
@given(swordmasters(named=False))
def test_parse_format_round_trip_in_both_notations(m: Swordmaster) -> None:
    for notation in ("full", "compact"):
        for lang in ("ja", "en"):
            text = format_swordmaster(m, BASIC, lang, notation)
            sheet = M.parse_sheet(text)
            assert sheet.ok and sheet.entry == m, (text, M.format_problems(sheet.problems, "en"))
            assert M.format_sheet(sheet.entry, lang) == M.format_sheet(
                M.parse_sheet(M.format_sheet(sheet.entry, lang)).entry, lang
            )
            assert not any(p.code == "unknown-sword" for p in sheet.problems)


@settings(max_examples=300, deadline=None)
@given(swordmasters(), swordmasters())
def test_battle_is_mirror_symmetric(a: Swordmaster, b: Swordmaster) -> None:
    ab, ba = M.battle(a, b), M.battle(b, a)
    assert ab.reason == ba.reason and ab.turns == ba.turns and ab.ended_at == ba.ended_at
    assert ab.winner == (None if ba.winner is None else SWAP[ba.winner])
    assert ab.final == (ba.final[1], ba.final[0])
    assert canonical(ab.events) == canonical(tuple(mirror(e) for e in ba.events))
    oa, ob = M.outcome(ab), M.outcome(ba)
    assert oa.margin == -ob.margin and oa.final == (ob.final[1], ob.final[0])


@settings(max_examples=300, deadline=None)
@given(swordmasters(named=False), swordmasters(named=False))
def test_results_use_the_family_vocabulary_and_never_raise(a: Swordmaster, b: Swordmaster) -> None:
    r = M.battle(a, b)
    data = M.result_json(r)
    assert data["reason"] in TERMINATIONS and data["reason"] != "push"
    assert data["by"] in ("death", "overkill", "hp")
    assert 0 <= data["turns"] <= 20 and (data["turns"] == 0) == (r.ended_at == "start")
    for side, m in (("A", a), ("B", b)):
        (f,) = data["final"][side]
        assert f["max_hp"] == m.hp and f["mp"] == 0 and f["alive"] == (not f["exited"])
        assert f["name"] == M.label(m)
    if r.reason is Reason.DEATH:
        assert [f["alive"] for f in (data["final"]["A"][0], data["final"]["B"][0])].count(True) == 1
    fast = M.battle(a, b, log=False)
    assert fast == r and fast.events == ()
    o = M.outcome(fast)
    assert M.winner_and_margin(fast) == (o.winner, o.margin)
    assert data["final"] == {
        "A": [f.to_json() for f in o.final[0]],
        "B": [f.to_json() for f in o.final[1]],
    }
    assert (data["turns"], data["by"], data["reason"]) == (o.turns, o.by, o.termination)
    for lang in ("ja", "en"):
        report = M.report(a, b, r, lang=lang)
        assert report.header == tuple(M.describe(lang)) and report.turns


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_the_interface_never_raises_on_any_text(text: str) -> None:
    sheet = M.parse_sheet(text)
    assert isinstance(M.recognizes(text), bool) and isinstance(M.greeting_lines(text), int)
    M.format_problems(sheet.problems, "ja")
    for line in text.splitlines():
        assert isinstance(M.starts_sheet(line), bool)
    if sheet.ok:
        assert M.parse_sheet(M.format_sheet(sheet.entry)).entry == sheet.entry


@settings(max_examples=300, deadline=None)
@given(swordmasters(named=False), st.data())
def test_mangled_sheets_never_raise(m: Swordmaster, data: st.DataObject) -> None:
    text = format_swordmaster(m, BASIC, "ja", data.draw(st.sampled_from(["full", "compact"])))
    at = data.draw(st.integers(0, len(text)))
    junk = data.draw(st.text(alphabet="/:、,回死デ0123456789#<>１／：剣 \n", max_size=6))
    sheet = M.parse_sheet(text[:at] + junk + text[at:])
    M.format_problems(sheet.problems, "en")
    assert sheet.ok or sheet.errors
