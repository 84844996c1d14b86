"""League services on SQLite and PostgreSQL: entries, closing, rounds, reports, tick, fixes."""

from __future__ import annotations

import datetime as dt
import email
from collections import Counter
from email import policy

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import Battle, Entry, OutboxMessage, Round, SheetVersion
from app.db.session import transaction
from app.league import service as svc
from app.league.timeparse import as_utc
from app.mail.league_mail import LeagueMail
from app.rules.amaryllis import ENGINE_VERSION, battle, parse_sheet
from tests.formats.helpers import berger_schedule, rounds_count
from tests.league.helpers import DEADLINE, T0, fill_league, sheet_text

Factory = sessionmaker[Session]


def _outbox(factory: Factory) -> list[OutboxMessage]:
    with transaction(factory) as s:
        return list(s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def _parse(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]


def _close(factory: Factory, name: str, now: dt.datetime = DEADLINE) -> None:
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, name), now=now)


# --------------------------------------------------------------------------- entries


def test_entries_versions_withdraw_and_closing(factory: Factory) -> None:
    with transaction(factory) as s:
        league = svc.create_league(s, "Spring", entry_deadline=DEADLINE, now=T0)
        alice = svc.get_or_create_player(s, "Alice@Example.org", lang="en")
        bob = svc.get_or_create_player(s, "bob@example.org")
        first = svc.submit_entry(s, league, alice, sheet_text(1, "en"), now=T0)
        second = svc.submit_entry(s, league, alice, sheet_text(2, "en"), now=T0)
        bad = svc.submit_entry(s, league, bob, "this is not a sheet", now=T0)
        assert (first.accepted, first.replaced, first.version) == (True, False, 1)
        assert (second.accepted, second.replaced, second.version) == (True, True, 2)
        assert not bad.accepted and bad.version is None and bad.sheet.problems
        entry = s.scalar(select(Entry).where(Entry.player_id == alice.id))
        assert entry is not None
        versions = [(v.version, v.active, v.unit_name) for v in entry.sheets]
        assert versions == [(1, False, "U1"), (2, True, "U2")]
        # the invalid sheet stored nothing
        assert (
            s.scalar(select(func.count()).select_from(Entry).where(Entry.player_id == bob.id)) == 0
        )
        assert svc.submit_entry(s, league, bob, sheet_text(3), now=T0).accepted
        carol = svc.get_or_create_player(s, "carol@example.org")
        svc.submit_entry(s, league, carol, sheet_text(4), now=T0)
        svc.withdraw(s, league, carol, now=T0)
        with pytest.raises(svc.NotEntered):
            svc.withdraw(s, league, carol, now=T0)
        with pytest.raises(svc.EntriesClosed):  # the deadline has passed, even before closing
            svc.submit_entry(s, league, carol, sheet_text(4), now=DEADLINE)
    _close(factory, "Spring")
    with transaction(factory) as s:
        league = svc.get_league(s, "Spring")
        assert league.state == "closed"
        seated = {e.player.address: e.seat for e in league.entries}
        assert seated == {"alice@example.org": 0, "bob@example.org": 1, "carol@example.org": None}
        battles = list(s.scalars(select(Battle)))
        assert len(battles) == 1 and battles[0].state == "pending"
        # the active sheet version is fixed in the battle
        active = s.scalar(select(SheetVersion).where(SheetVersion.unit_name == "U2"))
        assert active is not None and battles[0].sheet_a_id == active.id
        with pytest.raises(svc.EntriesClosed):
            svc.submit_entry(s, league, carol, sheet_text(4), now=DEADLINE)
        with pytest.raises(svc.BadState):
            svc.close_entries(s, league, now=DEADLINE)


