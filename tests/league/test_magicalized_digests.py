"""Margaret Magicalized in an all-play-all format, by mail: the digest of an update and the logs
asked for by mail carry the reader's own private block (hand, rule trace) once per battle and
nothing of anyone else's orders; a player who unsubscribed gets neither pairing mails nor a
digest (``docs/magicalized.md``; issue 22)."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import ruleset
from tests.league.test_magicalized_by_mail import PRIVATE, _marker, _orders
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import cycle, mk, text
from tests.servers import dovecot  # noqa: F401 - fixture

LEAGUE = "mgz"  # the orders helpers write this league's name
PLAYERS = 5
#: the player who unsubscribes (in Japanese) before entries close: no pairing mail, no digest
QUIET = 5
DEADLINE = NOW + dt.timedelta(days=7)


@pytest.fixture(scope="module")
def played(
    dovecot: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[int, list[Any]], Any, dict[int, list[Any]]]]:
    """Every player's mails after one update (player number -> sunk messages), a function
    that mails a command from player ``k`` and returns the reply, and the mails each player
    got when entries closed."""
    from app.db.session import upgrade
    from tests.servers import SmtpSink

    folder = tmp_path_factory.mktemp("mgzdigest")
    db_url = f"sqlite:///{folder / 'db.sqlite3'}"
    upgrade(db_url)
    user = dovecot.add_user()
    rs = ruleset("margaret-magicalized")
    rng = random.Random("mgz-digest")
    sheets = [
        rs.format_sheet(rs.random_entry(rng, name=f"U{k}"), "en") for k in range(1, PLAYERS + 1)
    ]
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
                now=NOW,
                ruleset="margaret-magicalized",
                options={"checkpoints": "none"},
                format="accumulating",
                format_options={"updates": "1"},
            )

        def mail(k: int, subject: str, body: str, mid: str) -> bytes:
            return mk(
                f"p{k}.mgzd@example.org",
                subject,
                body,
                f"<{mid}@example.org>",
                to=f"{local}+{LEAGUE}@{domain}",
            )

        cycle(
            settings,
            factory,
            user,
            [
                mail(k, "entry", f"name: P{k}\n{sheets[k - 1]}\n{_orders(k)}", f"e{k}")
                for k in range(1, PLAYERS + 1)
            ],
        )
        cycle(
            settings,
            factory,
            user,
            [
                mail(k, "mail logs always", "", f"pref{k}")
                for k in range(1, PLAYERS + 1)
                if k != QUIET
            ]
            + [mail(QUIET, "配信停止", "", "unsub")],
        )
        before = len(sink.messages)
        with transaction(factory) as s:
            svc.close_entries(
                s, svc.get_league(s, LEAGUE), now=DEADLINE, mail=LeagueMail.of(settings)
            )
        cycle(settings, factory, user, [], now=DEADLINE)  # the pairing mails
        start = len(sink.messages)
        pairings = {
            k: [m for m in sink.messages[before:start] if f"p{k}.mgzd@example.org" in m.rcpt_tos]
            for k in range(1, PLAYERS + 1)
        }
        svc.run_round(factory, LeagueMail.of(settings), LEAGUE, now=DEADLINE)
        cycle(settings, factory, user, [], now=DEADLINE)
        got = {
            k: [m for m in sink.messages[start:] if f"p{k}.mgzd@example.org" in m.rcpt_tos]
            for k in range(1, PLAYERS + 1)
        }

        def ask(k: int, line: str, mid: str) -> Any:
            before = len(sink.messages)
            cycle(settings, factory, user, [mail(k, line, "", mid)], now=DEADLINE)
            [reply] = sink.messages[before:]
            return reply

        yield got, ask, pairings
        factory.kw["bind"].dispose()


def _check(body: str, k: int) -> None:
    assert len(PRIVATE.findall(body)) == PLAYERS - 1  # one private block a battle: the reader's
    assert len(re.findall(r"remaining hand: |残りの手札：", body)) == PLAYERS - 1  # their own
    leaked = [j for j in range(1, PLAYERS + 1) if j != k and _marker(j) in body]
    assert not leaked, (k, leaked)


def test_a_digest_carries_the_readers_private_blocks_only(played: Any) -> None:
    got, _ask, _pairings = played
    for k in range(1, PLAYERS + 1):
        if k == QUIET:
            continue
        [digest] = got[k]
        body = text(digest)
        assert re.search(r"your 4 battles|あなたの4戦", str(digest.parsed()["Subject"]))
        _check(body, k)


def test_unsubscribed_gets_no_pairing_and_no_digest(played: Any) -> None:
    got, _ask, pairings = played
    assert got[QUIET] == [] and pairings[QUIET] == []
    for k in range(1, PLAYERS):  # the others: the standings with the pairings, a pairing mail
        subjects = [str(m.parsed()["Subject"]) for m in pairings[k]]
        assert sum("send your orders" in sub for sub in subjects) == 1, subjects
        assert sum("Entries closed" in sub for sub in subjects) == 1, subjects


def test_logs_by_mail_carry_the_senders_private_blocks_only(played: Any) -> None:
    _got, ask, _pairings = played
    for k in (2, 3):
        _check(text(ask(k, f"logs {LEAGUE} 1", f"logs{k}")), k)
