"""Leagues played by their format (``app.league.formats``): round robin's stored rounds are what
the format answers round after round (and the Berger table of ``app.league.schedule``); Swiss,
knockout and accumulating leagues are paired one round at a time after the results, by the CLI
and the scheduler; the format properties hold on real battles."""

from __future__ import annotations

import datetime as dt
import email
import hashlib
from collections import Counter
from email.policy import default
from fractions import Fraction

import pytest
from sqlalchemy import select

from app.db.models import Battle, Entry, OutboxMessage, Round
from app.db.session import transaction
from app.formats import RoundPairings
from app.league import service as svc
from app.league.formats import format_of, history_of, inputs, seat_order
from app.mail.league_mail import LeagueMail
from tests.formats.helpers import berger_schedule
from tests.league.helpers import DEADLINE, enter_players, fill_league, sheet_text


def _rounds(s, name: str) -> list[list[tuple[int, int | None]]]:  # type: ignore[no-untyped-def]
    league = svc.get_league(s, name)
    out = []
    for rnd in s.scalars(select(Round).where(Round.league_id == league.id).order_by(Round.number)):
        out.append(
            [
                (b.entry_a_id, b.entry_b_id)
                for b in s.scalars(
                    select(Battle).where(Battle.round_id == rnd.id).order_by(Battle.board)
                )
            ]
        )
    return out


@pytest.mark.parametrize("n,double", [(5, False), (6, False), (5, True)])
def test_round_robin_rounds_are_the_formats_answers_and_the_berger_table(
    factory, settings, n: int, double: bool
) -> None:
    fill_league(factory, "rr", n, double=double)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "rr"), now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), "rr", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "rr")
        assert league.state == "finished"
        seats = [e.id for e in seat_order(s, league)]
        stored = _rounds(s, "rr")
        old = berger_schedule(n, double=double)
        assert stored == [
            [(seats[p.a], None if p.b is None else seats[p.b]) for p in rnd] for rnd in old
        ]
        fmt, entries, history, inactive = inputs(s, league)
        for k in range(len(history)):
            answer = fmt.next_round(entries, history[:k], inactive=inactive)
            assert isinstance(answer, RoundPairings) and answer.round == k + 1
            assert [(p.a, p.b) for p in answer.pairings] == stored[k]


def _create(cli, name: str, *args: str) -> None:  # type: ignore[no-untyped-def]
    made = cli("league", "create", name, "--entry-deadline", "+2d", *args)
    assert made.exit_code == 0, made.output


def test_swiss_league_by_cli_never_repeats_a_pair_and_one_bye_each(cli, db_url) -> None:  # type: ignore[no-untyped-def]
    _create(cli, "sw", "--format", "swiss", "--rounds", "4")
    enter_players(db_url, "sw", 7)
    assert cli("league", "close-entries", "sw").exit_code == 0
    shown = cli("league", "show", "sw")
    assert "format: Swiss system, 4 rounds" in shown.output
    assert "round 2" not in shown.output  # paired after round 1's results, not before
    played = cli("league", "run-round", "sw", "--all")
    assert played.exit_code == 0, played.output
    assert "played rounds 1, 2, 3, 4 of sw" in played.output
    from app.db.session import session_factory

    f = session_factory(db_url)
    with transaction(f) as s:
        rounds = _rounds(s, "sw")
        assert len(rounds) == 4 and svc.get_league(s, "sw").state == "finished"
        pairs = [frozenset(p) for r in rounds for p in r if p[1] is not None]
        assert len(pairs) == len(set(pairs)) == 4 * 3
        byes = Counter(a for r in rounds for a, b in r if b is None)
        assert len(byes) == 4 and set(byes.values()) == {1}
        text = svc.render_standings(s, svc.get_league(s, "sw"), lang="en")
        assert "Format:" in text and "Buchholz" in text and "(final)" in text
        assert "Ratings are each player's rating in this game" in text
        # the table's columns are the Swiss tiebreaks, not a round robin's (a black-box test)
        header = next(line for line in text.splitlines() if line.startswith("Rank"))
        assert "Bu" in header and "H2H" not in header and "Buchholz" in text, text
        assert "head-to-head" not in text, text
        ja = svc.render_standings(s, svc.get_league(s, "sw"), lang="ja")
        assert "ブッフホルツ" in ja, ja
        assert "  - points 3/1/0 (win/draw/loss)" in text, text  # the format's own words
    f.kw["bind"].dispose()