def test_create_league_refuses_bad_input(factory: Factory) -> None:
    with transaction(factory) as s:
        svc.create_league(s, "A", entry_deadline=DEADLINE, now=T0)
        for kwargs, code in [
            (dict(name="A"), "league-exists"),
            (dict(name="has space"), "bad-name"),
            (dict(name="B", entry_deadline=T0), "bad-deadline"),
            (dict(name="B", points=(1, 3, 0)), "bad-points"),
            (dict(name="B", rounds_every=dt.timedelta(0)), "bad-interval"),
        ]:
            args = dict(entry_deadline=DEADLINE, now=T0) | kwargs
            with pytest.raises(svc.BadState) as err:
                svc.create_league(s, **args)  # type: ignore[arg-type]
            assert err.value.code == code
        with pytest.raises(ValueError):
            svc.get_or_create_player(s, "not an address")
        with pytest.raises(svc.NoSuchLeague):
            svc.get_league(s, "nope")


def test_fewer_than_two_entries_finish_at_once(factory: Factory) -> None:
    fill_league(factory, "Tiny", 1)
    _close(factory, "Tiny")
    with transaction(factory) as s:
        assert svc.get_league(s, "Tiny").state == "finished"
        assert s.scalar(select(func.count()).select_from(Round)) == 0


# --------------------------------------------------------------------------- rounds


@pytest.mark.parametrize("n,double", [(5, False), (4, True)])
def test_rounds_store_results_and_queue_every_report(
    factory: Factory, settings: Settings, n: int, double: bool
) -> None:
    fill_league(factory, "L", n, double=double)
    _close(factory, "L")
    assert svc.run_round(factory, LeagueMail.of(settings), "L", now=DEADLINE) == [1]
    with transaction(factory) as s:
        league = svc.get_league(s, "L")
        assert league.state == "running"
    total = rounds_count(n, double=double)
    played = svc.run_round(factory, LeagueMail.of(settings), "L", all_rounds=True, now=DEADLINE)
    assert played == list(range(2, total + 1))
    assert svc.run_round(factory, LeagueMail.of(settings), "L", all_rounds=True, now=DEADLINE) == []
    with transaction(factory) as s:
        league = svc.get_league(s, "L")
        assert league.state == "finished"
        assert all(r.state == "done" for r in league.rounds)
        fought = [b for b in s.scalars(select(Battle)) if b.entry_b_id is not None]
        assert len(fought) == n * (n - 1) // 2 * (2 if double else 1)
        sheets = {sv.id: sv for sv in s.scalars(select(SheetVersion))}
        for b in fought:
            # the stored result is the engine's result for the two stored sheet versions
            assert b.state == "done" and b.engine_version == ENGINE_VERSION
            ua = parse_sheet(sheets[b.sheet_a_id].normalized).unit
            ub = parse_sheet(sheets[b.sheet_b_id].normalized).unit
            r = battle(ua, ub, log=False)
            assert (b.winner, b.reason, b.turns, b.hp_a, b.hp_b) == (
                r.winner,
                r.reason.value,
                r.turns,
                r.final[0].hp,
                r.final[1].hp,
            )
            assert b.final["a"]["name"] == ua.name
        players = {e.player_id for e in league.entries}
    out = _outbox(factory)
    kinds = Counter(m.kind for m in out)
    assert kinds == {"report": 2 * len(fought), "standings": total * len(players)}
    keys = [m.dedupe_key for m in out]
    assert len(keys) == len(set(keys))


