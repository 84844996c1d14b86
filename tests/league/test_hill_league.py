"""The hill as a league: each entry fought at once against every member, in the entering
transaction; never more than N members; push-offs mailed; the kept state equals the replay of
the stored challenges; every challenge rated."""

from __future__ import annotations

from sqlalchemy import func, select

from app.db.models import Entry, OutboxMessage, RatingChange
from app.db.session import transaction
from app.formats.hill import Hill, HillState
from app.league import challenge as hl
from app.league import service as svc
from app.league.formats import format_of, format_standings, history_of, seat_order
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, T0, sheet_text


def _hill_league(s, name: str, size: int):  # type: ignore[no-untyped-def]
    league = svc.create_league(s, name, entry_deadline=DEADLINE, now=T0)
    league.format, league.format_options, league.entry_deadline = "hill", {"size": size}, None
    s.flush()
    return league


def test_challenges_keep_at_most_n_and_announce_push_offs(factory, settings) -> None:
    size, n = 3, 7
    seen_off: list[int] = []
    others_off = 0
    with transaction(factory) as s:
        league = _hill_league(s, "hill1", size)
        for i in range(n):
            p = svc.get_or_create_player(s, f"h{i}@example.org", display_name=f"H{i}", lang="en")
            assert svc.submit_entry(s, league, p, sheet_text(i, "en"), now=T0).accepted
            entry = s.scalar(select(Entry).where(Entry.player_id == p.id))
            ch = hl.arrive(s, league, entry, now=T0, mail=LeagueMail.of(settings))
            assert ch.number == i + 1
            assert len(ch.boards) == min(i, size)  # against every member
            assert len(ch.table) == min(i + 1, size)  # never more than N
            assert len(ch.pushed_off) == (1 if i >= size else 0)
            assert [t.rank for t in ch.table][0] == "1"
            seen_off += [p.entry_id for p in ch.pushed_off]
            others_off += sum(1 for p in ch.pushed_off if p.entry_id != entry.id)
            members = [r.entry for r in format_standings(s, league)[1].rows]
            assert entry.id in members or entry.id in seen_off
            table = svc.standings(s, league)  # the league's standings are the hill's table
            assert [r.entry_id for r in table] == members
        # push-offs announced by mail (except to a challenger pushed off at once: its reply)
        mails = s.scalar(
            select(func.count())
            .select_from(OutboxMessage)
            .where(OutboxMessage.dedupe_key.like("hill-off:%"))
        )
        assert mails == others_off and len(seen_off) == n - size
        # the kept state is the replay of the stored challenges
        hill = format_of(league)
        assert isinstance(hill, Hill)
        entries = [e.id for e in seat_order(s, league)]
        replay = hill.replay(entries, history_of(s, league))
        kept = HillState.from_json(league.format_state, hill.points)
        assert replay.members == kept.members and dict(replay.ages) == dict(kept.ages)
        # each challenge with a battle is one rating period
        rated = s.scalar(select(func.count(func.distinct(RatingChange.round_id))))
        assert rated == n - 1
        # its standings say it is a hill, not a finished round robin (a black-box test)
        text = svc.render_standings(s, league, lang="en", fmt="text")
        assert "the hill after" in text and "(final)" not in text, text
        assert "head-to-head, Sonneborn-Berger" not in text, text


def test_a_replacement_challenges_again_without_its_old_results(factory, settings) -> None:
    with transaction(factory) as s:
        league = _hill_league(s, "hill2", 4)
        players = [svc.get_or_create_player(s, f"r{i}@example.org", lang="ja") for i in range(3)]
        entries = []
        for i, p in enumerate(players):
            svc.submit_entry(s, league, p, sheet_text(i), now=T0)
            e = s.scalar(select(Entry).where(Entry.player_id == p.id))
            hl.arrive(s, league, e, now=T0, mail=LeagueMail.of(settings))
            entries.append(e)
        svc.submit_entry(s, league, players[0], sheet_text(10), now=T0)
        ch = hl.arrive(s, league, entries[0], now=T0, mail=LeagueMail.of(settings))
        assert ch.replaced and len(ch.boards) == 2 and len(ch.table) == 3
        assert {t.wins + t.draws + t.losses for t in ch.table} == {2}


def test_a_withdrawn_member_leaves_the_hill(factory, settings) -> None:
    with transaction(factory) as s:
        league = _hill_league(s, "hill3", 5)
        players = [svc.get_or_create_player(s, f"w{i}@example.org", lang="en") for i in range(3)]
        for i, p in enumerate(players):
            svc.submit_entry(s, league, p, sheet_text(i), now=T0)
            e = s.scalar(select(Entry).where(Entry.player_id == p.id))
            hl.arrive(s, league, e, now=T0, mail=LeagueMail.of(settings))
        gone = s.scalar(select(Entry).where(Entry.player_id == players[1].id))
        svc.withdraw(s, league, players[1], now=T0)
        assert (
            gone.id not in [r.entry for r in format_standings(s, league)[1].rows]
            and len([r.entry for r in format_standings(s, league)[1].rows]) == 2
        )
        table = svc.standings(s, league)
        assert gone.id not in {r.entry_id for r in table}
        assert {r.played for r in table} == {1}
