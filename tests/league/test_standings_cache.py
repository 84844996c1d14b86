"""The history cache of a run of rounds (``app.league.formats.HistoryCache``) gives the history
and standings a full read gives, after every round and for every earlier round, with byes (an
odd number of entries) and a disqualification between rounds (its pending battles voided)."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.session import transaction
from app.league import service as svc
from app.league.formats import HistoryCache, history_of
from app.league.standings import standings_table
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, fill_league


def test_cached_history_gives_the_standings_of_a_full_read(
    factory: sessionmaker[Session], settings: Settings
) -> None:
    fill_league(factory, "Cache", 5)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Cache"), now=DEADLINE)
    cache = HistoryCache()
    for number in range(1, 6):
        if number == 3:
            with transaction(factory) as s:
                svc.disqualify(s, svc.get_league(s, "Cache"), "p1@example.org", now=DEADLINE)
        assert svc.run_round(factory, LeagueMail.of(settings), "Cache", now=DEADLINE) == [number]
        with transaction(factory) as s:
            league = svc.get_league(s, "Cache")
            for upto in (None, *range(0, number + 1)):
                fresh = standings_table(s, league, upto_round=upto)
                assert standings_table(s, league, upto_round=upto, history=cache) == fresh, upto
                assert history_of(s, league, upto=upto, cache=cache) == history_of(
                    s, league, upto=upto
                )
            # every played round is cached, none past it (a round robin's later rounds are
            # stored at close, still pending)
            assert sorted(cache.rounds) == list(range(1, number + 1))
            byes = sum(1 for r in cache.rounds.values() for g in r.games if g.b is None)
            assert byes == number  # one bye per round of five entries


def test_a_cache_read_for_an_earlier_round_keeps_the_later_ones(
    factory: sessionmaker[Session], settings: Settings
) -> None:
    fill_league(factory, "Past", 4)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Past"), now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), "Past", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "Past")
        cache = HistoryCache()
        full = history_of(s, league, cache=cache)
        assert sorted(cache.rounds) == [1, 2, 3] and sum(len(r.games) for r in full) == 6
        one = history_of(s, league, upto=1, cache=cache)
        assert [r.number for r in one] == [1] and sorted(cache.rounds) == [1, 2, 3]
