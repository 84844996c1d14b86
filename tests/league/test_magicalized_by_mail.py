"""Margaret Magicalized played by mail, end to end through the real IMAP and SMTP servers
(issue 21; ``shared/rules/margaret-magicalized.md`` §3, §4.2): entries with orders below the
sheet, orders alone (with the key on the ``MAGICALIZED`` line, and without it: the owner's
confirmation), a rejected orders text whose reply names the line, pairing mails with the
opponent's sheet and the draw, battles stopped at a checkpoint with each player's own state
mail, a revision and READY, early play once every paired player has sent orders, and reports
whose private block (hand, rule trace) reaches its owner only. Nothing of anyone's orders
appears on any page, JSON document, CSV file or feed, nor in any mail to another player.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.db.models import Battle, Entry, League, OrdersVersion, Player, Round
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import ruleset
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import cycle, mk, text
from tests.servers import dovecot  # noqa: F401 - fixture

LEAGUE = "mgz"
RULESET = "margaret-magicalized"
OPTIONS = {"checkpoints": [1]}
PLAYERS = 4
DEADLINE = NOW + dt.timedelta(days=7)
EVERY = dt.timedelta(days=1)


def _orders(k: int, *, key: str = "", ja: bool = False) -> str:
    """Player ``k``'s orders: a hand with a distinctive rule (``damage >= 4k`` is in no other
    player's orders), so that a leak shows."""
    head = f"MAGICALIZED {LEAGUE} HAND {key}\n" if key else ""
    if ja:
        return (
            head + "既定\n手札 愛×3、燃×2、凍、星\n命令\n"
            f"ON my ACT PLAY 愛 my ONCE\nON enemy HIT IF damage >= 4{k} PLAY 燃\n終わり\n"
        )
    return (
        head + "DEFAULT\nHAND 愛×3、燃×2、凍、星\nORDERS\n"
        f"ON my ACT PLAY 愛 my ONCE\nON enemy HIT IF damage >= 4{k} PLAY 燃\nEND\n"
    )


def _marker(k: int) -> str:
    return f"damage >= 4{k}"


@dataclass
class Run:
    """The league after play: settings, database, the SMTP sink's mails by recipient, the
    replies by Message-ID of the mail answered, and the web view's base URL."""

    settings: Any
    factory: Any
    user: Any
    sink: Any
    local: str
    domain: str
    keys: dict[int, str] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)

    def address(self, k: int) -> str:
        return f"p{k}.mgz@example.org"

    def send(self, raws: list[bytes], now: dt.datetime) -> None:
        before = len(self.sink.messages)
        cycle(self.settings, self.factory, self.user, raws, now=now)
        for m in self.sink.messages[before:]:
            msg = m.parsed()
            self.replies[str(msg.get("In-Reply-To", ""))] = text(m)

    def mail(self, k: int, subject: str, body: str, mid: str) -> bytes:
        return mk(
            self.address(k),
            subject,
            body,
            f"<{mid}@example.org>",
            to=f"{self.local}+{LEAGUE}@{self.domain}",
        )

    def to(self, k: int) -> list[tuple[str, str]]:
        """Every mail player ``k`` got: (subject, plain text)."""
        out = []
        for m in self.sink.messages:
            if self.address(k) in m.rcpt_tos:
                msg = m.parsed()
                out.append((str(msg["Subject"]), text(m)))
        return out

    def tick(self, now: dt.datetime) -> list[str]:
        done = svc.tick(self.factory, LeagueMail.of(self.settings), now=now)
        self.send([], now)
        return done