def test_battle_report_mail_is_threaded_localized_and_complete(
    factory: Factory, settings: Settings
) -> None:
    fill_league(factory, "Mail", 2, langs=("ja", "en"))
    with transaction(factory) as s:
        # player 1 reads ISO-2022-JP
        p1 = svc.get_or_create_player(s, "p1@example.org")
        p1.charset = "iso-2022-jp"
    _close(factory, "Mail")
    svc.run_round(factory, LeagueMail.of(settings), "Mail", now=DEADLINE)
    with transaction(factory) as s:
        b = s.scalar(select(Battle).where(Battle.entry_b_id.is_not(None)))
        assert b is not None
        winner_unit = {0: "U0", 1: "U1", None: None}[b.winner]
        bid = b.id
    reports = {m.dedupe_key: m for m in _outbox(factory) if m.kind == "report"}
    assert set(reports) == {f"report:{bid}:0", f"report:{bid}:1"}
    ja = _parse(reports[f"report:{bid}:0"].raw)
    en = _parse(reports[f"report:{bid}:1"].raw)
    assert ja["To"] == "p0@example.org" and en["To"] == "p1@example.org"
    assert ja["From"].addresses[0].addr_spec == "league@example.net"
    assert ja["In-Reply-To"] == "<sheet-Mail-0@example.org>"
    assert en["In-Reply-To"] == "<sheet-Mail-1@example.org>"
    assert ja["Auto-Submitted"] == "auto-generated"
    assert ja["Subject"].startswith("[Mail] 第1回戦：U0 vs U1 — ")
    # player 1 reads ISO-2022-JP: compose maps "—" to the JIS X 0208 "―" (0b0b751)
    assert en["Subject"].startswith("[Mail] Round 1: U0 vs U1 ― ")
    if winner_unit:
        assert ja["Subject"].endswith(f"{winner_unit}の勝利")
        assert en["Subject"].endswith(f"{winner_unit} wins")
    ja_text = ja.get_body(("plain",)).get_content()
    en_text = en.get_body(("plain",)).get_content()
    en_plain = en.get_body(("plain",))
    assert en_plain.get_content_charset() in ("iso-2022-jp", "utf-8")
    # both sheets and the turn-by-turn log are in the report
    assert "U0：" in ja_text and "U1：" in ja_text and "ターン" in ja_text
    assert "U0:" in en_text and "U1:" in en_text and "Turn 1" in en_text
    assert "リーグ Mail 第1回戦" in ja_text and "League Mail, round 1" in en_text
    html = en.get_body(("html",)).get_content()
    assert html.lstrip().startswith("<!DOCTYPE html>") and "Turn 1" in html


def test_players_of_one_language_get_the_same_words_in_their_own_charsets(
    factory: Factory, settings: Settings
) -> None:
    """Two Japanese players, one reading UTF-8 and one ISO-2022-JP: the report and the standings
    are rendered once for the language and encoded once per charset, so both mails say the same
    words (apart from what ISO-2022-JP cannot carry), the text part in each player's charset
    (the HTML part is UTF-8 for all)."""
    from app.mail.compose import to_jis

    fill_league(factory, "Jis", 2, langs=("ja",))
    with transaction(factory) as s:
        svc.get_or_create_player(s, "p1@example.org").charset = "iso-2022-jp"
    _close(factory, "Jis")
    svc.run_round(factory, LeagueMail.of(settings), "Jis", now=DEADLINE)
    mails = {
        m.dedupe_key.rsplit(":", 1)[0] + ":" + m.recipient: _parse(m.raw) for m in _outbox(factory)
    }
    for kind in ("report", "standings"):
        (a_key,) = [k for k in mails if k.startswith(kind) and k.endswith("p0@example.org")]
        (b_key,) = [k for k in mails if k.startswith(kind) and k.endswith("p1@example.org")]
        utf8, jis = mails[a_key], mails[b_key]
        a_text, b_text = utf8.get_body(("plain",)), jis.get_body(("plain",))
        assert (a_text.get_content_charset(), b_text.get_content_charset()) == (
            "utf-8",
            "iso-2022-jp",
        )
        assert "U0" in a_text.get_content() and "U1" in a_text.get_content()
        # ISO-2022-JP carries a few characters as their JIS X 0208 look-alikes
        assert to_jis(a_text.get_content()) == b_text.get_content()
        a_html, b_html = utf8.get_body(("html",)), jis.get_body(("html",))  # always UTF-8
        assert a_html.get_content_charset() == b_html.get_content_charset() == "utf-8"
        assert a_html.get_content() == b_html.get_content()


def test_running_a_round_twice_is_a_no_op(factory: Factory, settings: Settings) -> None:
    fill_league(factory, "Twice", 4)
    _close(factory, "Twice")
    assert svc.run_round(
        factory, LeagueMail.of(settings), "Twice", round_number=1, now=DEADLINE
    ) == [1]
    before = [(m.id, m.dedupe_key) for m in _outbox(factory)]
    assert (
        svc.run_round(factory, LeagueMail.of(settings), "Twice", round_number=1, now=DEADLINE) == []
    )
    assert [(m.id, m.dedupe_key) for m in _outbox(factory)] == before
    with pytest.raises(svc.BadState):
        svc.run_round(factory, LeagueMail.of(settings), "Twice", round_number=99, now=DEADLINE)


