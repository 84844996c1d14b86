"""Ratings stored per round (``app.league.ratings``): the stored path gives the OpenSkill
library's own numbers for a small fixed history, across two leagues, with a history per player."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from app.db.models import Battle, Entry, Round
from app.db.session import transaction
from app.league import ratings
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import DEFAULT_RULESET
from tests.league.helpers import DEADLINE, fill_league


def _play(factory, settings, name: str, n: int) -> None:  # type: ignore[no-untyped-def]
    fill_league(factory, name, n)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, name), now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), name, all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, name)
        for rnd in s.scalars(
            select(Round).where(Round.league_id == league.id).order_by(Round.number)
        ):
            ratings.rate_round(s, league, rnd)
            assert ratings.rate_round(s, league, rnd) == 0  # once per round


def test_stored_ratings_are_the_librarys_numbers(factory, settings) -> None:
    _play(factory, settings, "r1", 3)  # same players p0..p2 in both leagues
    _play(factory, settings, "r2", 3)
    model = PlackettLuce()  # the library's defaults, as app.formats.ratings uses them
    expect: dict[int, object] = {}
    with transaction(factory) as s:
        rows = s.execute(
            select(Battle.entry_a_id, Battle.entry_b_id, Battle.winner, Round.id)
            .join(Round, Battle.round_id == Round.id)
            .where(Battle.entry_b_id.is_not(None), Battle.state == "done")
            .order_by(Round.id, Battle.board)
        ).all()
        owner = {e.id: e.player_id for e in s.scalars(select(Entry))}
        for a, b, w, _ in rows:
            pa, pb = owner[a], owner[b]
            ra = expect.get(pa) or model.rating()
            rb = expect.get(pb) or model.rating()
            ranks = [1.0, 1.0] if w is None else ([1.0, 2.0] if w == 0 else [2.0, 1.0])
            [[ra2], [rb2]] = model.rate([[ra], [rb]], ranks=ranks)
            expect[pa], expect[pb] = ra2, rb2
        got = ratings.current(s, set(expect), DEFAULT_RULESET)
        assert set(got) == set(expect) and len(got) == 3
        nobody = svc.get_or_create_player(s, "nobody@example.org")  # never rated: absent
        s.flush()
        assert set(ratings.latest(s, set(expect) | {nobody.id}, DEFAULT_RULESET)) == set(expect)
        for pid, r in expect.items():
            assert got[pid].mu == pytest.approx(r.mu, abs=1e-9)  # type: ignore[attr-defined]
            assert got[pid].sigma == pytest.approx(r.sigma, abs=1e-9)  # type: ignore[attr-defined]
            assert got[pid].ordinal == pytest.approx(r.ordinal(), abs=1e-9)  # type: ignore[attr-defined]
        # a history per player: one line per round played (3 entries: one bye per league each)
        for pid in expect:
            h = ratings.history(s, pid, DEFAULT_RULESET)
            assert [x.league for x in h] == ["r1", "r1", "r2", "r2"]
            assert all(x.games == 1 for x in h)
            assert h[0].ordinal_before == pytest.approx(0.0, abs=1e-9)
            for before, after in zip(h, h[1:], strict=False):
                assert after.ordinal_before == pytest.approx(before.ordinal, abs=1e-9)
