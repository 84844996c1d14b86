"""The outbox sender: delivers ``OutboxMessage`` rows over SMTP, at most once each.

Row states: ``queued`` -> ``sending`` -> ``sent``; ``queued`` again with ``next_attempt_at`` pushed
back on a temporary failure (4xx reply, refused or dropped connection; RFC 5321 §4.2.1);
``failed`` on a permanent failure (5xx) or when ``smtp_max_attempts`` is used up; ``unknown`` for
a row found in ``sending`` when a pass starts (the previous sender died between committing
``sending`` and committing ``sent``: the mail may or may not have left).

Guarantee (see ``docs/mail.md``): **a row is never handed to SMTP twice** by the sender. ``sending``
is committed before the SMTP transaction and ``unknown`` rows are not retried automatically; the
organizers get a notice and can requeue them by hand (``amaryllis send --requeue ID``). The price is
that a crash inside that window (milliseconds per mail) can lose a reply, which a person then
re-sends; the alternative (resend and hope the receiver dedupes on Message-ID) would break the
"never twice" rule for ordinary MTAs, which do not dedupe.

Only one sender may run against a database at a time (``serve`` runs one; cron jobs must not
overlap: ``send --once`` takes a lock file in ``data_dir``).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import logging
import os
import re
import smtplib
import socket
import ssl
import threading
from dataclasses import dataclass, field

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import OutboxMessage, utcnow
from app.db.session import transaction
from app.mail.compose import build_message, enqueue
from app.mail.faults import crash_point

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 60.0
BACKOFF_MAX_S = 6 * 3600.0


_BARE_LF = re.compile(rb"(?<!\r)\n")


def crlf(raw: bytes) -> bytes:
    """``raw`` with every line ending as CRLF (RFC 5321 §2.3.8; ``email.policy.default`` writes
    bare LF and smtplib passes bytes through unchanged)."""
    return _BARE_LF.sub(b"\r\n", raw)


def backoff(attempts: int) -> dt.timedelta:
    """Delay before attempt ``attempts + 1``: 60 s doubling per attempt, at most 6 h."""
    return dt.timedelta(seconds=min(BACKOFF_BASE_S * 2 ** max(attempts - 1, 0), BACKOFF_MAX_S))


@dataclass
class SendReport:
    """What one pass did: row ids by outcome."""

    sent: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"sent {len(self.sent)}, retry later {len(self.retry)}, failed {len(self.failed)}, "
                f"unknown {len(self.unknown)}")


def connect_smtp(settings: Settings, timeout: float = 30.0) -> smtplib.SMTP:
    """An SMTP connection per ``settings.smtp_url`` (plain, STARTTLS or implicit TLS; AUTH when
    the URL has a user), with TCP_NODELAY. Raises ``OSError``/``smtplib.SMTPException``."""
    ep = settings.smtp
    ctx = ssl.create_default_context()
    if ep.security == "tls":
        client: smtplib.SMTP = smtplib.SMTP_SSL(ep.host, ep.port, timeout=timeout, context=ctx)
    else:
        client = smtplib.SMTP(ep.host, ep.port, timeout=timeout)
    if client.sock is not None:
        client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client.ehlo()
    if ep.security == "starttls":
        client.starttls(context=ctx)
        client.ehlo()
    if ep.user:
        client.login(ep.user, ep.password or "")
    return client


def notify_organizers(session: Session, settings: Settings, *, key: str, subject: str, text: str,
                      now: dt.datetime) -> int:
    """Record a notice for the organizers' next digest (``app.mail.notices``; once per ``key``).
    Returns 1 when recorded, 0 when ``key`` was recorded before."""
    from app.mail import notices

    return notices.notify_organizers(session, settings, key=key, subject=subject, text=text, now=now)


def _recover(settings: Settings, factory: sessionmaker[Session], now: dt.datetime, report: SendReport) -> None:
    with transaction(factory) as s:
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.status == "sending")).all()
        for row in rows:
            row.status = "unknown"
            row.last_error = "sender stopped during the SMTP transaction; not resent (may have left)"
            report.unknown.append(row.id)
            if row.kind != "notice":
                notify_organizers(
                    s, settings, key=f"notice:unknown:{row.id}", now=now,
                    subject=f"[amaryllis] outbox #{row.id} in unknown state",
                    text=(f"The sender stopped while handing outbox row #{row.id} to SMTP.\n"
                          f"To: {row.recipient}\nMessage-ID: {row.message_id}\n\n"
                          f"It was not sent again, so the player gets it at most once. If the player "
                          f"did not receive it, run: amaryllis send --requeue {row.id}\n"),
                )


def _fail(s: Session, settings: Settings, row: OutboxMessage, error: str, now: dt.datetime) -> None:
    row.status = "failed"
    row.last_error = error
    if row.kind != "notice":
        notify_organizers(
            s, settings, key=f"notice:failed:{row.id}", now=now,
            subject=f"[amaryllis] delivery to {row.recipient} failed",
            text=(f"Outbox row #{row.id} to {row.recipient} failed permanently after "
                  f"{row.attempts} attempt(s):\n{error}\n\nMessage-ID: {row.message_id}\n"),
        )


def _temporary(s: Session, settings: Settings, row: OutboxMessage, error: str, now: dt.datetime,
               report: SendReport) -> None:
    row.attempts += 1
    if row.attempts >= settings.smtp_max_attempts:
        _fail(s, settings, row, f"gave up after {row.attempts} attempts: {error}", now)
        report.failed.append(row.id)
        return
    row.status = "queued"
    row.last_error = error
    row.next_attempt_at = now + backoff(row.attempts)
    report.retry.append(row.id)


def send_once(settings: Settings, factory: sessionmaker[Session], *, now: dt.datetime | None = None,
              limit: int = 10_000) -> SendReport:
    """One pass over the outbox: recover crashed rows, then deliver every due ``queued`` row over
    one SMTP connection. Returns a :class:`SendReport`. SMTP errors never escape: they become row
    states (4xx/connection -> retry with :func:`backoff`; 5xx -> ``failed`` + organizer notice).
    """
    now = now or utcnow()
    report = SendReport()
    _recover(settings, factory, now, report)
    from app.mail import notices

    while True:
        with transaction(factory) as s:
            notices.flush(s, settings, now=now)  # organizer notices, digested (issue #8.7)
        with factory() as s:
            ids = s.scalars(
                select(OutboxMessage.id)
                .where(OutboxMessage.status == "queued", OutboxMessage.next_attempt_at <= now)
                .order_by(OutboxMessage.id).limit(limit)
            ).all()
        ids = [i for i in ids if i not in report.sent + report.retry + report.failed]
        if not ids:
            return report
        # notices queued by failures in this pass are picked up by the next turn of the loop
        _deliver(settings, factory, ids, now, report)


def _deliver(settings: Settings, factory: sessionmaker[Session], ids: list[int], now: dt.datetime,
             report: SendReport) -> None:
    try:
        client = connect_smtp(settings)
    except (OSError, smtplib.SMTPException) as exc:
        with transaction(factory) as s:
            for row in s.scalars(select(OutboxMessage).where(OutboxMessage.id.in_(ids))):
                _temporary(s, settings, row, f"connection: {exc}", now, report)
        return
    try:
        for row_id in ids:
            with transaction(factory) as s:
                claimed = s.execute(
                    update(OutboxMessage)
                    .where(OutboxMessage.id == row_id, OutboxMessage.status == "queued")
                    .values(status="sending", next_attempt_at=now)
                ).rowcount
                row = s.get(OutboxMessage, row_id)
            if not claimed or row is None:
                continue
            crash_point("before-smtp")
            error: str | None = None
            permanent = False
            try:
                options = ["SMTPUTF8"] if not row.sender.isascii() or not row.recipient.isascii() else []
                if any(b > 0x7F for b in row.raw[:200_000]):
                    options.append("BODY=8BITMIME")
                client.sendmail(row.sender, [row.recipient], crlf(row.raw), mail_options=options)
            except smtplib.SMTPRecipientsRefused as exc:
                code, msg = next(iter(exc.recipients.values()))
                error, permanent = f"{code} {msg!r}", code >= 500
            except smtplib.SMTPResponseException as exc:
                error, permanent = f"{exc.smtp_code} {exc.smtp_error!r}", exc.smtp_code >= 500
            except smtplib.SMTPNotSupportedError as exc:
                # the relay lacks SMTPUTF8 for this row's address: this row can never go through
                # this relay, the connection is fine for the rows behind it (SMTPException is an
                # OSError: without this clause it counted as a lost connection, issue #8.4)
                error, permanent = f"relay: {exc}", True
            except (smtplib.SMTPServerDisconnected, OSError) as exc:
                error = f"connection: {exc}"
            except smtplib.SMTPException as exc:
                error = f"smtp: {exc}"
            crash_point("after-send")
            with transaction(factory) as s:
                row = s.get(OutboxMessage, row_id)
                if error is None:
                    row.status, row.sent_at, row.attempts = "sent", utcnow(), row.attempts + 1
                    row.last_error = None
                    report.sent.append(row_id)
                elif permanent:
                    row.attempts += 1
                    _fail(s, settings, row, error, now)
                    report.failed.append(row_id)
                else:
                    _temporary(s, settings, row, error, now, report)
            if error is not None and not permanent and "connection" in error:
                # the connection is gone: the rest waits for the next pass
                with transaction(factory) as s:
                    rest = [i for i in ids if i not in report.sent + report.retry + report.failed]
                    for r in s.scalars(select(OutboxMessage).where(
                            OutboxMessage.id.in_(rest), OutboxMessage.status == "queued")):
                        _temporary(s, settings, r, error, now, report)
                return
            if error is not None:
                try:  # after a failed transaction reset the session state
                    client.rset()
                except (smtplib.SMTPException, OSError):
                    pass
    finally:
        try:
            client.quit()
        except (smtplib.SMTPException, OSError):
            client.close()


def requeue(factory: sessionmaker[Session], ids: list[int]) -> int:
    """Put ``unknown`` or ``failed`` rows back in the queue (an organizer's decision). Returns the
    number of rows changed."""
    with transaction(factory) as s:
        rows = s.scalars(select(OutboxMessage).where(
            OutboxMessage.id.in_(ids), OutboxMessage.status.in_(("unknown", "failed")))).all()
        for row in rows:
            row.status, row.next_attempt_at, row.last_error = "queued", utcnow(), None
        return len(rows)


class SenderLocked(RuntimeError):
    """Another sender (``amaryllis serve`` or ``send``) holds ``data_dir/sender.lock``."""


class _Lock:
    """An exclusive, non-blocking lock file (one sender per data_dir); entering raises
    :class:`SenderLocked` (a ``RuntimeError``) when another process holds it."""

    def __init__(self, path: os.PathLike[str] | str) -> None:
        self.path = path

    def __enter__(self) -> _Lock:
        os.makedirs(os.path.dirname(os.fspath(self.path)) or ".", exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise SenderLocked(f"another sender holds {self.path}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def sender_lock(settings: Settings) -> _Lock:
    """The lock file that keeps two senders apart: ``data_dir/sender.lock``."""
    return _Lock(os.path.join(os.fspath(settings.data_dir), "sender.lock"))


def run_forever(settings: Settings, factory: sessionmaker[Session], *,
                stop: threading.Event | None = None) -> None:
    """Send every ``send_interval`` seconds until ``stop`` is set (or forever), holding the
    sender lock. Raises ``RuntimeError`` when another sender holds it."""
    stop = stop or threading.Event()
    with sender_lock(settings):
        while not stop.is_set():
            report = send_once(settings, factory)
            if report.sent or report.failed or report.unknown:
                log.info("outbox: %s", report)
            stop.wait(settings.send_interval)
