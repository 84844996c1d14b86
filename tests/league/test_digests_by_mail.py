"""Digests and mail preferences, end to end through the real IMAP server, the SMTP sink and the
web view (issues 20 and 22).

A 12-entry accumulating league (an all-play-all format: every update is a full round robin, 11
battles a player) is entered by mail; players set their mail preference by mail (English and
Japanese words), one unsubscribes through the ``List-Unsubscribe`` mailto of a league mail. Each
update queues one digest a player (none to a player who chose ``none``) and no report a battle:
a digest carries every battle of its player, each with a link the web server answers, the
standings for ``all`` only, and the full logs for a player who asked for them always. ``logs
LEAGUE ROUND`` by mail returns the logs of the sender's own battles. A round robin keeps one
report a battle.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import func, select

from app.db.models import Battle, Entry, OutboxMessage, Player, Round
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from tests.league.helpers import sheet_text
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import cycle, mk, text
from tests.servers import dovecot  # noqa: F401 - fixture

LEAGUE = "acc"
RR = "rrd"
PLAYERS = 12
DEADLINE = NOW + dt.timedelta(days=7)
#: player -> the line of the preference mail they send before the first update
PREFS = {1: "mail own", 2: "mail none", 3: "mail logs always", 5: "メール設定 自分"}


@dataclass
class Run:
    """The league's servers and what was mailed: settings, database, the sink, the web view."""

    settings: Any
    factory: Any
    user: Any
    sink: Any
    local: str
    domain: str
    base: str
    replies: dict[str, Any] = field(default_factory=dict)
    closed: list[Any] = field(default_factory=list)  # mailed when entries closed

    def address(self, k: int, league: str = LEAGUE) -> str:
        return f"p{k}.{league}@example.org"

    def send(self, raws: list[bytes], now: dt.datetime = NOW) -> list[Any]:
        before = len(self.sink.messages)
        cycle(self.settings, self.factory, self.user, raws, now=now)
        new = self.sink.messages[before:]
        for m in new:
            self.replies[str(m.parsed().get("In-Reply-To", ""))] = m
        return new

    def mail(
        self, k: int, subject: str, body: str, mid: str, *, league: str = LEAGUE, to: str = ""
    ) -> bytes:
        return mk(
            self.address(k, league),
            subject,
            body,
            f"<{mid}@example.org>",
            to=to or f"{self.local}+{league}@{self.domain}",
        )

    def play(self, league: str, now: dt.datetime) -> list[Any]:
        svc.run_round(self.factory, LeagueMail.of(self.settings), league, now=now)
        return self.send([], now)


def _to(messages: list[Any], address: str) -> list[Any]:
    return [m for m in messages if address in m.rcpt_tos]


