"""A format's kept state (the hill's) through ``app.league.formats``: each stored state gets a
fresh ``leagues.format_state_stamp`` and this process reuses the parsed state only under that
stamp; a state written by another process, a rolled-back one, or one assigned without
``remember_state`` is read from the row. The hill's JSON is a flat list of pair results, read
back exactly; the older list-of-lists shape still reads."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update

from app.db.models import Entry, League
from app.db.session import transaction
from app.formats.hill import Hill, HillState
from app.league import challenge as hl
from app.league import service as svc
from app.league.formats import format_of, remember_state, state_of
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, T0, sheet_text


def _hill(factory: Any, settings: Any, name: str, n: int, size: int = 3) -> int:
    """A hill league ``name`` of ``size`` with ``n`` challenges fought; its id."""
    with transaction(factory) as s:
        league = svc.create_league(s, name, entry_deadline=DEADLINE, now=T0)
        league.format, league.format_options, league.entry_deadline = "hill", {"size": size}, None
        s.flush()
        for i in range(n):
            p = svc.get_or_create_player(s, f"{name}{i}@example.org", lang="en")
            assert svc.submit_entry(s, league, p, sheet_text(i, "en"), now=T0).accepted
            e = s.scalar(select(Entry).where(Entry.player_id == p.id))
            hl.arrive(s, league, e, now=T0, mail=LeagueMail.of(settings))
        return league.id


def test_each_stored_state_is_stamped_and_read_back_exactly(factory, settings) -> None:
    lid = _hill(factory, settings, "ks1", 5)
    with transaction(factory) as s:
        league = s.get(League, lid)
        hill = format_of(league)
        assert isinstance(hill, Hill)
        stamp = league.format_state_stamp
        assert stamp is not None and len(stamp) == 32
        data = league.format_state
        kept = HillState.from_json(data, hill.points)
        assert kept.to_json() == data  # the JSON is exactly what the state writes
        assert state_of(league, hill) == kept
        # four numbers a pair, each pair of current members once, a < b, in order
        flat = data["results"]
        pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 4)]
        m = len(kept.members)
        assert len(flat) == 4 * m * (m - 1) // 2 and pairs == sorted(pairs)
        assert all(a < b for a, b in pairs)
        # the shape stored before the flat list reads to the same state
        nested = {**data, "results": [flat[i : i + 4] for i in range(0, len(flat), 4)]}
        assert HillState.from_json(nested, hill.points) == kept


def test_a_state_stored_elsewhere_or_rolled_back_is_never_taken_from_the_cache(
    factory, settings
) -> None:
    lid = _hill(factory, settings, "ks2", 5)
    with transaction(factory) as s:
        league = s.get(League, lid)
        hill = format_of(league)
        mine = state_of(league, hill)
        gone = hill.leave(mine, mine.members[0])
    # another process stores another state (a new stamp) behind this one's back
    with transaction(factory) as s:
        s.execute(
            update(League)
            .where(League.id == lid)
            .values(format_state=gone.to_json(), format_state_stamp="f" * 32)
        )
    with transaction(factory) as s:
        assert state_of(s.get(League, lid)) == gone
    # a stored state whose transaction rolls back: the row keeps the state before it
    s = factory()
    try:
        league = s.get(League, lid)
        remember_state(league, mine, format_of(league))
        s.flush()
        s.rollback()
    finally:
        s.close()
    with transaction(factory) as s:
        league = s.get(League, lid)
        assert league.format_state_stamp == "f" * 32
        assert state_of(league) == gone


def test_a_state_assigned_without_remember_state_is_unstamped_and_read(factory, settings) -> None:
    lid = _hill(factory, settings, "ks3", 4)
    with transaction(factory) as s:
        league = s.get(League, lid)
        hill = format_of(league)
        before = state_of(league, hill)
        after = hill.leave(before, before.members[-1])
        league.format_state = after.to_json()
        assert league.format_state_stamp is None
    with transaction(factory) as s:
        league = s.get(League, lid)
        assert league.format_state_stamp is None
        assert state_of(league) == after and state_of(league) != before
