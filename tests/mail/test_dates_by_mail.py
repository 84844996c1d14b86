"""Issue 20: one date form in every mail. Mails showed both ``2026-12-04 01:35 UTC`` and
``2026-12-02T01:51:17Z`` (the standings mail's next round). Every mail that names a time —
organizer replies, a confirmation request, the standings of an open league, a lockout notice,
the standings after a round — now writes ``YYYY-MM-DD HH:MM UTC`` (``app.reports.dates``). Through
real Dovecot, the pipeline, the league and the SMTP sink."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from app.league import service as svc
from app.mail.send import send_once
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import BOLT, cycle, mk

pytestmark = pytest.mark.dovecot

HUMAN = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MACHINE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d{2}:\d{2}(:\d{2})?Z\b|[+-]\d{2}:\d{2}\b")


def readable(sunk) -> list[str]:
    """The texts a reader sees: every text part, decoded (not the header: ``Date`` stays RFC
    5322)."""
    return [
        part.get_content() for part in sunk.parsed().walk() if part.get_content_maintype() == "text"
    ]


def test_every_mail_writes_times_in_one_human_form(mail_user, smtp_sink, db_url, factory) -> None:
    to = mail_user.address
    conf = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=to,
        password_attempts=2,
    )
    org = "org@example.com"
    # an organizer opens a league by mail, rounds every 2 days (a reply with the deadline)
    cycle(
        conf,
        factory,
        mail_user,
        [mk(org, "open autumn +7d 2d", "password: orgpw\n", "<o1@x.org>", to=to)],
    )
    # three entries, a forged replacement (a confirmation request: expiry and deadline), the
    # standings of the open league (its deadline), wrong organizer passwords (the lockout's end)
    cycle(
        conf,
        factory,
        mail_user,
        [
            mk("alice@example.org", "[autumn] entry", BOLT, "<a1@x.org>", to=to),
            mk(
                "bob@example.org",
                "[autumn] entry",
                BOLT.replace("Bolt", "Volt"),
                "<b1@x.org>",
                to=to,
            ),
            mk(
                "dave@example.org",
                "[autumn] entry",
                BOLT.replace("Bolt", "Watt"),
                "<d1@x.org>",
                to=to,
            ),
        ],
    )
    cycle(
        conf,
        factory,
        mail_user,
        [
            mk(
                "alice@example.org",
                "[autumn] replace",
                BOLT.replace("Bolt", "Evil"),
                "<f1@x.org>",
                to=to,
            ),
            mk("carol@example.org", "[autumn] standings", "", "<c1@x.org>", to=to),
            mk(org, "close autumn", "password: nope\n", "<o2@x.org>", to=to),
            mk(org, "close autumn", "password: nope again\n", "<o3@x.org>", to=to),
        ],
    )
    # entries close by the deadline (the scheduler), round 1 is played at its time: the
    # standings mail names the time of round 2
    later = NOW + dt.timedelta(days=8)
    from app.mail.league_mail import LeagueMail

    svc.tick(factory, LeagueMail.of(conf), now=later)
    svc.tick(factory, LeagueMail.of(conf), now=later + dt.timedelta(minutes=1))
    while send_once(conf, factory).sent:
        pass

    texts = [
        (m.rcpt_tos[0], str(m.parsed()["Subject"]), t)
        for m in smtp_sink.messages
        for t in readable(m)
    ]
    assert len(smtp_sink.messages) >= 8
    seen = 0
    for rcpt, subject, text in texts:
        assert not MACHINE.search(text), (rcpt, subject, MACHINE.search(text))
        for found in DATE.finditer(text):
            where = text[found.start() : found.start() + 30]
            assert HUMAN.match(text, found.start()), (rcpt, subject, where)
            seen += 1
    said = "\n".join(t for _r, _s, t in texts)
    kinds = {
        "open": "entries until",
        "confirm": "expires at",
        "lockout": "until",
        "standings": "Next: round 2 at",
    }
    for kind, words in kinds.items():
        assert re.search(re.escape(words) + r"\s+" + HUMAN.pattern, said), kind
    assert seen >= 6