def _key(seed: str, purpose: str, rnd: int, entry: int) -> str:
    return hashlib.sha256(f"{seed}/{purpose}/{rnd}/{entry}".encode()).hexdigest()


@pytest.mark.parametrize("n", [5, 8])
def test_knockout_league_is_complete_and_redrawn_from_the_published_seed(
    factory, settings, n: int
) -> None:
    fill_league(factory, "ko", n)
    with transaction(factory) as s:
        league = svc.get_league(s, "ko")
        league.seed = "spring-2026"
        from app.league.formats import set_format

        set_format(league, "knockout", {"reseed-every-round": "yes"})
        svc.close_entries(s, league, now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), "ko", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "ko")
        assert league.state == "finished"
        fmt = format_of(league)
        history = history_of(s, league)
        alive = [e.id for e in seat_order(s, league)]
        for rnd in history:
            order = sorted(alive, key=lambda e: _key("spring-2026", "knockout-draw", rnd.number, e))
            real = [g for g in rnd.games if g.b is not None]
            bye = [g.a for g in rnd.games if g.b is None]
            drawn = [e for e in order if e not in bye]
            assert [(g.a, g.b) for g in real] == list(zip(drawn[::2], drawn[1::2], strict=False))
            winners = [fmt.decide(rnd.number, g).winner for g in rnd.games]  # type: ignore[union-attr]
            alive = [e for e in alive if e in winners]
        assert len(alive) == 1  # complete: one champion, every other entry out once
        assert len(history) == (n - 1).bit_length()
        rows = svc.standings(s, league)
        assert rows[0].entry_id == alive[0]
        # the reports of drawn battles say how they were decided
        decided = [
            b
            for b in s.scalars(select(Battle))
            if b.state == "done" and b.entry_b_id is not None and b.winner is None
        ]
        for b in decided:
            mails = s.scalars(
                select(OutboxMessage).where(OutboxMessage.dedupe_key.like(f"report:{b.id}:%"))
            ).all()
            texts = [
                email.message_from_bytes(m.raw, policy=default).get_body(("plain",)).get_content()
                for m in mails
            ]
            assert texts and all("HP margin" in t or "HP差" in t for t in texts), texts


def test_accumulating_league_totals_are_the_sum_of_updates_with_replacement(
    factory, settings
) -> None:
    fill_league(factory, "acc", 4, langs=("en",))
    with transaction(factory) as s:
        league = svc.get_league(s, "acc")
        from app.league.formats import set_format

        set_format(league, "accumulating", {"updates": 3})
        svc.close_entries(s, league, now=DEADLINE)
    assert svc.run_round(factory, LeagueMail.of(settings), "acc", now=DEADLINE) == [1]
    with transaction(factory) as s:  # a replacement between updates
        league = svc.get_league(s, "acc")
        p0 = svc.get_or_create_player(s, "P0@Example.org")
        out = svc.submit_entry(s, league, p0, sheet_text(40, "en"), now=DEADLINE)
        assert out.accepted and out.replaced
        newcomer = svc.get_or_create_player(s, "late@example.org")
        with pytest.raises(svc.EntriesClosed):
            svc.submit_entry(s, league, newcomer, sheet_text(41, "en"), now=DEADLINE)
    assert svc.run_round(
        factory, LeagueMail.of(settings), "acc", all_rounds=True, now=DEADLINE
    ) == [2, 3]
    with transaction(factory) as s:
        league = svc.get_league(s, "acc")
        rounds = list(
            s.scalars(select(Round).where(Round.league_id == league.id).order_by(Round.number))
        )
        assert [r.note for r in rounds] == ["update"] * 3 and league.state == "finished"
        e0 = s.scalar(
            select(Entry)
            .join(Entry.player)
            .where(Entry.league_id == league.id)
            .where(Entry.seat == 0)
        )
        sheets = {
            b.sheet_a_id
            for b in s.scalars(
                select(Battle).where(
                    Battle.round_id.in_([r.id for r in rounds[1:]]), Battle.entry_a_id == e0.id
                )
            )
        }
        assert len(sheets) == 1 and sheets != {
            b.sheet_a_id
            for b in s.scalars(
                select(Battle).where(Battle.round_id == rounds[0].id, Battle.entry_a_id == e0.id)
            )
        }
        ctx = svc.standings_context(s, league)
        for row in ctx.rows:
            ups = ctx.table.value(row, "updates")
            assert len(ups) == 3 and Fraction(row.points) == sum(Fraction(u) for u in ups)
        text = svc.render_standings(s, league, lang="en")
        assert "points per update" in text and "accumulating round robin: 3 updates" in text
        # each line shows the points of every update, e.g. "3 + 6 + 0"
        assert all(" + ".join(ctx.table.cells(r, "en")[-1:]) in text for r in ctx.rows)


