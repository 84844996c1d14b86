"""The standings before a round list its pairings, except before a digest round (every entry
against every other, or more than ``DIGEST_AFTER`` battles for some entry): then one line says
how many battles there are and that each player gets their results in one mail (a 1,000-entry
accumulating update has 499,500 boards; listing them made the entries-closed mail megabytes
long, for every player). Text and HTML, both languages."""

from __future__ import annotations

import pytest

from app.db.session import transaction
from app.league import service as svc
from app.league.formats import DIGEST_AFTER, set_format
from app.league.standings import standings_context
from app.reports.standings import render_standings_context
from tests.league.helpers import DEADLINE, fill_league

N = 6  # an all-play-all round: 15 battles, 5 each (> DIGEST_AFTER)


@pytest.mark.parametrize(
    ("fmt", "options", "digest"),
    [
        ("accumulating", {"updates": 2}, True),
        ("round-robin", {}, False),
        ("swiss", {"rounds": 3}, False),
    ],
)
def test_the_next_round_is_listed_or_summed_up(factory, fmt, options, digest) -> None:
    assert N - 1 > DIGEST_AFTER
    fill_league(factory, "nx", N)
    with transaction(factory) as s:
        set_format(svc.get_league(s, "nx"), fmt, options)
    with transaction(factory) as s:
        league = svc.get_league(s, "nx")
        svc.close_entries(s, league, now=DEADLINE)
        ctx = standings_context(s, league, upto_round=0)
        units = [line.unit for line in ctx.table.lines]
    if digest:
        assert ctx.next_summary == (N * (N - 1) // 2, N - 1) and ctx.next_pairings == []
    else:
        assert ctx.next_summary is None and len(ctx.next_pairings) == N // 2
    for lang, said in (
        ("en", "15 battles, up to 5 for each entry"),
        ("ja", "全15戦（1エントリーあたり最大5戦）"),
    ):
        for kind in ("text", "html"):
            out = render_standings_context(ctx, lang=lang, fmt=kind)
            assert (said in out) is digest, out
            # a listed board names both units; a summed-up round names each unit once (table)
            listed = sum(out.count(u) for u in set(units))
            assert (listed > len(set(units))) is (not digest), (kind, lang, out)