def test_run_round_refuses_while_entries_are_open(factory: Factory, settings: Settings) -> None:
    fill_league(factory, "Early", 3)
    with pytest.raises(svc.BadState) as err:
        svc.run_round(factory, LeagueMail.of(settings), "Early", now=T0)
    assert err.value.code == "entries-open"
    with pytest.raises(svc.NoSuchLeague):
        svc.run_round(factory, LeagueMail.of(settings), "Nope", now=T0)


# --------------------------------------------------------------------------- tick


def test_tick_closes_at_the_deadline_and_plays_rounds_on_time(
    factory: Factory, settings: Settings
) -> None:
    every = dt.timedelta(hours=48)
    fill_league(factory, "Timed", 3, rounds_every=every)
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE - dt.timedelta(seconds=1)) == []
    # at the deadline: entries close and round 1 (due at once) is played
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE) == [
        "closed entries of Timed",
        "played round 1 of Timed",
    ]
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE) == []  # idempotent
    assert (
        svc.tick(factory, LeagueMail.of(settings), now=DEADLINE + every - dt.timedelta(minutes=1))
        == []
    )
    with transaction(factory) as s:
        assert as_utc(svc.get_league(s, "Timed").next_round_at) == DEADLINE + every
    # the server was down for a while: every round now due is played, in order
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE + 3 * every) == [
        "played round 2 of Timed",
        "played round 3 of Timed",
    ]
    with transaction(factory) as s:
        league = svc.get_league(s, "Timed")
        assert league.state == "finished" and league.next_round_at is None
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE + 10 * every) == []


def test_tick_leaves_rounds_without_a_schedule_to_the_organizer(
    factory: Factory, settings: Settings
) -> None:
    fill_league(factory, "Manual", 3)
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE) == ["closed entries of Manual"]
    assert svc.tick(factory, LeagueMail.of(settings), now=DEADLINE + dt.timedelta(days=30)) == []


# --------------------------------------------------------------------------- standings


def test_standings_follow_the_stored_results(factory: Factory, settings: Settings) -> None:
    fill_league(factory, "Table", 6)
    _close(factory, "Table")
    svc.run_round(factory, LeagueMail.of(settings), "Table", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "Table")
        rows = svc.standings(s, league)
        battles = [b for b in s.scalars(select(Battle)) if b.entry_b_id is not None]
        points: Counter[int] = Counter()
        for b in battles:
            if b.winner is None:
                points[b.entry_a_id] += 1
                points[b.entry_b_id] += 1
            else:
                points[(b.entry_a_id, b.entry_b_id)[b.winner]] += 3
        assert {r.entry_id: r.points for r in rows} == {e.id: points[e.id] for e in league.entries}
        assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)
        assert all(r.played == 5 for r in rows)
        # after round 1 only round 1 counts
        early = svc.standings(s, league, upto_round=1)
        assert sum(r.played for r in early) == 6
        text = svc.render_standings(s, league, lang="en")
        html = svc.render_standings(s, league, lang="ja", fmt="html")
        assert "standings after round 5 of 5 (final)" in text
        assert "順位表" in html and "<th " in html  # the standings table's header cells
        for r in rows:
            assert r.name in text and r.unit in html


def test_standings_html_escapes_names(factory: Factory) -> None:
    with transaction(factory) as s:
        league = svc.create_league(s, "Esc", entry_deadline=DEADLINE, now=T0)
        p = svc.get_or_create_player(s, "x@example.org", display_name="<b>Bold</b> & co")
        svc.submit_entry(s, league, p, sheet_text(1), now=T0)
        html = svc.render_standings(s, league, lang="en", fmt="html")
        text = svc.render_standings(s, league, lang="en", fmt="text")
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; co" in html and "<b>Bold" not in html
    assert "<b>Bold</b> & co" in text


# --------------------------------------------------------------------------- fixes