def test_the_scheduler_plays_a_swiss_league_round_after_round(factory, settings) -> None:
    fill_league(factory, "tk", 6, rounds_every=dt.timedelta(hours=1))
    with transaction(factory) as s:
        from app.league.formats import set_format

        set_format(svc.get_league(s, "tk"), "swiss", {"rounds": 3})
    svc.tick(
        factory, LeagueMail.of(settings), now=DEADLINE
    )  # closes entries, plays round 1 (due at close)
    done = svc.tick(
        factory, LeagueMail.of(settings), now=DEADLINE + dt.timedelta(hours=2, minutes=1)
    )
    assert done == ["played round 2 of tk", "played round 3 of tk"]
    with transaction(factory) as s:
        league = svc.get_league(s, "tk")
        assert league.state == "finished"
        times = [
            r.scheduled_at
            for r in s.scalars(
                select(Round).where(Round.league_id == league.id).order_by(Round.number)
            )
        ]
        assert [t.replace(tzinfo=dt.timezone.utc) if t.tzinfo is None else t for t in times] == [
            DEADLINE + dt.timedelta(hours=k) for k in range(3)
        ]


def test_a_drawn_knockout_battle_report_states_the_rule(factory) -> None:
    import dataclasses

    from app.formats.seeding import draw_lot
    from app.league.cast import Board, load_cast
    from app.league.play import decision_text as _decision

    fill_league(factory, "kd", 4)
    with transaction(factory) as s:
        league = svc.get_league(s, "kd")
        league.seed = "lot-seed"
        from app.league.formats import set_format

        set_format(league, "knockout", {})
        svc.close_entries(s, league, now=DEADLINE)
        b = s.scalars(select(Battle).where(Battle.entry_b_id.is_not(None))).first()
        cast = load_cast(s, league)
        row = dataclasses.replace(Board.of(b), winner=None, reason="draw", hp_a=7, hp_b=7)
        units = {
            e: cast.unit(sid)
            for e, sid in ((b.entry_a_id, b.sheet_a_id), (b.entry_b_id, b.sheet_b_id))
        }
        lot = draw_lot("lot-seed", 1, b.entry_a_id, b.entry_b_id)
        en = _decision(cast, 1, row, "en")
        assert en.startswith(
            f"a draw with equal HP margins: {units[lot].name} goes through by the seeded lot."
        )
        assert "the lot of the published seed" in en
        by_margin = _decision(cast, 1, dataclasses.replace(row, hp_a=9), "ja")
        assert by_margin.startswith(f"引き分け：HP差で{units[b.entry_a_id].name}が勝ち上がり")
        assert _decision(cast, 1, dataclasses.replace(row, winner=0), "en") == ""