@pytest.fixture(scope="module")
def run(dovecot: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    from app.db.session import upgrade
    from app.web.server import start_web
    from tests.servers import SmtpSink

    folder = tmp_path_factory.mktemp("digests")
    db_url = f"sqlite:///{folder / 'db.sqlite3'}"
    upgrade(db_url)
    user = dovecot.add_user()
    server = start_web(
        make_settings(db_url, data_dir=folder), host="127.0.0.1", port=0, access_log=False
    )
    try:
        with SmtpSink() as sink:
            settings = make_settings(
                db_url,
                imap_url=user.imap_url,
                smtp_url=sink.url,
                server_address=user.address,
                public_url=server.url,
            )
            local, _, domain = user.address.partition("@")
            factory = session_factory(db_url, migrate=False)
            with transaction(factory) as s:
                svc.create_league(
                    s,
                    LEAGUE,
                    entry_deadline=DEADLINE,
                    now=NOW,
                    format="accumulating",
                    format_options={"updates": "2"},
                )
                svc.create_league(s, RR, entry_deadline=DEADLINE, now=NOW)
                svc.create_league(s, "spare", entry_deadline=DEADLINE, now=NOW)  # stays open
            r = Run(settings, factory, user, sink, local, domain, server.url)
            r.send(
                [
                    r.mail(k, "entry", f"name: P{k}\n{sheet_text(k, 'en')}", f"e{k}")
                    for k in range(1, PLAYERS + 1)
                ]
                + [
                    r.mail(k, "entry", f"name: R{k}\n{sheet_text(k, 'en')}", f"r{k}", league=RR)
                    for k in range(1, 5)
                ]
            )
            r.send(
                [r.mail(k, line, "", f"pref{k}") for k, line in PREFS.items()]
                + [
                    r.mail(k, line, "", f"rpref{k}", league=RR)
                    for k, line in ((1, "mail own"), (2, "unsubscribe"))
                ]
            )
            for name in (LEAGUE, RR):
                with transaction(factory) as s:
                    svc.close_entries(
                        s, svc.get_league(s, name), now=DEADLINE, mail=LeagueMail.of(settings)
                    )
            r.closed = r.send([], DEADLINE)
            yield r
            factory.kw["bind"].dispose()
    finally:
        server.shutdown()


def _prefs(run: Run) -> dict[int, tuple[str, bool]]:
    with run.factory() as s:
        return {
            k: (p.mail_pref, p.digest_logs)
            for k in range(1, PLAYERS + 1)
            for p in s.scalars(select(Player).where(Player.address == run.address(k)))
        }


def test_preferences_are_set_by_mail_and_confirmed(run: Run) -> None:
    prefs = _prefs(run)
    assert prefs[1] == ("own", False) and prefs[2] == ("none", False)
    assert prefs[3] == ("all", True) and prefs[5] == ("own", False)
    assert prefs[4] == ("all", False)
    own = text(run.replies["<pref1@example.org>"])
    assert "only your own battles" in own and "mail none" in own
    assert "nothing but replies" in text(run.replies["<pref2@example.org>"])
    assert "full logs" in text(run.replies["<pref3@example.org>"])
    ja = text(run.replies["<pref5@example.org>"])
    assert "自分の対戦" in ja, ja
    # a word it does not know changes nothing and says so
    run.send([run.mail(6, "mail loudly", "", "pref6bad")])
    assert "loudly" in text(run.replies["<pref6bad@example.org>"])
    assert _prefs(run)[6] == ("all", False)
    # a subject that starts with "mail" above a sheet is the entry it looks like
    run.send(
        [
            run.mail(
                13, "Mail from Alice", f"name: P13\n{sheet_text(13, 'en')}", "e13", league="spare"
            )
        ]
    )
    reply = text(run.replies["<e13@example.org>"])
    assert "not a mail setting" not in reply and "is accepted" in reply, reply


@pytest.fixture(scope="module")
def update1(run: Run) -> list[Any]:
    return run.play(LEAGUE, DEADLINE + dt.timedelta(hours=1))


def _battles(run: Run, number: int) -> dict[int, list[Battle]]:
    """Each player's battles of update ``number``, by player number."""
    with run.factory() as s:
        league = svc.get_league(s, LEAGUE)
        rnd = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == number))
        assert rnd is not None
        owner = {
            e.id: k
            for k in range(1, PLAYERS + 1)
            for e in s.scalars(
                select(Entry)
                .join(Player)
                .where(Entry.league_id == league.id, Player.address == run.address(k))
            )
        }
        out: dict[int, list[Battle]] = {k: [] for k in range(1, PLAYERS + 1)}
        for b in s.scalars(select(Battle).where(Battle.round_id == rnd.id)):
            out[owner[b.entry_a_id]].append(b)
            assert b.entry_b_id is not None
            out[owner[b.entry_b_id]].append(b)
        return out


def test_an_update_queues_one_digest_a_player_not_a_report_a_battle(
    run: Run, update1: list[Any]
) -> None:
    with run.factory() as s:
        league = svc.get_league(s, LEAGUE)
        keys = list(s.scalars(select(OutboxMessage.dedupe_key)))
        battles = s.scalar(
            select(func.count())
            .select_from(Battle)
            .join(Round)
            .where(Round.league_id == league.id, Round.number == 1)
        )
    assert battles == PLAYERS * (PLAYERS - 1) // 2
    ours = [
        k for k in keys if k.startswith((f"digest:{league.id}:1:", f"standings:{league.id}:1:"))
    ]
    # everyone but the player who chose "none"; the standings ride in the digests
    assert sorted(ours) == sorted(
        f"digest:{league.id}:1:{e}" for e in _entries(run) if e != _entries(run)[2 - 1]
    )
    assert not [k for k in keys if k.startswith("report:")]  # the round robin is not played yet
    assert len(update1) == PLAYERS - 1
    assert not _to(update1, run.address(2))


def _entries(run: Run) -> list[int]:
    with run.factory() as s:
        league = svc.get_league(s, LEAGUE)
        return [
            s.scalar(
                select(Entry.id)
                .join(Player)
                .where(Entry.league_id == league.id, Player.address == run.address(k))
            )
            for k in range(1, PLAYERS + 1)
        ]


def test_a_digest_carries_every_battle_with_links_the_web_answers(
    run: Run, update1: list[Any]
) -> None:
    mine = _battles(run, 1)
    checked = 0
    with httpx.Client(timeout=30) as web:
        for k in (4, 6, 7):
            [digest] = _to(update1, run.address(k))
            msg = digest.parsed()
            body = text(digest)
            assert "11 battles" in str(msg["Subject"])
            links = re.findall(r"(http://\S+/battles/(\d+))", body)
            assert sorted(int(i) for _, i in links) == sorted(b.id for b in mine[k])
            for url, _ in links:
                page = web.get(url)
                assert page.status_code == 200, url
                assert f"P{k}" in page.text
                checked += 1
            assert "Standings after round 1" in body  # preference "all"
            assert "P12" in body.split("Standings after round 1")[1]
            assert f'"logs {LEAGUE} 1"' in body
            assert str(msg["List-Id"]).endswith(f"<{LEAGUE}.{run.domain}>")
            assert (
                str(msg["List-Unsubscribe"])
                == f"<mailto:{run.settings.server_address}?subject=unsubscribe>"
            )
    assert checked == 3 * (PLAYERS - 1)


