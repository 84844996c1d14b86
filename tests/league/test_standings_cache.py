"""The games cache of a run of rounds (``app.league.results.GamesCache``) gives the standings
a full read gives, after every round and for every earlier round, with byes (an odd number of
entries) and a disqualification between rounds (its pending battles voided)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import Battle, Round
from app.db.session import transaction
from app.league import service as svc
from app.league.results import GamesCache, _games, standings
from tests.league.helpers import DEADLINE, fill_league


def test_cached_games_give_the_standings_of_a_full_read(
        factory: sessionmaker[Session], settings: Settings) -> None:
    fill_league(factory, "Cache", 5)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Cache"), now=DEADLINE)
    cache = GamesCache()
    reads = []
    for number in range(1, 6):
        if number == 3:
            with transaction(factory) as s:
                svc.disqualify(s, svc.get_league(s, "Cache"), "p1@example.org", now=DEADLINE)
        assert svc.run_round(factory, settings, "Cache", now=DEADLINE) == [number]
        with transaction(factory) as s:
            league = svc.get_league(s, "Cache")
            for upto in (None, *range(0, number + 1)):
                fresh = standings(s, league, upto_round=upto)
                assert standings(s, league, upto_round=upto, games=cache) == fresh, upto
            assert cache.upto == number  # every played round is cached, none past it
            games, byes = _games(s, league, None, cache)
            reads.append((len(games), sum(byes.values())))
            done = s.scalar(select(func.count()).select_from(Battle).join(Round).where(
                Round.league_id == league.id, Battle.state == "done"))
            assert len(games) + sum(byes.values()) == done
    assert reads[-1][1] == 5  # one bye per round of five entries
    assert reads[0][0] < reads[-1][0]


def test_a_cache_past_the_round_asked_is_not_used(
        factory: sessionmaker[Session], settings: Settings) -> None:
    fill_league(factory, "Past", 4)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Past"), now=DEADLINE)
    svc.run_round(factory, settings, "Past", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "Past")
        cache = GamesCache()
        full = _games(s, league, None, cache)
        assert cache.upto == 3 and len(full[0]) == 6
        one, _ = _games(s, league, 1, cache)
        assert len(one) == 2 and cache.upto == 3  # round 1 only, read afresh