def test_disqualify_voids_pending_games_and_drops_played_ones(
    factory: Factory, settings: Settings
) -> None:
    fill_league(factory, "DQ", 4)
    _close(factory, "DQ")
    svc.run_round(factory, LeagueMail.of(settings), "DQ", now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "DQ")
        svc.disqualify(s, league, "P0@example.org", now=DEADLINE)
        svc.disqualify(s, league, "p0@example.org", now=DEADLINE)  # idempotent
        with pytest.raises(svc.NotEntered):
            svc.disqualify(s, league, "nobody@example.org", now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "DQ")
        dq = next(e for e in league.entries if e.player.address == "p0@example.org")
        theirs = list(
            s.scalars(
                select(Battle).where((Battle.entry_a_id == dq.id) | (Battle.entry_b_id == dq.id))
            )
        )
        assert {b.state for b in theirs} == {"done", "void"}
        assert sum(b.state == "done" for b in theirs) == 1  # round 1 was played
    svc.run_round(factory, LeagueMail.of(settings), "DQ", all_rounds=True, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "DQ")
        rows = svc.standings(s, league)
        assert dq.id not in {r.entry_id for r in rows}
        assert all(r.played == 2 for r in rows)  # three games each, minus the one against p0
        assert "p0@example.org" not in {
            m.recipient
            for m in s.scalars(
                select(OutboxMessage).where(OutboxMessage.dedupe_key.like("standings:%:2:%"))
            )
        }
        assert "Player 0" in svc.render_standings(s, league, lang="en")  # listed as disqualified


def test_resend_queues_again_with_new_keys(factory: Factory, settings: Settings) -> None:
    fill_league(factory, "Re", 3)
    _close(factory, "Re")
    svc.run_round(factory, LeagueMail.of(settings), "Re", now=DEADLINE)
    first = len(_outbox(factory))  # 1 game (2 reports) + 3 standings
    assert first == 5
    assert svc.resend(factory, LeagueMail.of(settings), "Re", 1, now=DEADLINE) == 5
    assert svc.resend(factory, LeagueMail.of(settings), "Re", 1, now=DEADLINE) == 5
    keys = [m.dedupe_key for m in _outbox(factory)]
    assert len(keys) == 15 and sum(k.endswith(":resend2") for k in keys) == 5
    with pytest.raises(svc.BadState):
        svc.resend(factory, LeagueMail.of(settings), "Re", 2, now=DEADLINE)  # not played yet
    with pytest.raises(svc.BadState):
        svc.resend(factory, LeagueMail.of(settings), "Re", 7, now=DEADLINE)


def test_a_new_engine_version_never_changes_a_recorded_result(
    factory: Factory, settings: Settings
) -> None:
    fill_league(factory, "Ver", 2, langs=("en",))
    _close(factory, "Ver")
    svc.run_round(factory, LeagueMail.of(settings), "Ver", now=DEADLINE)
    with transaction(factory) as s:
        b = s.scalar(select(Battle).where(Battle.entry_b_id.is_not(None)))
        assert b is not None
        before = svc.standings(s, svc.get_league(s, "Ver"))
        # pretend the result was recorded by an older engine that gave the same result
        s.execute(update(Battle).where(Battle.id == b.id).values(engine_version="0"))
    svc.resend(factory, LeagueMail.of(settings), "Ver", 1, now=DEADLINE)
    same = [m for m in _outbox(factory) if m.dedupe_key.endswith(":resend1") and m.kind == "report"]
    text = _parse(same[0].raw).get_body(("plain",)).get_content()
    assert "recorded with engine version 0" in text and "gives the same result" in text
    assert "Turn 1" in text
    # now an old engine that recorded another result: the recorded result stands, no log
    with transaction(factory) as s:
        b = s.get(Battle, b.id)
        assert b is not None
        other = 1 if b.winner != 1 else 0
        s.execute(update(Battle).where(Battle.id == b.id).values(winner=other))
        changed = svc.standings(s, svc.get_league(s, "Ver"))
    svc.resend(factory, LeagueMail.of(settings), "Ver", 1, now=DEADLINE)
    again = [
        m for m in _outbox(factory) if m.dedupe_key.endswith(":resend2") and m.kind == "report"
    ]
    text = _parse(again[0].raw).get_body(("plain",)).get_content()
    assert "gives a different result" in text and "The recorded result stands" in text
    assert "Turn 1" not in text
    with transaction(factory) as s:
        b = s.get(Battle, b.id)
        assert b is not None and b.winner == other and b.engine_version == "0"
        assert svc.standings(s, svc.get_league(s, "Ver")) == changed
        # the standings follow the recorded result, not a recomputation
        assert changed[0].entry_id == (b.entry_a_id, b.entry_b_id)[other]
        assert changed[0].points == 3 and changed != before