@pytest.fixture(scope="module")
def run(dovecot: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    from app.db.session import upgrade
    from tests.servers import SmtpSink

    folder = tmp_path_factory.mktemp("mgz")
    db_url = f"sqlite:///{folder / 'db.sqlite3'}"
    upgrade(db_url)
    user = dovecot.add_user()
    with SmtpSink() as sink:
        settings = make_settings(
            db_url, imap_url=user.imap_url, smtp_url=sink.url, server_address=user.address
        )
        local, _, domain = user.address.partition("@")
        factory = session_factory(db_url, migrate=False)
        with transaction(factory) as s:
            svc.create_league(
                s,
                LEAGUE,
                entry_deadline=DEADLINE,
                rounds_every=EVERY,
                now=NOW,
                ruleset=RULESET,
                options=OPTIONS,
            )
        r = Run(settings, factory, user, sink, local, domain)
        yield r
        factory.kw["bind"].dispose()


def _sheets() -> list[str]:
    rs = ruleset(RULESET)
    rng = random.Random("mgz-by-mail")
    return [
        rs.format_sheet(rs.random_entry(rng, name=f"U{k}"), "en") for k in range(1, PLAYERS + 1)
    ]


@pytest.fixture(scope="module")
def entered(run: Run) -> Run:
    """Four entries: P1 with orders below the sheet, P2 and P3 with a sheet alone, P4 first
    with broken orders below a good sheet (nothing entered), then right."""
    sheets = _sheets()
    bad = _orders(4).replace("PLAY 燃", "PLAY 燃燃燃")
    run.send(
        [
            run.mail(1, "entry", f"name: P1\n{sheets[0]}\n{_orders(1)}", "e1"),
            run.mail(2, "entry", f"name: P2\n{sheets[1]}", "e2"),
            run.mail(3, "entry", f"name: P3\n{sheets[2]}", "e3"),
            run.mail(4, "entry", f"name: P4\n{sheets[3]}\n{bad}", "e4bad"),
        ],
        NOW,
    )
    run.send([run.mail(4, "entry", f"name: P4\n{sheets[3]}\n{_orders(4, ja=True)}", "e4")], NOW)
    for k in range(1, PLAYERS + 1):
        found = re.search(r"key: ([0-9A-Z]{4}-[0-9A-Z]{4})", run.replies[f"<e{k}@example.org>"])
        assert found, run.replies[f"<e{k}@example.org>"]
        run.keys[k] = found.group(1)
    return run


def test_orders_below_a_sheet_are_entered_with_it(entered: Run) -> None:
    reply = entered.replies["<e1@example.org>"]
    assert "is accepted" in reply and _marker(1) in reply  # the orders as kept, to their owner
    with entered.factory() as s:
        texts = {
            p.address: t
            for p, t in s.execute(
                select(Player, OrdersVersion.text)
                .join(Entry, Entry.player_id == Player.id)
                .join(OrdersVersion, OrdersVersion.entry_id == Entry.id)
                .where(OrdersVersion.active)
            )
        }
    assert set(texts) == {entered.address(1), entered.address(4)}


def test_broken_orders_below_a_good_sheet_enter_nothing(entered: Run) -> None:
    reply = entered.replies["<e4bad@example.org>"]
    assert "not accepted" in reply and "the orders below it are not" in reply
    assert 'Line 7: "ON enemy HIT IF damage >= 44 PLAY 燃燃燃"' in reply, reply  # names the line
    assert "fix:" in reply


def test_orders_alone_with_the_key_are_taken_at_once(entered: Run) -> None:
    run = entered
    run.send([run.mail(2, "my hand", _orders(2, key=run.keys[2]), "o2")], NOW)
    reply = run.replies["<o2@example.org>"]
    assert "are accepted (version 1)" in reply and _marker(2) in reply


def test_orders_without_the_key_wait_for_the_owner(entered: Run) -> None:
    run = entered
    run.send([run.mail(3, "my hand", _orders(3), "o3")], NOW)
    request = run.replies["<o3@example.org>"]
    assert "sent new orders for your entry" in request
    assert _marker(3) in request  # the owner sees what they would confirm
    token = re.search(r"confirm ([0-9a-f]{32})", request)
    assert token
    run.send(
        [
            mk(
                run.address(3),
                f"Re: confirm {token.group(1)} [{LEAGUE}]",
                "yes",
                "<c3@example.org>",
                to=f"{run.local}@{run.domain}",
            )
        ],
        NOW,
    )
    assert "are accepted" in run.replies["<c3@example.org>"]


def test_a_bad_orders_line_is_named_and_changes_nothing(entered: Run) -> None:
    run = entered
    broken = _orders(3, key=run.keys[3]).replace("ON my ACT PLAY 愛 my ONCE", "ON my ACT PLAY")
    run.send([run.mail(3, "my hand", broken, "o3bad")], NOW)
    reply = run.replies["<o3bad@example.org>"]
    assert "were not accepted" in reply and 'Line 5: "ON my ACT PLAY"' in reply, reply
    with run.factory() as s:
        versions = list(
            s.scalars(
                select(OrdersVersion.version)
                .join(Entry)
                .join(Player)
                .where(Player.address == run.address(3))
            )
        )
    assert versions == [1]


@pytest.fixture(scope="module")
def paired(entered: Run) -> Run:
    """Entries closed: round 1 is paired and mailed, due one interval later."""
    run = entered
    test_orders_alone_with_the_key_are_taken_at_once(run)
    test_orders_without_the_key_wait_for_the_owner(run)
    with transaction(run.factory) as s:
        svc.close_entries(
            s, svc.get_league(s, LEAGUE), now=DEADLINE, mail=LeagueMail.of(run.settings)
        )
    run.send([], DEADLINE)
    return run


def test_pairing_mails_show_the_opponent_and_the_draw(paired: Run) -> None:
    for k in range(1, PLAYERS + 1):
        pairing = [t for subj, t in paired.to(k) if "send your orders" in subj]
        assert len(pairing) == 1, paired.to(k)
        body = pairing[0]
        assert "SHA-256" in body or "SHA-256" in body.upper()  # the draw and how to check it
        assert f"MAGICALIZED {LEAGUE} HAND {paired.keys[k]}" in body
        assert "Your standing orders serve this battle" in body  # everyone has orders now
        assert not any(_marker(j) in body for j in range(1, PLAYERS + 1))


#: round 1 is due one interval after the close (``DEADLINE + EVERY``); orders sent before the
#: pairing do not play it early, orders sent by every paired player after it do
WAITING_AT = DEADLINE + dt.timedelta(minutes=30)
STOPPED_AT = DEADLINE + dt.timedelta(hours=1)
#: the revision and the READYs come in before the wait (one interval) is over
RESUMED_AT = STOPPED_AT + dt.timedelta(hours=1)


def _round1_states(run: Run) -> set[str]:
    with run.factory() as s:
        return set(
            s.scalars(
                select(Battle.state)
                .join(Round)
                .where(Round.number == 1, Battle.entry_b_id.is_not(None))
            )
        )


@pytest.fixture(scope="module")
def stopped(paired: Run) -> Run:
    run = paired
    assert run.tick(WAITING_AT) == [] and _round1_states(run) == {"pending"}
    run.send(
        [
            run.mail(k, "orders", _orders(k, key=run.keys[k]), f"again{k}")
            for k in range(1, PLAYERS)
        ],
        WAITING_AT,
    )  # three of four answer the pairing
    assert run.tick(WAITING_AT) == [] and _round1_states(run) == {"pending"}
    run.send(
        [run.mail(PLAYERS, "orders", _orders(PLAYERS, key=run.keys[PLAYERS]), f"again{PLAYERS}")],
        STOPPED_AT,
    )
    assert run.tick(STOPPED_AT) == []  # every one answered: played at once, to the checkpoint
    assert run.tick(STOPPED_AT + dt.timedelta(minutes=5)) == []  # nobody READY yet: waits
    return run


def test_battles_stop_at_the_checkpoint_and_each_player_gets_their_own_state(stopped: Run) -> None:
    with stopped.factory() as s:
        states = list(
            s.scalars(
                select(Battle.state)
                .join(Round)
                .where(Round.number == 1)
                .where(Battle.entry_b_id.is_not(None))
            )
        )
    assert states and set(states) == {"paused"}
    for k in range(1, PLAYERS + 1):
        stops = [t for subj, t in stopped.to(k) if "stopped after turn" in subj]
        assert len(stops) == 1, [subj for subj, _ in stopped.to(k)]
        body = stops[0]
        assert f"key: {stopped.keys[k]}" in body
        assert _marker(k) in body  # their own rules
        assert not any(_marker(j) in body for j in range(1, PLAYERS + 1) if j != k)


def test_a_stopped_round_says_so_on_the_league_page(stopped: Run, tmp_path: Any) -> None:
    """The league page calls a round whose battles wait at a checkpoint stopped, not due."""
    from app.web.server import start_web

    server = start_web(
        make_settings(stopped.settings.database_url, data_dir=tmp_path),
        host="127.0.0.1",
        port=0,
        access_log=False,
    )
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            page = client.get(f"/leagues/{LEAGUE}", headers={"Accept-Language": "en"})
            assert page.status_code == 200
            row = re.search(r'<a href="#round-1">1</a></td><td>([^<]*)</td>', page.text)
            assert row and row.group(1) == "stopped at a checkpoint", row
            data = client.get(f"/leagues/{LEAGUE}.json").json()
            assert data["rounds"][0]["state"] == "scheduled"  # the JSON keeps its schema's states
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def resumed(stopped: Run) -> Run:
    """P1 revises from turn 2, the others say READY; the battles go on at the next tick."""
    run = stopped
    later = RESUMED_AT
    revision = (
        f"ORDERS FROM TURN 2\nON enemy HIT IF damage >= 49 PLAY 燃\nEND\nkey: {run.keys[1]}\n"
    )
    run.send(
        [
            run.mail(1, "revision", revision, "r1"),
            run.mail(2, "ready", f"key: {run.keys[2]}", "y2"),
            run.mail(3, "ready", "", "y3nokey"),
        ],
        later,
    )
    run.send(
        [
            run.mail(3, "ready", f"key: {run.keys[3]}", "y3"),
            run.mail(4, "準備完了", f"キー：{run.keys[4]}", "y4"),
        ],
        later,
    )
    run.done = run.tick(later)  # type: ignore[attr-defined]
    return run


def test_a_revision_and_ready_are_answered(resumed: Run) -> None:
    r = resumed.replies
    assert "accepted, in force from turn 2" in r["<r1@example.org>"], r["<r1@example.org>"]
    assert "You are READY in 1 battle" in r["<y2@example.org>"]
    assert "must carry your entry key" in r["<y3nokey@example.org>"]
    assert "1戦で準備完了です" in r["<y4@example.org>"]  # answered in the language of the mail


def test_the_round_ends_when_both_are_ready(resumed: Run) -> None:
    assert "played round 1 of mgz" in resumed.done  # type: ignore[attr-defined]
    with resumed.factory() as s:
        rows = list(
            s.execute(
                select(Battle.state, Battle.inputs)
                .join(Round)
                .where(Round.number == 1, Battle.entry_b_id.is_not(None))
            )
        )
    assert rows and {state for state, _ in rows} == {"done"}
    revised = [
        inputs for _, inputs in rows if any(o and "damage >= 49" in o for o in inputs["orders"])
    ]
    assert len(revised) == 1 and "FROM TURN 2" in " ".join(o or "" for o in revised[0]["orders"])


PRIVATE = re.compile(r"\(not sent to the opponent\)|（相手には送られません）")


def test_reports_carry_the_readers_private_block_only(resumed: Run) -> None:
    report = re.compile(r"(Round 1:|第1回戦：).*(wins|draw|の勝利|引き分け)")
    for k in range(1, PLAYERS + 1):
        reports = [t for subj, t in resumed.to(k) if report.search(subj)]
        assert len(reports) == 1, [subj for subj, _ in resumed.to(k)][4:]
        body = reports[0]
        assert len(PRIVATE.findall(body)) == 1  # one private block: the reader's
        assert re.search(r"remaining hand: |残りの手札：", body)  # their own hand


def test_no_mail_to_another_player_and_no_page_carries_anyones_orders(
    resumed: Run, tmp_path: Any
) -> None:
    from app.web.server import start_web

    for k in range(1, PLAYERS + 1):
        for subj, body in resumed.to(k):
            leaked = [j for j in range(1, PLAYERS + 1) if j != k and _marker(j) in body]
            assert not leaked, (k, subj)
    server = start_web(
        make_settings(resumed.settings.database_url, data_dir=tmp_path),
        host="127.0.0.1",
        port=0,
        access_log=False,
    )
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            pages = [
                f"/leagues/{LEAGUE}",
                f"/leagues/{LEAGUE}.json",
                f"/leagues/{LEAGUE}/standings.csv",
                "/feed.atom",
                f"/leagues/{LEAGUE}/rounds/1",
                f"/leagues/{LEAGUE}/rounds/1.json",
            ]
            with resumed.factory() as s:
                ids = list(
                    s.scalars(
                        select(Battle.id)
                        .join(Round)
                        .where(Round.number == 1, Battle.entry_b_id.is_not(None))
                    )
                )
            pages += [f"/leagues/{LEAGUE}/battles/{i}" for i in ids]
            pages += [f"/leagues/{LEAGUE}/battles/{i}.json" for i in ids]
            for path in pages:
                got = client.get(path)
                assert got.status_code == 200, path
                for k in range(1, PLAYERS + 1):
                    assert _marker(k) not in got.text, path
                assert not PRIVATE.search(got.text), path
            page = client.get(f"/leagues/{LEAGUE}/battles/{ids[0]}").text
            assert "Happy Caress" in page or "愛" in page  # the cards played are public
    finally:
        server.shutdown()


def test_a_hill_challenger_fights_with_the_orders_below_its_sheet(entered: Run) -> None:
    """A format that fights entries on arrival: the orders mailed with the sheet are stored
    before the challenge is fought, so the arrival's battles use them (and never stop at a
    checkpoint: an arrival is one transaction)."""
    run = entered
    with transaction(run.factory) as s:
        svc.create_league(
            s,
            "mgzhill",
            entry_deadline=DEADLINE,
            now=NOW,
            ruleset=RULESET,
            options=OPTIONS,
            format="hill",
            format_options={"size": "3"},
        )
    sheets = _sheets()
    to = f"{run.local}+mgzhill@{run.domain}"
    run.send(
        [
            mk(
                run.address(k),
                "entry",
                f"{sheets[k - 1]}\n{_orders(k)}",
                f"<h{k}@example.org>",
                to=to,
            )
            for k in (1, 2)
        ],
        NOW,
    )
    for k in (1, 2):
        assert "is accepted" in run.replies[f"<h{k}@example.org>"], run.replies[
            f"<h{k}@example.org>"
        ]
    with run.factory() as s:
        rows = list(
            s.execute(
                select(Battle.state, Battle.inputs, Battle.stop_turn)
                .join(Round)
                .join(League)
                .where(League.name == "mgzhill", Battle.entry_b_id.is_not(None))
            )
        )
    assert len(rows) == 1
    state, inputs, stop = rows[0]
    assert state == "done" and stop is None
    assert all(o and "HAND" in o for o in inputs["orders"])  # both sides' standing orders


def test_a_test_battle_plays_the_senders_orders_against_a_cardless_opponent(entered: Run) -> None:
    """TEST never uses anyone's real hand: the sender's orders against the sample units, which
    hold no cards; the reply carries the sender's private block only."""
    run = entered
    sheets = _sheets()
    run.send(
        [
            run.mail(1, "test", f"{sheets[0]}\n{_orders(1)}", "t1"),
            run.mail(1, "test", f"{sheets[0]}\n{_orders(1).replace('PLAY 燃', 'PLAY')}", "t1bad"),
        ],
        NOW,
    )
    reply = run.replies["<t1@example.org>"]
    assert "its opponents held no cards" in reply
    assert "Happy Caress" in reply or "愛" in reply  # the sender's rule 1 played its card
    samples = len(ruleset(RULESET).sample_sheets())
    assert len(PRIVATE.findall(reply)) == samples  # one block per test battle: the sender's
    bad = run.replies["<t1bad@example.org>"]
    assert "No test battle was fought" in bad and "Line 7:" in bad, bad


def test_a_vs_section_naming_no_unit_of_the_league_is_warned(entered: Run) -> None:
    """A ``VS`` name matching no other unit of the league (a misspelling) is accepted but
    called out: such a section is never used, and its writer would otherwise fight with
    DEFAULT unnoticed. A ``VS`` naming a real opponent is not."""
    run = entered
    body = _orders(1, key=run.keys[1])
    rules = body.split("ORDERS\n", 1)[1].removesuffix("END\n")
    hand = "HAND 愛×3、燃×2、凍、星\nORDERS\n"
    body += f"VS U2\n{hand}{rules}END\nVS Nobody Here\n{hand}{rules}END\n"
    run.send([run.mail(1, "my hand", body, "ovs")], NOW)
    reply = run.replies["<ovs@example.org>"]
    assert "are accepted" in reply, reply
    assert "VS Nobody Here: no other unit in this league has that name now" in reply
    assert "VS U2:" not in reply
