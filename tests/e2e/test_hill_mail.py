"""A hill played by mail end to end: ten entries arriving one by one through a real IMAP server
(Dovecot) and the pipeline; each entry's reply, delivered over SMTP to the sink, carries its
result against every member and its place; members pushed off are told so by mail.

Bounded work, not time: each entry is answered by one ``poll_once`` + one ``send_once`` pass
(the challenge is fought in the entering mail's transaction)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import select

from app.db.models import League
from app.db.session import transaction
from app.league import service as svc
from app.league.formats import set_format
from app.mail.inbound import poll_once
from app.mail.send import send_once
from tests.league.helpers import sheet_text
from tests.mail.conftest import db_url, factory, make_settings, migrated_template  # noqa: F401
from tests.servers import dovecot, imap_append, mail_user, smtp_sink  # noqa: F401 - fixtures

SIZE = 6


def _mail(i: int, league: str, to: str) -> bytes:
    body = f"league: {league}\n{sheet_text(i, 'en')}\n"
    return (
        f"From: Player {i} <hp{i}@example.org>\r\nTo: {to}\r\nSubject: entry\r\n"
        f"Message-ID: <hill-{i}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"\r\n{body}"
    ).encode()


@pytest.mark.dovecot
def test_ten_entries_one_by_one_each_reply_has_results_and_place(
    mail_user, smtp_sink, db_url, factory
) -> None:
    settings = make_settings(
        db_url, mail_user.imap_url, smtp_sink.url, server_address=mail_user.address
    )
    start = dt.datetime.now(dt.timezone.utc)  # the outbox stamps rows with the real clock
    with transaction(factory) as s:
        league = svc.create_league(
            s, "kingofthehill", entry_deadline=start + dt.timedelta(days=1), now=start
        )
        set_format(league, "hill", {"size": SIZE})
    pushed_told: set[str] = set()
    for i in range(10):
        now = dt.datetime.now(dt.timezone.utc)
        smtp_sink.clear()
        imap_append(mail_user.imap_url, [_mail(i, "kingofthehill", mail_user.address)])
        assert poll_once(settings, factory, now=now) == 1
        report = send_once(settings, factory)  # now: after the rows were stamped
        expected = 1 + (1 if i >= SIZE else 0)  # the reply, and a push-off notice from 7 on
        got = smtp_sink.wait_for(expected)
        replies = [m for m in got if m.rcpt_tos == [f"hp{i}@example.org"]]
        assert len(replies) == 1, [m.rcpt_tos for m in got]
        text = replies[0].parsed().get_body(("plain",)).get_content()
        assert f"== The hill (challenge {i + 1}, size {SIZE})" in text, text
        # one line per member met, each naming its unit
        results = re.findall(r"^(win|loss|draw)\s+against (U\d+) ", text, re.M)
        assert len(results) == min(i, SIZE)
        assert {u for _, u in results} <= {f"U{k}" for k in range(i)}
        place = re.search(r"Your place: (\d+) of (\d+)\.|placed (\d+) and was pushed off", text)
        assert place is not None, text
        members = min(i + 1, SIZE)
        if place.group(1):
            assert 1 <= int(place.group(1)) <= members and int(place.group(2)) == members
        # rank, points, W/D/L, then the hill's columns (HP margin, wins, age), then the unit
        table = re.findall(
            r"^(\S+)\s+\d+\s+\d+/\d+/\d+\s+[+-]?\d+\s+\d+\s+\d+\s+(U\d+) \((.*)$", text, re.M
        )
        assert len(table) == members, text
        if place.group(1):  # the place said is the rank the table shows the player at
            (mine,) = [rank for rank, _u, rest in table if rest.rstrip().endswith("<- you")]
            assert mine.rstrip("=") == place.group(1), text
        for m in got:
            if m.rcpt_tos != [f"hp{i}@example.org"]:
                body = m.parsed().get_body(("plain",)).get_content()
                assert "pushed off the hill" in body
                pushed_told.add(m.rcpt_tos[0])
        assert len(report.sent) == len(got)
    with transaction(factory) as s:
        league = s.scalar(select(League).where(League.name == "kingofthehill"))
        assert league is not None and league.state == "open"
        assert len(league.format_state["members"]) == SIZE
    assert len(pushed_told) >= 1
