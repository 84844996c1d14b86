"""The sender against relays that fail the way real ones do (issue 9.2, 9.3, 8.4), through a real
aiosmtpd server (``tests.servers.FaultySink``) or a TCP server that drops every connection, on
SQLite and PostgreSQL. Every test counts, per recipient, the mails the relay received: lost = 0,
and every duplicate has the Message-ID of the first copy."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from sqlalchemy import select

from app.db.models import OutboxMessage
from app.db.session import transaction
from app.mail.compose import build_message
from app.mail.outbox import enqueue
from app.mail.send import backoff, send_once
from tests.mail.conftest import make_settings
from tests.servers import DroppingServer, FaultySink, SunkMessage


def _now() -> dt.datetime:
    """A moment just after now: rows queued before it are due."""
    return dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=1)


def queue(factory, n: int, *, to: str = "p{i}@example.com") -> dict[str, str]:
    """Queue ``n`` replies; return {recipient: Message-ID}."""
    out = {}
    with transaction(factory) as s:
        for i in range(n):
            msg = build_message(
                sender="tourney@localhost",
                to=to.format(i=i),
                subject=f"Re: entry {i}",
                text=f"reply {i}",
            )
            row = enqueue(s, dedupe_key=f"test:{i}", message=msg)
            out[row.recipient] = row.message_id
    return out


def rows(factory) -> list[OutboxMessage]:
    with factory() as s:
        return list(s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def tally(expected: dict[str, str], got: list[SunkMessage]) -> tuple[int, int]:
    """(lost, duplicates) of the mails the relay received against ``expected``; asserts that
    every copy carries the Message-ID queued for its recipient."""
    seen = Counter(m.rcpt_tos[0] for m in got)
    for m in got:
        assert m.parsed()["Message-ID"] == expected[m.rcpt_tos[0]]
    lost = sum(1 for r in expected if seen[r] == 0)
    return lost, sum(seen.values()) - (len(expected) - lost)


def test_421_after_20_mails_per_connection_charges_nothing(db) -> None:
    """A relay that closes with 421 after 20 mails per connection: the sender reopens for the
    rows behind (14 reopens for 300 mails), every mail goes out in one pass with one attempt.
    Before issue 9: 51 of 300 ended failed."""
    url, factory = db
    expected = queue(factory, 300)
    t0 = _now()
    with FaultySink(per_connection=20) as sink:
        settings = make_settings(url, smtp_url=sink.url, organizers=[])
        report = send_once(settings, factory, now=t0)
        assert len(report.sent) == 300 and report.failed == [] and report.retry == []
        assert report.reopens == 14 and sink.handler.closed_421 == 14
        assert tally(expected, sink.wait_for(300)) == (0, 0)
    assert {(r.status, r.attempts) for r in rows(factory)} == {("sent", 1)}


def test_every_connection_dropping_charges_no_row(db, expect_error_log) -> None:
    """Every connection drops before the greeting: no row was handed to SMTP, so none is charged
    an attempt or failed, however many passes run (before: 36 of 40 failed untried); once the
    relay is back all 40 go out, once each."""
    url, factory = db
    expected = queue(factory, 40)
    t0 = _now()
    with DroppingServer() as relay:
        settings = make_settings(url, smtp_url=relay.url, organizers=[], smtp_max_attempts=2)
        for k in range(10):
            report = send_once(settings, factory, now=t0 + dt.timedelta(hours=k))
            assert report.sent == [] and report.failed == [] and len(report.deferred) == 1
        assert relay.accepted == 10
    assert {(r.status, r.attempts) for r in rows(factory)} == {("queued", 0)}
    with FaultySink() as sink:
        settings = make_settings(url, smtp_url=sink.url, organizers=[])
        assert len(send_once(settings, factory, now=t0 + dt.timedelta(days=1)).sent) == 40
        assert tally(expected, sink.wait_for(40)) == (0, 0)


def test_drop_after_data_resends_with_the_same_message_id(db) -> None:
    """The relay takes 3 mails but cuts the connection before answering the final dot: their
    outcome is unknown, each is charged one attempt and sent again in a later pass with the same
    bytes. Counts: 10 queued, 13 received, 0 lost, 3 duplicates, each with its original
    Message-ID; nothing failed (before: one reply delivered 5 times, ids not checked)."""
    url, factory = db
    expected = queue(factory, 10)
    t0 = _now()
    with FaultySink(drop_after_data=3) as sink:
        settings = make_settings(url, smtp_url=sink.url, organizers=[])
        first = send_once(settings, factory, now=t0)
        assert len(first.unknown) == 3 and len(first.sent) == 7
        again = send_once(settings, factory, now=t0 + backoff(1))
        assert sorted(again.sent) == sorted(first.unknown)
        got = sink.wait_for(13)
        assert len(got) == 13 and sink.handler.dropped == 3
        assert tally(expected, got) == (0, 3)
    assert {r.status for r in rows(factory)} == {"sent"}
    assert sorted(r.attempts for r in rows(factory)) == [1] * 7 + [2] * 3


def test_a_relay_without_smtputf8_fails_only_that_row(db) -> None:
    """One non-ASCII address on a relay without SMTPUTF8 (RFC 6531): that row fails, the rows
    behind it go out on the same connection (issue 8.4)."""
    url, factory = db
    with transaction(factory) as s:
        for i, to in enumerate(["a@example.com", "jos\u00e9@example.com", "b@example.com"]):
            msg = build_message(sender="tourney@localhost", to=to, subject="Re", text="x")
            enqueue(s, dedupe_key=f"t:{i}", message=msg)
    t0 = _now()
    with FaultySink(smtputf8=False) as sink:
        settings = make_settings(url, smtp_url=sink.url, organizers=[])
        report = send_once(settings, factory, now=t0)
        assert len(report.sent) == 2 and len(report.failed) == 1 and report.reopens == 0
        assert sorted(m.rcpt_tos[0] for m in sink.wait_for(2)) == ["a@example.com", "b@example.com"]
    assert [r.status for r in rows(factory)] == ["sent", "failed", "sent"]
    assert "SMTPUTF8" in rows(factory)[1].last_error


def test_4xx_for_one_mail_is_charged_only_to_it(db) -> None:
    """A 451 to one mail's DATA charges that mail only; the connection serves the rest."""
    url, factory = db
    expected = queue(factory, 5)
    t0 = _now()
    with FaultySink() as sink:
        sink.fail_next("451 4.3.0 try later")
        settings = make_settings(url, smtp_url=sink.url, organizers=[])
        report = send_once(settings, factory, now=t0)
        assert len(report.retry) == 1 and len(report.sent) == 4 and report.reopens == 0
        assert len(send_once(settings, factory, now=t0 + backoff(1)).sent) == 1
        assert tally(expected, sink.wait_for(5)) == (0, 0)
    assert sorted(r.attempts for r in rows(factory)) == [1, 1, 1, 1, 2]
