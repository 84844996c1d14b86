"""A Margaret Hundred hill with non-default league options takes ten challenges by mail, through
the real IMAP and SMTP servers (issue 19): every challenge is answered with its results and the
new table, read with the league's options, and every member pushed off is told."""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from sqlalchemy import func, select

from app.db.models import League, OutboxMessage, Round
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.rules import ruleset
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import cycle, mk, text
from tests.servers import SmtpSink, dovecot  # noqa: F401 - fixture

OPTIONS = {"budget": 12, "party_cap": 2}
CHALLENGES = 10
SIZE = 4


def test_ten_challenges_by_mail_are_each_answered(dovecot: Any, tmp_path: Any) -> None:
    from app.db.session import upgrade

    db_url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade(db_url)
    user = dovecot.add_user()
    rs = ruleset("margaret-hundred", OPTIONS)
    rng = random.Random("hundred-hill")
    sheets = [
        rs.format_sheet(rs.random_entry(rng, name=f"H{k}"), "en") for k in range(1, CHALLENGES + 1)
    ]
    assert all(rs.parse_sheet(t).ok for t in sheets)
    with SmtpSink() as sink:
        settings = make_settings(
            db_url, imap_url=user.imap_url, smtp_url=sink.url, server_address=user.address
        )
        local, _, domain = user.address.partition("@")
        factory = session_factory(db_url, migrate=False)
        with transaction(factory) as s:
            svc.create_league(
                s,
                "hh",
                entry_deadline=NOW + dt.timedelta(days=7),
                now=NOW,
                ruleset="margaret-hundred",
                options=OPTIONS,
                format="hill",
                format_options={"size": str(SIZE)},
            )
        for k, sheet in enumerate(sheets, start=1):  # one challenge after another
            cycle(
                settings,
                factory,
                user,
                [
                    mk(
                        f"c{k}@example.org",
                        "entry",
                        f"name: C{k}\n{sheet}",
                        f"<hh-{k}@example.org>",
                        to=f"{local}+hh@{domain}",
                    )
                ],
            )
        replies = {}
        for m in sink.messages:
            replies[str(m.parsed().get("In-Reply-To", ""))] = text(m)
        for k in range(1, CHALLENGES + 1):
            reply = replies.get(f"<hh-{k}@example.org>", "")
            assert "is accepted" in reply, (k, reply)
            assert re.search(rf"challenge {k}\b", reply), (k, reply)  # its own arrival
        with factory() as s:
            league = s.scalar(select(League).where(League.name == "hh"))
            assert league is not None and league.options == svc.league_ruleset(league).options
            arrivals = s.scalar(
                select(func.count()).select_from(Round).where(Round.league_id == league.id)
            )
            pushed = list(
                s.scalars(
                    select(OutboxMessage.dedupe_key).where(
                        OutboxMessage.dedupe_key.like(f"hill-off:{league.id}:%")
                    )
                )
            )
        assert arrivals == CHALLENGES
        # the hill holds SIZE: a member that fell was told once; a challenger that did not place
        # learned it from its own reply
        assert 0 < len(pushed) <= CHALLENGES - SIZE and len(pushed) == len(set(pushed))
        told = {
            a
            for m in sink.messages
            for a in m.rcpt_tos
            if "Pushed off" in str(m.parsed()["Subject"])
        }
        assert len(told) == len(pushed)
        factory.kw["bind"].dispose()
