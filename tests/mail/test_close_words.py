"""The organizer's ``close`` by mail counts players and rounds with the right plural, through
the catalogs (issue 20, item 11: "1 rounds"). Through real Dovecot and the SMTP sink."""

from __future__ import annotations

import pytest

from tests.mail.conftest import make_settings, open_league
from tests.mail.hostile import BOLT, cycle, mk, reply_of, row_of

pytestmark = pytest.mark.dovecot


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("close spring", "Entries of spring closed: 2 players, 1 round; round 1 when you run it."),
        ("締切 spring", "参加者 2 人、全 1 回戦"),
    ],
)
def test_close_says_one_round(
    command: str, said: str, mail_user, smtp_sink, db_url, factory
) -> None:
    to = mail_user.address
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=to,
        organizers=["org@example.com"],
    )
    open_league(factory, "spring")
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk("a@example.org", "entry", BOLT, "<e1@x.org>", to=to),
            mk("b@example.org", "entry", BOLT.replace("Bolt", "Volt"), "<e2@x.org>", to=to),
        ],
    )
    cycle(
        settings,
        factory,
        mail_user,
        [mk("org@example.com", command, "password: orgpw\n", "<c1@x.org>", to=to)],
    )
    _out, reply = reply_of(factory, row_of(factory, "<c1@x.org>").id)
    assert said in reply, reply
    assert "1 rounds" not in reply