def test_worker_processes_give_the_same_results_and_reports(
    factory: Factory, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("Solo", "Pool"):
        fill_league(factory, name, 6)
        _close(factory, name)
    monkeypatch.setenv("AMARYLLIS_LEAGUE_WORKERS", "0")
    assert svc.run_round(
        factory, LeagueMail.of(settings), "Solo", all_rounds=True, now=DEADLINE
    ) == [1, 2, 3, 4, 5]
    monkeypatch.setenv("AMARYLLIS_LEAGUE_WORKERS", "2")
    assert svc.run_round(
        factory, LeagueMail.of(settings), "Pool", all_rounds=True, now=DEADLINE
    ) == [1, 2, 3, 4, 5]

    def summary(name: str) -> tuple[list[tuple[object, ...]], Counter[str], list[str]]:
        with transaction(factory) as s:
            league = svc.get_league(s, name)
            results = [
                (r.number, b.board, b.winner, b.reason, b.turns, b.hp_a, b.hp_b, b.state)
                for r in league.rounds
                for b in r.battles
            ]
            ids = {b.id for r in league.rounds for b in r.battles}
            rows = [
                m
                for m in s.scalars(select(OutboxMessage))
                if (m.kind == "report" and int(m.dedupe_key.split(":")[1]) in ids)
                or m.dedupe_key.startswith(f"standings:{league.id}:")
            ]
            bodies = sorted(
                _parse(m.raw).get_body(("plain",)).get_content().replace(name, "LEAGUE")
                for m in rows
                if m.kind == "report"
            )
            return results, Counter(m.kind for m in rows), bodies

    assert summary("Solo") == summary("Pool")


def test_the_stored_schedule_is_the_berger_table(factory: Factory) -> None:
    fill_league(factory, "Berger", 5, double=True)
    _close(factory, "Berger")
    with transaction(factory) as s:
        league = svc.get_league(s, "Berger")
        seat = {e.id: e.seat for e in league.entries}

        expected = [[(p.a, p.b) for p in boards] for boards in berger_schedule(5, double=True)]
        stored = [
            [(seat[b.entry_a_id], seat[b.entry_b_id] if b.entry_b_id else None) for b in r.battles]
            for r in league.rounds
        ]
        assert stored == expected
        byes = Counter(
            b.entry_a_id for r in league.rounds for b in r.battles if b.entry_b_id is None
        )
        assert set(byes.values()) == {2} and len(byes) == 5
        assert all(
            b.state == "done" and b.reason == "bye"
            for r in league.rounds
            for b in r.battles
            if b.entry_b_id is None
        )


def test_two_runners_at_once_fight_each_battle_once(factory: Factory, settings: Settings) -> None:
    import threading

    fill_league(factory, "Race", 8)
    _close(factory, "Race")
    errors: list[BaseException] = []
    played: list[list[int]] = []

    def runner() -> None:
        try:
            played.append(
                svc.run_round(
                    factory, LeagueMail.of(settings), "Race", all_rounds=True, now=DEADLINE
                )
            )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=runner) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    # every round was played by exactly one of the two runners
    assert sorted(n for p in played for n in p) == list(range(1, 8))
    out = _outbox(factory)
    assert Counter(m.kind for m in out) == {"report": 2 * 28, "standings": 7 * 8}
    assert len({m.dedupe_key for m in out}) == len(out)


