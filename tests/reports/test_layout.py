"""Quiet turns (no line, every state as after the turn before) are folded into one block in the
HTML mail (``app.reports.layout.turn_blocks``): every turn is still accounted for, in order, and
only a turn where something happened or changed gets a state table."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from app.reports.layout import TurnBlock, turn_blocks
from app.reports.league_battle import LeagueBattleContext, render_league_battle
from app.rules import find_ruleset
from app.rules.base import ReportLine, ReportTurn, StateLine

BAR = r'<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="120"'


def _turn(n: int, hp: int, lines: int) -> ReportTurn:
    state = StateLine("X", f"X: {hp}", hp, 10, hp > 0)
    return ReportTurn(
        n,
        tuple(ReportLine(f"line {i}") for i in range(lines)),
        ((state,), (StateLine("Y", "Y: 5", 5, 5),)),
    )


def _check(turns: list[ReportTurn], blocks: list[TurnBlock]) -> None:
    covered = [n for b in blocks for n in range(b.first, b.last + 1)]
    assert covered == [t.turn for t in turns]  # every turn once, in order
    by_number = {t.turn: t for t in turns}
    for i, b in enumerate(blocks):
        if b.quiet:
            assert i > 0  # never the first block: there is a table above it
            for n in range(b.first, b.last + 1):
                t = by_number[n]
                assert not t.lines and t.states == by_number[n - 1].states
            assert not blocks[i - 1].quiet  # runs are merged
        else:
            assert b.first == b.last and b.turn is by_number[b.first]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 3), st.integers(0, 2)), min_size=1, max_size=21))
def test_blocks_cover_every_turn_and_fold_only_quiet_runs(spec: list[tuple[int, int]]) -> None:
    turns = [_turn(n, hp, lines) for n, (hp, lines) in enumerate(spec)]
    blocks = turn_blocks(turns)
    _check(turns, blocks)
    # a turn is folded exactly when it is quiet
    quiet = sum(
        1 for i, t in enumerate(turns) if i and not t.lines and t.states == turns[i - 1].states
    )
    assert sum(b.last - b.first + 1 for b in blocks if b.quiet) == quiet


def test_a_run_of_quiet_turns_is_one_block() -> None:
    turns = [_turn(0, 3, 1), _turn(1, 3, 0), _turn(2, 3, 0), _turn(3, 2, 0), _turn(4, 2, 0)]
    blocks = turn_blocks(turns)
    assert [(b.first, b.last, b.quiet) for b in blocks] == [
        (0, 0, False),
        (1, 2, True),
        (3, 3, False),
        (4, 4, True),
    ]


def test_league_html_folds_the_quiet_turns_of_real_battles() -> None:
    """Random Amaryllis battles: one state table (and HP bar per fighter) per block that is not
    quiet, a turn range heading per folded run; in both languages."""
    rs = find_ruleset("amaryllis")()
    rng = random.Random(7)
    folded = 0
    for i in range(12):
        a, b = rs.random_entry(rng, f"U{i}a"), rs.random_entry(rng, f"U{i}b")
        result = rs.battle(a, b, log=True)
        for lang in ("en", "ja"):
            report = rs.report(a, b, result, lang=lang)
            blocks = turn_blocks(report.turns)
            _check(list(report.turns), blocks)
            ctx = LeagueBattleContext(
                league="L",
                round=1,
                board=1,
                player_a="p",
                unit_a="a",
                player_b="q",
                unit_b="b",
                winner="",
                winner_unit="",
                reason="draw",
                turns=20,
                hp=(1, 1),
                report="",
                engine_version="1",
                engine_note="",
                battle=report,
            )
            html = render_league_battle(ctx, lang=lang, fmt="html")
            bars = len(re.findall(BAR, html))
            assert bars == sum(
                len(side) for blk in blocks if not blk.quiet for side in blk.turn.states
            )
            runs = [blk for blk in blocks if blk.quiet and blk.last > blk.first]
            folded += len(runs)
            for blk in runs:
                heading = (
                    f"Turns {blk.first}–{blk.last}"
                    if lang == "en"
                    else f"第{blk.first}〜{blk.last}ターン"
                )
                assert heading in html
            note = "No action; the states stay as above." if lang == "en" else "行動なし。"
            assert html.count(note) == sum(1 for blk in blocks if blk.quiet)
    assert folded > 0  # the sample has quiet runs to fold