def test_own_gets_no_standings_and_always_gets_the_logs(run: Run, update1: list[Any]) -> None:
    for k in (1, 5):  # "own", in English and in Japanese: the results only, 11 links
        [own] = _to(update1, run.address(k))
        body = text(own)
        assert [line for line in body.splitlines() if line.startswith("==")] == [
            body.splitlines()[
                [i for i, ln in enumerate(body.splitlines()) if ln.startswith("==")][0]
            ]
        ]
        assert len(re.findall(r"/battles/\d+", body)) == PLAYERS - 1
    [logs] = _to(update1, run.address(3))
    body = text(logs)
    assert body.count("\n--- Board ") == PLAYERS - 1
    assert "Standings after round 1" in body


def test_logs_by_mail_are_the_senders_own_battles(run: Run, update1: list[Any]) -> None:
    new = run.send([run.mail(7, f"logs {LEAGUE} 1", "", "logs7")], DEADLINE + dt.timedelta(hours=2))
    [reply] = _to(new, run.address(7))
    body = text(reply)
    assert body.count("\n--- Board ") == PLAYERS - 1
    titles = re.findall(r"^--- Board \d+: (\S+) vs (\S+)\s*$", body, re.M)
    assert all("U7" in t for t in titles) and len(titles) == PLAYERS - 1
    # Japanese words, the league from the plus address, the last update by default
    new = run.send([run.mail(8, "ログ", "", "logs8")], DEADLINE + dt.timedelta(hours=2))
    assert text(_to(new, run.address(8))[0]).count("\n--- ") == PLAYERS - 1


def test_list_unsubscribe_mailto_sets_none_and_confirms(run: Run, update1: list[Any]) -> None:
    [digest] = _to(update1, run.address(4))
    target = urlsplit(str(digest.parsed()["List-Unsubscribe"]).strip("<>"))
    assert target.scheme == "mailto"
    subject = parse_qs(target.query)["subject"][0]
    new = run.send(
        [run.mail(4, subject, "", "unsub4", to=target.path)], DEADLINE + dt.timedelta(hours=3)
    )
    [reply] = _to(new, run.address(4))
    assert "unsubscribed" in text(reply) and "List-Id" not in reply.parsed()
    assert _prefs(run)[4] == ("none", False)
    update2 = run.play(LEAGUE, DEADLINE + dt.timedelta(days=2))
    assert not _to(update2, run.address(4)) and not _to(update2, run.address(2))
    assert len(update2) == PLAYERS - 2
    assert all(
        re.search(r"Round 2: your 11 battles|第2回戦：あなたの11戦", str(m.parsed()["Subject"]))
        for m in update2
    )


def test_own_gets_its_first_pairing_when_entries_close(run: Run) -> None:
    """The mail that entries closed carries the player's first pairing: about their own entry,
    so "own" gets it; "unsubscribe" does not."""
    got = {k: _to(run.closed, run.address(k, RR)) for k in range(1, 5)}
    assert len(got[1]) == 1 and "round 1" in text(got[1][0]).lower()
    assert got[2] == []
    assert all(len(got[k]) == 1 for k in (3, 4))


def test_a_round_robin_keeps_a_report_a_battle_by_preference(run: Run) -> None:
    new = run.play(RR, DEADLINE + dt.timedelta(hours=1))
    with run.factory() as s:
        keys = list(
            s.scalars(
                select(OutboxMessage.dedupe_key).where(OutboxMessage.dedupe_key.like("report:%"))
            )
        )
    assert len(keys) == 3  # two battles, two players each, but R2 unsubscribed
    got = {
        k: [str(m.parsed()["Subject"]) for m in _to(new, run.address(k, RR))] for k in range(1, 5)
    }
    assert got[2] == []  # "unsubscribe": nothing
    assert len(got[1]) == 1 and "Standings" not in got[1][0]  # "own": the report only
    for k in (3, 4):  # "all": the report and the standings
        assert len(got[k]) == 2 and sum("Standings" in sub for sub in got[k]) == 1, got[k]
    assert not any(": your" in sub for subs in got.values() for sub in subs)
    assert all(str(m.parsed()["List-Id"]).endswith(f"<{RR}.{run.domain}>") for m in new)


def test_a_resent_digest_round_resends_the_digests(run: Run, update1: list[Any]) -> None:
    from app.league.fixes import resend

    queued = resend(
        run.factory, LeagueMail.of(run.settings), LEAGUE, 1, now=DEADLINE + dt.timedelta(days=3)
    )
    new = run.send([], DEADLINE + dt.timedelta(days=3))
    wanted = [k for k, (pref, _logs) in _prefs(run).items() if pref != "none"]
    assert queued == len(new) == len(wanted)
    assert all(str(m.parsed()["Subject"]).endswith((" (resent)", "（再送）")) for m in new)
    assert all(len(re.findall(r"/battles/\d+", text(m))) == PLAYERS - 1 for m in new)