def test_resent_standings_show_the_round_that_followed_and_say_resent(
    factory: Factory, settings: Settings
) -> None:
    fill_league(factory, "Late", 5, langs=("en", "ja"))  # 5 rounds
    _close(factory, "Late")
    assert svc.run_round(
        factory, LeagueMail.of(settings), "Late", round_number=1, now=DEADLINE
    ) == [1]
    for k in (2, 3, 4):
        svc.run_round(factory, LeagueMail.of(settings), "Late", round_number=k, now=DEADLINE)
    with transaction(factory) as s:
        league = svc.get_league(s, "Late")
        ctx = svc.standings_context(s, league, upto_round=3)
        r4 = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == 4))
        assert r4 is not None and r4.state == "done"
        boards4 = [
            (b.board, b.entry_a_id, b.entry_b_id)
            for b in s.scalars(
                select(Battle).where(Battle.round_id == r4.id).order_by(Battle.board)
            )
        ]
        seat_name = {e.id: (e.player.display_name) for e in league.entries}
    assert ctx.after_round == 3 and ctx.next_round == 4
    assert [(p.board, p.a, p.b) for p in ctx.next_pairings] == [
        (board, seat_name[a], seat_name[b] if b else None) for board, a, b in boards4
    ]
    svc.resend(factory, LeagueMail.of(settings), "Late", 3, now=DEADLINE)
    resent = [m for m in _outbox(factory) if m.dedupe_key.endswith(":resend1")]
    standings_mails = [m for m in resent if m.kind == "standings"]
    reports = [m for m in resent if m.kind == "report"]
    assert standings_mails and reports
    for m in standings_mails:
        msg = _parse(m.raw)
        text = msg.get_body(("plain",)).get_content()
        assert "round 3" in text or "第3回戦" in text
        assert ("Next: round 4" in text) or ("次回：第4回戦" in text)
        assert "round 5" not in text and "第5回戦" not in text
        assert msg["Subject"].endswith(" (resent)") or msg["Subject"].endswith("（再送）")
    for m in reports:
        subj = _parse(m.raw)["Subject"]
        assert subj.endswith(" (resent)") or subj.endswith("（再送）")
    # the mails of the round itself are not marked
    first = [m for m in _outbox(factory) if ":resend" not in m.dedupe_key]
    assert not any(
        "resent" in _parse(m.raw)["Subject"] or "再送" in _parse(m.raw)["Subject"] for m in first
    )


def test_league_mails_thread_under_a_normalized_message_id(
    factory: Factory, settings: Settings
) -> None:
    from app.db.models import InboundMessage

    keys = ["<abc@example.org>>", "sha256:" + "0" * 64, "<<def@example.org>"]
    with transaction(factory) as s:
        league = svc.create_league(s, "Thr", entry_deadline=DEADLINE, now=T0)
        for i, key in enumerate(keys):
            player = svc.get_or_create_player(s, f"t{i}@example.org", lang="en")
            msg = InboundMessage(message_key=key, sender=player.address, subject="e", raw=b"x")
            s.add(msg)
            s.flush()
            assert svc.submit_entry(
                s, league, player, sheet_text(i, "en"), inbound_id=msg.id, now=T0
            ).accepted
    _close(factory, "Thr")  # pairings of round 1
    svc.run_round(factory, LeagueMail.of(settings), "Thr", now=DEADLINE)  # reports and standings
    mails = _outbox(factory)
    assert {m.kind for m in mails} >= {"report", "standings"}
    want = {
        "t0@example.org": "<abc@example.org>",
        "t1@example.org": None,
        "t2@example.org": "<def@example.org>",
    }
    for m in mails:
        msg = _parse(m.raw)
        assert msg["In-Reply-To"] == want[m.recipient], (m.dedupe_key, msg["In-Reply-To"])
        assert msg["References"] == want[m.recipient]


@pytest.mark.parametrize(
    "key,want",
    [
        ("<abc@example.org>", "<abc@example.org>"),
        ("<abc@example.org>>", "<abc@example.org>"),
        ("abc@example.org", "<abc@example.org>"),
        ("<<abc@example.org>", "<abc@example.org>"),
        ("sha256:abcd@x", None),
        ("<no-at-sign>", None),
        ("", None),
        (None, None),
    ],
)
def test_thread_id_has_exactly_one_pair_of_angle_brackets(
    key: str | None, want: str | None
) -> None:
    assert svc.thread_id(key) == want
