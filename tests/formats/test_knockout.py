"""Knockout: complete brackets, one champion, and every draw reproducible from the published
seed with nothing but SHA-256."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.formats.base import Finished, Game, Pairing, Result, RoundPairings
from app.formats.knockout import Knockout, bracket_order
from app.formats.seeding import draw_key, draw_order

from .helpers import play

outcomes = st.sampled_from(
    [Result(0, 2), Result(1, -3), Result(None, 0), Result(None, 4), Result(None, -1)]
)


def _key(seed: str, purpose: str, rnd: int, entry: int) -> str:
    """The published procedure, written out again independently of app.formats.seeding."""
    return hashlib.sha256(f"{seed}/{purpose}/{rnd}/{entry}".encode()).hexdigest()


def test_draw_keys_follow_the_published_procedure() -> None:
    assert draw_key("spring-2026", "knockout-draw", 2, 17) == _key(
        "spring-2026", "knockout-draw", 2, 17
    )
    order = draw_order("秋", "knockout-bye", 1, range(20))
    assert order == sorted(range(20), key=lambda e: _key("秋", "knockout-bye", 1, e))
    with pytest.raises(ValueError):
        draw_key("s", "coin", 1, 1)


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    with pytest.raises(ValueError):
        bracket_order(6)


@given(
    n=st.integers(1, 40),
    seed=st.text(max_size=12),
    reseed=st.booleans(),
    entry_seeding=st.booleans(),
    data=st.data(),
)
@settings(max_examples=80, deadline=None)
def test_single_elimination_is_complete(
    n: int, seed: str, reseed: bool, entry_seeding: bool, data: st.DataObject
) -> None:
    fmt = Knockout(
        {
            "seed": seed,
            "reseed_every_round": reseed,
            "seeding": "entry" if entry_seeding else "draw",
        }
    )
    entries = [3 * i + 1 for i in range(n)]
    history, end = play(fmt, entries, lambda r, p: data.draw(outcomes))
    assert len(history) == fmt.rounds_planned(n) == (0 if n < 2 else (n - 1).bit_length())
    out: Counter[int] = Counter()
    alive = set(entries)
    for rnd in history:
        seen = [x for g in rnd.games for x in (g.a, g.b) if x is not None]
        assert sorted(seen) == sorted(alive)  # every survivor once, nobody else
        for g in rnd.games:
            d = fmt.decide(rnd.number, g)
            assert d is not None
            if d.loser is not None:
                out[d.loser] += 1
                alive.discard(d.loser)
    if n >= 2:
        assert end == Finished("champion") and len(alive) == 1
        assert set(out) == set(entries) - alive and set(out.values()) == {1}
        rows = fmt.standings(entries, history).rows
        assert rows[0].entry in alive and rows[0].detail["status"] == "champion"
        assert rows[0].rank == 1 and rows[1].rank == 2 and not rows[1].shared
    if not reseed and n >= 2:
        size = 1 << (n - 1).bit_length()
        assert sum(g.is_bye for g in history[0].games) == size - n


@given(n=st.integers(2, 40), seed=st.text(max_size=12))
@settings(max_examples=40, deadline=None)
def test_the_first_round_is_reproducible_from_the_seed(n: int, seed: str) -> None:
    entries = list(range(1, n + 1))
    answer = Knockout({"seed": seed}).next_round(entries, [])
    assert isinstance(answer, RoundPairings)
    seeds = sorted(entries, key=lambda e: _key(seed, "knockout-draw", 1, e))
    size = 1 << (n - 1).bit_length()
    slots = [seeds[s - 1] if s <= n else None for s in bracket_order(size)]
    expect = [(slots[i], slots[i + 1]) for i in range(0, size, 2)]
    expect = [(a, b) if a is not None else (b, a) for a, b in expect]
    real = [(a, b) for a, b in expect if b is not None]
    byes = [(a, b) for a, b in expect if b is None]
    assert [(p.a, p.b) for p in answer.pairings] == real + byes


def test_a_redrawn_round_is_reproducible_from_the_seed() -> None:
    entries = list(range(1, 8))
    fmt = Knockout({"seed": "s", "reseed_every_round": True})
    answer = fmt.next_round(entries, [])
    assert isinstance(answer, RoundPairings)
    bye = min(entries, key=lambda e: _key("s", "knockout-bye", 1, e))
    rest = sorted((e for e in entries if e != bye), key=lambda e: _key("s", "knockout-draw", 1, e))
    assert [(p.a, p.b) for p in answer.pairings] == [
        (rest[0], rest[1]),
        (rest[2], rest[3]),
        (rest[4], rest[5]),
        (bye, None),
    ]


def test_a_drawn_battle_is_decided_by_margin_then_by_the_seeded_lot() -> None:
    fmt = Knockout({"seed": "lot"})
    game = Game(Pairing(1, 4, 9), Result(None, 3))
    d = fmt.decide(2, game)
    assert d is not None and (d.winner, d.loser, d.by) == (4, 9, "margin")
    d = fmt.decide(2, Game(Pairing(1, 4, 9), Result(None, -3)))
    assert d is not None and (d.winner, d.by) == (9, "margin")
    d = fmt.decide(2, Game(Pairing(1, 4, 9), Result(None, 0)))
    lot = min((4, 9), key=lambda e: _key("lot", "knockout-lot", 2, e))
    assert d is not None and (d.winner, d.by) == (lot, "lot")
    d = fmt.decide(2, Game(Pairing(1, 4, 9), Result(1, 0)))
    assert d is not None and (d.winner, d.by) == (9, "win")
    for lang in ("ja", "en"):
        assert "SHA-256" in fmt.draw_rule(lang)
        assert fmt.draw_rule(lang) in fmt.describe(lang)
        assert "{winner}" in fmt.decision_text(d, lang)


def test_the_same_seed_gives_the_same_draw_and_others_differ() -> None:
    entries = list(range(1, 33))
    draws = {seed: Knockout({"seed": seed}).next_round(entries, []) for seed in "abcdef"}
    assert Knockout({"seed": "a"}).next_round(entries, []) == draws["a"]
    assert len({str(d) for d in draws.values()}) == 6


@given(n=st.integers(2, 30), seed=st.text(max_size=6), data=st.data())
@settings(max_examples=60, deadline=None)
def test_double_elimination_ends_with_one_entry_under_two_losses(
    n: int, seed: str, data: st.DataObject
) -> None:
    fmt = Knockout({"seed": seed, "double_elimination": True})
    entries = list(range(n))
    history, end = play(fmt, entries, lambda r, p: data.draw(outcomes))
    assert end == Finished("champion")
    losses: Counter[int] = Counter()
    for rnd in history:
        seen = [x for g in rnd.games for x in (g.a, g.b) if x is not None]
        assert len(seen) == len(set(seen))
        assert all(losses[x] < 2 for x in seen)  # nobody out plays again
        for g in rnd.games:
            d = fmt.decide(rnd.number, g)
            assert d is not None
            if d.loser is not None:
                losses[d.loser] += 1
    champion = [e for e in entries if losses[e] < 2]
    assert len(champion) == 1
    rows = fmt.standings(entries, history).rows
    assert rows[0].entry == champion[0] and rows[0].detail["status"] == "champion"
    assert sum(losses.values()) <= 2 * n - 1


def test_a_disqualified_entry_gives_its_opponent_a_walkover() -> None:
    fmt = Knockout({"seeding": "entry"})
    entries = [1, 2, 3, 4]
    history, end = play(fmt, entries, lambda r, p: Result(0, 1), inactive=[4])
    assert [(g.a, g.b) for g in history[0].games] == [(2, 3), (1, None)]
    assert end == Finished("champion")
    assert [r.entry for r in fmt.standings(entries, history, inactive=[4]).rows][0] == 1
