"""The outbox sender against a real aiosmtpd sink: delivery, 4xx retry with backoff, 5xx failure
with an organizer notice, refused connection, requeue."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from app.db.models import OutboxMessage
from app.db.session import transaction
from app.mail.compose import build_message
from app.mail.outbox import enqueue
from app.mail.send import backoff, crlf, requeue, send_once
from tests.mail.conftest import make_settings
from tests.servers import SmtpSink, free_port


def queue(
    factory, n: int, *, to: str = "player@example.com", text: str = "こんにちは"
) -> list[int]:
    ids = []
    with transaction(factory) as s:
        for i in range(n):
            msg = build_message(
                sender="tourney@localhost", to=to, subject=f"Re: 登録 {i}", text=text
            )
            ids.append(enqueue(s, dedupe_key=f"test:{i}", message=msg).id)
    return ids


def rows(factory) -> dict[int, OutboxMessage]:
    with factory() as s:
        return {r.id: r for r in s.scalars(select(OutboxMessage))}


def test_a_row_whose_outcome_write_failed_is_sent_again_by_its_live_sender(
    smtp_sink, db_url, factory, monkeypatch
) -> None:
    """The database goes away after the relay took a mail, before ``sent`` is written (a
    PostgreSQL restart): the pass raises, the row stays ``sending`` under this live process's
    lease; the next pass of the same process queues it again and sends it, same Message-ID
    (before: never, the row of a live owner was left alone for as long as the process ran)."""
    from sqlalchemy.exc import OperationalError

    from app.mail import send

    settings = make_settings(db_url, smtp_url=smtp_sink.url)
    first, second = queue(factory, 2)
    cut = []

    def database_gone(name: str) -> None:
        if name == "after-send" and not cut:
            cut.append(name)
            raise OperationalError("UPDATE outbox", {}, Exception("server closed the connection"))

    monkeypatch.setattr(send, "crash_point", database_gone)
    with pytest.raises(OperationalError):
        send_once(settings, factory)
    assert rows(factory)[first].status == "sending" and rows(factory)[second].status == "queued"
    report = send_once(settings, factory)
    assert report.recovered == [first] and sorted(report.sent) == [first, second]
    got = smtp_sink.wait_for(3)
    assert [m.parsed()["Message-ID"] for m in got].count(rows(factory)[first].message_id) == 2
    assert {(r.status, r.attempts) for r in rows(factory).values()} == {("sent", 2), ("sent", 1)}


def test_crlf_and_backoff() -> None:
    assert crlf(b"a\nb\r\nc\n") == b"a\r\nb\r\nc\r\n"
    assert backoff(1) == dt.timedelta(seconds=60)
    assert backoff(3) == dt.timedelta(seconds=240)
    assert backoff(50) == dt.timedelta(hours=6)


def test_delivers_each_row_once(smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, smtp_url=smtp_sink.url)
    ids = queue(factory, 3)
    report = send_once(settings, factory)
    assert report.sent == ids
    assert send_once(settings, factory).sent == []  # nothing twice
    got = smtp_sink.wait_for(3)
    assert len(got) == 3 and got[0].rcpt_tos == ["player@example.com"]
    assert got[0].parsed().get_body(("plain",)).get_content().strip() == "こんにちは"
    assert all(r.status == "sent" and r.sent_at for r in rows(factory).values())


def test_temporary_failure_is_retried_with_backoff(smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, smtp_url=smtp_sink.url)
    [rid] = queue(factory, 1)
    smtp_sink.fail_next("451 4.3.0 try again later")
    now = dt.datetime.now(dt.timezone.utc)
    report = send_once(settings, factory, now=now)
    assert report.retry == [rid]
    row = rows(factory)[rid]
    assert row.status == "queued" and row.attempts == 1 and "451" in row.last_error
    assert abs(
        (row.next_attempt_at.replace(tzinfo=dt.timezone.utc) - now) - backoff(1)
    ) < dt.timedelta(seconds=1)
    assert send_once(settings, factory, now=now).sent == []  # not due yet
    report = send_once(settings, factory, now=now + backoff(1))
    assert report.sent == [rid]
    assert len(smtp_sink.wait_for(1)) == 1


def test_permanent_failure_is_marked_and_organizer_told(smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, smtp_url=smtp_sink.url)
    [rid] = queue(factory, 1, to="ghost@example.com")
    smtp_sink.fail_next("550 5.1.1 no such user")
    report = send_once(settings, factory)
    assert report.failed == [rid]
    all_rows = rows(factory)
    assert all_rows[rid].status == "failed" and "550" in all_rows[rid].last_error
    notices = [r for r in all_rows.values() if r.kind == "notice"]
    assert [n.recipient for n in notices] == ["org@example.com"]
    # the notice itself went out in the same pass
    sunk = smtp_sink.wait_for(1)
    assert "ghost@example.com" in sunk[0].parsed().get_body(("plain",)).get_content()
    assert notices[0].status == "sent"


def test_refused_connection_charges_nothing_then_recovery(db_url, factory) -> None:
    """A relay that refuses the connection has seen no mail: nothing is charged an attempt (issue
    9.2); the first row is put back (deferred), the others are not even claimed, and the relay's
    failure is recorded for ``status``."""
    from app.db.models import SmtpRelay

    port = free_port()
    settings = make_settings(db_url, smtp_url=f"smtp://127.0.0.1:{port}")
    ids = queue(factory, 2)
    now = dt.datetime.now(dt.timezone.utc)
    report = send_once(settings, factory, now=now)
    assert report.deferred == ids[:1] and report.retry == [] and report.failed == []
    assert all(r.attempts == 0 and r.status == "queued" for r in rows(factory).values())
    assert "connection" in rows(factory)[ids[0]].last_error
    with factory() as s:
        relay = s.scalar(select(SmtpRelay))
        assert relay.failures == 1 and "connection" in relay.last_error and relay.last_ok_at is None
    with SmtpSink(port) as sink:
        report = send_once(settings, factory, now=now + backoff(1))
        assert sorted(report.sent) == ids
        assert len(sink.wait_for(2)) == 2
    assert all(r.attempts == 1 for r in rows(factory).values())
    with factory() as s:
        relay = s.scalar(select(SmtpRelay))
        assert relay.failures == 0 and relay.last_ok_at is not None


def test_attempts_exhausted_fail(smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, smtp_url=smtp_sink.url, smtp_max_attempts=2)
    [rid] = queue(factory, 1)
    smtp_sink.fail_next("451 4.3.0 busy", count=2)
    now = dt.datetime.now(dt.timezone.utc)
    assert send_once(settings, factory, now=now).retry == [rid]
    report = send_once(settings, factory, now=now + dt.timedelta(days=1))
    assert rid in report.failed
    assert rows(factory)[rid].status == "failed" and rows(factory)[rid].attempts == 2


def test_requeue_only_unknown_or_failed(smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, smtp_url=smtp_sink.url, organizers=[])
    [a, b] = queue(factory, 2)
    with transaction(factory) as s:
        s.get(OutboxMessage, a).status = "unknown"
    assert requeue(factory, [a, b]) == 1
    assert send_once(settings, factory).sent == [a, b]


def test_run_forever_and_the_sender_lock(smtp_sink, db_url, factory) -> None:
    import threading

    import pytest

    from app.mail.send import run_forever, sender_lock

    settings = make_settings(db_url, smtp_url=smtp_sink.url, send_interval=0.05)
    stop = threading.Event()
    worker = threading.Thread(target=run_forever, args=(settings, factory), kwargs={"stop": stop})
    worker.start()
    try:
        queue(factory, 2)
        assert len(smtp_sink.wait_for(2, timeout=10)) == 2
        with pytest.raises(RuntimeError, match="another sender"), sender_lock(settings):
            pass
    finally:
        stop.set()
        worker.join(5)
    with sender_lock(settings):  # released on stop
        pass
