"""The outbox sender: delivers ``OutboxMessage`` rows over SMTP, **at least once** each.

Row states: ``queued`` -> ``sending`` (claimed, with a lease) -> ``sent``; ``queued`` again with
``next_attempt_at`` pushed back (:func:`backoff`) after a temporary failure the relay gave *this
mail* (a 4xx reply, RFC 5321 §4.2.1) or an unknown outcome; ``failed`` on a permanent failure
(5xx, or a relay without SMTPUTF8 for a non-ASCII address, RFC 6531) or once
``smtp_max_attempts`` are used up. ``unknown`` is left only by versions before migration 0005.

Guarantee (``docs/mail.md``, ``docs/deploy.md``): **every queued mail is delivered at least once,
and every copy has the same bytes, so the same Message-ID**. Exactly once is impossible over SMTP:
when the connection drops after the message content was sent, or the sender is killed inside
the SMTP transaction, nobody knows whether the relay took it; the row is sent again, and mail
clients and providers fold the copies on their shared Message-ID.

- **Claims**: a row is claimed by one conditional update (``status='queued'`` -> ``sending`` with
  ``lease_owner`` = this sender's id and ``lease_until``; on PostgreSQL the candidate is picked with
  ``SELECT ... FOR UPDATE SKIP LOCKED``), so several senders (``serve`` processes on one database,
  on one machine or several) never hand one row to SMTP at the same time.
- **Recovery** (:func:`recover`) touches only rows whose lease is over: ``lease_until`` passed, or
  the owner was a process on this host that no longer runs (pid and start time from ``/proc``),
  and this process's own rows whose outcome it could not write (the database went away after the
  SMTP transaction). Another live sender's rows are never touched. Recovered rows are charged an attempt (the relay may
  have seen them) and queued again unchanged.
- **Attempts**: a row is charged an attempt only when the relay saw it: a reply to its
  ``MAIL``/``RCPT``/``DATA`` or a connection lost after its content went out. A refused
  connection, ``421`` (the relay closes, RFC 5321 §3.8) or a drop before the content are not
  the mail's fault: the row goes back uncharged and the connection is reopened for it and the
  rows behind it, at most :data:`MAX_REOPENS` times in a row without a delivery per pass (then the
  pass ends and the rows wait for the next one).
- **Stop**: the pass checks ``stop`` before each row, so ``serve`` stops between two mails.

The relay's health goes to ``smtp_relays`` (last success, last error, consecutive failing passes)
for ``amaryllis status``.
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
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.leases import lease_over, owner_id
from app.db.models import OutboxBody, OutboxMessage, SmtpRelay, utcnow
from app.db.session import rowcount, transaction
from app.mail.faults import crash_point

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 60.0
BACKOFF_MAX_S = 6 * 3600.0
#: connections reopened in a row, without a mail delivered in between, before a pass gives up
MAX_REOPENS = 3
#: consecutive failing passes after which a relay is reported at ERROR and in the alerts file
FAILING_PASSES = 3
#: seconds a claimed row stays leased (renewed by nothing: one row is one SMTP transaction,
#: bounded by the SMTP timeouts; another host takes a row over only after this)
LEASE_S = 600.0

_BARE_LF = re.compile(rb"(?<!\r)\n")
_DOT = re.compile(rb"(?m)^\.")


def crlf(raw: bytes) -> bytes:
    """``raw`` with every line ending as CRLF (RFC 5321 §2.3.8; ``email.policy.default`` writes
    bare LF and smtplib passes bytes through unchanged)."""
    return _BARE_LF.sub(b"\r\n", raw)


def backoff(attempts: int) -> dt.timedelta:
    """Delay before attempt ``attempts + 1``: 60 s doubling per attempt, at most 6 h."""
    return dt.timedelta(seconds=min(BACKOFF_BASE_S * 2 ** max(attempts - 1, 0), BACKOFF_MAX_S))


@dataclass
class SendReport:
    """What one pass did: row ids by outcome. ``retry``: charged a temporary failure;
    ``deferred``: put back uncharged (the relay was unreachable or closed the connection before
    seeing them); ``recovered``: rows of a dead sender queued again (same Message-ID);
    ``unknown``: rows whose outcome this pass could not know (connection lost after the content
    was sent), queued again; ``reopens``: connections reopened."""

    sent: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)
    deferred: list[int] = field(default_factory=list)
    recovered: list[int] = field(default_factory=list)
    reopens: int = 0
    pruned: int = 0

    def __str__(self) -> str:
        return (
            f"sent {len(self.sent)}, retry later {len(self.retry)}, failed {len(self.failed)}, "
            f"unknown outcome {len(self.unknown)}, deferred {len(self.deferred)}, "
            f"recovered {len(self.recovered)}"
        )


def connect_smtp(settings: Settings, timeout: float | None = None) -> smtplib.SMTP:
    """An SMTP connection per ``settings.smtp_url`` (plain, STARTTLS or implicit TLS; AUTH when
    the URL has a user), with TCP_NODELAY; every socket operation times out after ``timeout``
    (default ``settings.smtp_timeout``) seconds. Raises ``OSError``/``smtplib.SMTPException``."""
    from app.mail import sockets

    ep = settings.smtp
    timeout = settings.smtp_timeout if timeout is None else timeout
    ctx = ssl.create_default_context()
    # sockets tracked from the start: serve's stop cuts them (app.mail.sockets)
    if ep.security == "tls":
        client: smtplib.SMTP = sockets.TrackedSMTP_SSL(
            ep.host, ep.port, timeout=timeout, context=ctx
        )
    else:
        client = sockets.TrackedSMTP(ep.host, ep.port, timeout=timeout)
    try:
        if client.sock is not None:
            client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.ehlo()
        if ep.security == "starttls":
            client.starttls(context=ctx)
            sockets.track(client.sock)
            client.ehlo()
        if ep.user:
            client.login(ep.user, ep.password or "")
    except BaseException:
        client.close()
        raise
    return client


def notify_organizers(
    session: Session, settings: Settings, *, key: str, subject: str, text: str, now: dt.datetime
) -> int:
    """Record a notice for the organizers' next digest (``app.mail.notices``; once per ``key``).
    Returns 1 when recorded, 0 when ``key`` was recorded before."""
    from app.mail import notices

    return notices.notify_organizers(
        session, settings, key=key, subject=subject, text=text, now=now
    )


def _lease(now: dt.datetime) -> dt.datetime:
    return now + dt.timedelta(seconds=LEASE_S)


#: ids of rows this process claimed whose outcome it could not write (the database went away
#: after the SMTP transaction): still ``sending`` under this live process's lease, so
#: :func:`recover` takes them back at once instead of never (the owner is alive)
_UNRECORDED: set[int] = set()


def recover(
    factory: sessionmaker[Session], now: dt.datetime, report: SendReport | None = None
) -> list[int]:
    """Queue again every ``sending`` row whose lease is over (:func:`lease_over`), and every row
    of this process whose outcome could not be written (``_UNRECORDED``), charged one attempt,
    unchanged (same bytes, same Message-ID). Rows of live senders are left alone; each row is
    taken back by a conditional update on the owner seen, so two recovering senders never both
    take it. Returns the ids recovered."""
    me = owner_id()
    done: list[int] = []
    with transaction(factory) as s:
        rows = s.execute(
            select(OutboxMessage.id, OutboxMessage.lease_owner, OutboxMessage.lease_until).where(
                OutboxMessage.status == "sending"
            )
        ).all()
        for row_id, owner, until in rows:
            if owner == me and row_id in _UNRECORDED:
                pass
            elif owner == me or not lease_over(owner, until, now):
                continue
            n = rowcount(
                s.execute(
                    update(OutboxMessage)
                    .where(
                        OutboxMessage.id == row_id,
                        OutboxMessage.status == "sending",
                        OutboxMessage.lease_owner.is_(None)
                        if owner is None
                        else OutboxMessage.lease_owner == owner,
                    )
                    .values(
                        status="queued",
                        attempts=OutboxMessage.attempts + 1,
                        next_attempt_at=now,
                        lease_owner=None,
                        lease_until=None,
                        last_error="outcome unknown: the sender stopped during the SMTP "
                        "transaction; sent again with the same Message-ID",
                    )
                )
            )
            if n:
                done.append(row_id)
    _UNRECORDED.difference_update(done)
    if done:
        log.warning("outbox rows %s of a stopped sender queued again (same Message-ID)", done)
    if report is not None:
        report.recovered += done
    return done


def prune(settings: Settings, factory: sessionmaker[Session], now: dt.datetime) -> int:
    """Drop the bytes of rows delivered more than ``outbox_retention_days`` ago (the rows stay,
    with ``content_pruned``, so their dedupe keys still stop a step re-run from queuing them
    again) and the bodies no row uses any more. Returns the number of rows pruned."""
    if settings.outbox_retention_days <= 0:
        return 0
    cutoff = now - dt.timedelta(days=settings.outbox_retention_days)
    with transaction(factory) as s:
        n = (
            rowcount(
                s.execute(
                    update(OutboxMessage)
                    .where(
                        OutboxMessage.status == "sent",
                        OutboxMessage.sent_at < cutoff,
                        OutboxMessage.content_pruned.is_(False),
                    )
                    .values(raw_whole=None, head=None, body_sha256=None, content_pruned=True)
                )
            )
            or 0
        )
        if n:
            used = select(OutboxMessage.body_sha256).where(OutboxMessage.body_sha256.is_not(None))
            s.execute(delete(OutboxBody).where(OutboxBody.sha256.not_in(used)))
    return n


def _fail(s: Session, settings: Settings, row: OutboxMessage, error: str, now: dt.datetime) -> None:
    row.status = "failed"
    row.last_error = error
    row.lease_owner = row.lease_until = None
    if row.kind != "notice":
        notify_organizers(
            s,
            settings,
            key=f"notice:failed:{row.id}",
            now=now,
            subject=f"[amaryllis] delivery to {row.recipient} failed",
            text=(
                f"Outbox row #{row.id} to {row.recipient} failed permanently after "
                f"{row.attempts} attempt(s):\n{error}\n\nMessage-ID: {row.message_id}\n"
            ),
        )


def _temporary(
    s: Session,
    settings: Settings,
    row: OutboxMessage,
    error: str,
    now: dt.datetime,
    report: SendReport,
    bucket: list[int] | None = None,
) -> None:
    row.attempts += 1
    if row.attempts >= settings.smtp_max_attempts:
        _fail(s, settings, row, f"gave up after {row.attempts} attempts: {error}", now)
        report.failed.append(row.id)
        return
    row.status = "queued"
    row.last_error = error
    row.lease_owner = row.lease_until = None
    row.next_attempt_at = now + backoff(row.attempts)
    (report.retry if bucket is None else bucket).append(row.id)


def _claim(
    factory: sessionmaker[Session],
    now: dt.datetime,
    me: str,
    skip: set[int],
    record: Callable[[Session], None] | None = None,
) -> tuple[int, bytes, str, str] | None:
    """Claim the next due ``queued`` row (conditional update; ``FOR UPDATE SKIP LOCKED`` on
    PostgreSQL) and return ``(id, raw, sender, recipient)``, or ``None`` when none is due. A row
    another sender claimed first is skipped. When the claim's transaction fails, the database may
    have committed it all the same (a server killed after the commit, before its answer): the row
    goes to ``_UNRECORDED``, so that :func:`recover` takes it back if it is ``sending``.

    ``record`` writes the outcome of the mail delivered before, in the same transaction as this
    claim (one commit a mail instead of two; the outcome is committed before the next mail goes
    to the relay, as when it had a transaction of its own)."""
    while True:
        row_id = None
        try:
            with transaction(factory) as s:
                if record is not None:
                    record(s)
                    record = None
                q = (
                    select(OutboxMessage.id)
                    .where(OutboxMessage.status == "queued", OutboxMessage.next_attempt_at <= now)
                    .order_by(OutboxMessage.id)
                    .limit(1)
                )
                if skip:
                    q = q.where(OutboxMessage.id.not_in(skip))
                if s.get_bind().dialect.name == "postgresql":
                    q = q.with_for_update(skip_locked=True)
                row_id = s.scalar(q)
                if row_id is None:
                    return None
                claimed = rowcount(
                    s.execute(
                        update(OutboxMessage)
                        .where(OutboxMessage.id == row_id, OutboxMessage.status == "queued")
                        .values(status="sending", lease_owner=me, lease_until=_lease(now))
                    )
                )
                if not claimed:
                    skip.add(row_id)
                    continue
                row = s.get(OutboxMessage, row_id)
                assert row is not None
                return row_id, row.raw, row.sender, row.recipient
        except Exception:
            if row_id is not None:
                _UNRECORDED.add(row_id)
            raise


class _Unreachable(Exception):
    """The relay could not be reached (connect, EHLO, STARTTLS or AUTH failed)."""


class _Lost(Exception):
    """The connection was lost or closed (421) before the relay saw this mail's content."""


class _Unknown(Exception):
    """The connection was lost after the content was sent: the outcome is unknown."""


def _transaction(client: smtplib.SMTP, sender: str, recipient: str, raw: bytes) -> None:
    """One SMTP mail transaction (RFC 5321 §3.3) on an open connection. Raises :class:`_Lost`,
    :class:`_Unknown`, ``smtplib.SMTPResponseException`` (a reply for this mail: 4xx/5xx) or
    ``smtplib.SMTPNotSupportedError`` (SMTPUTF8 needed, not offered)."""
    options: list[str] = []
    if not sender.isascii() or not recipient.isascii():
        if not client.has_extn("smtputf8"):
            raise smtplib.SMTPNotSupportedError("SMTPUTF8 not supported by the relay (RFC 6531)")
        options.append("SMTPUTF8")
    if any(b > 0x7F for b in raw[:200_000]) and client.has_extn("8bitmime"):
        options.append("BODY=8BITMIME")
    try:
        code, msg = client.mail(sender, options)
        if code == 421:
            raise _Lost(f"421 {msg!r}")
        if code != 250:
            raise smtplib.SMTPSenderRefused(code, msg, sender)
        code, msg = client.rcpt(recipient)
        if code == 421:
            raise _Lost(f"421 {msg!r}")
        if code not in (250, 251):
            raise smtplib.SMTPRecipientsRefused({recipient: (code, msg)})
        client.putcmd("data")
        code, msg = client.getreply()
        if code == 421:
            raise _Lost(f"421 {msg!r}")
        if code != 354:
            raise smtplib.SMTPDataError(code, msg)
    except (smtplib.SMTPServerDisconnected, OSError) as exc:
        if isinstance(exc, smtplib.SMTPResponseException):
            raise
        raise _Lost(f"connection: {exc}") from exc
    data = _DOT.sub(b"..", crlf(raw))
    if not data.endswith(b"\r\n"):
        data += b"\r\n"
    try:
        client.send(data + b".\r\n")
        crash_point("after-data")
        code, msg = client.getreply()
    except (smtplib.SMTPServerDisconnected, OSError) as exc:
        raise _Unknown(f"connection lost after the content was sent: {exc}") from exc
    if code != 250:
        raise smtplib.SMTPDataError(code, msg)


def _rset(client: smtplib.SMTP) -> None:
    try:
        client.rset()
    except (smtplib.SMTPException, OSError):
        pass


def _close(client: smtplib.SMTP | None) -> None:
    if client is None:
        return
    try:
        client.quit()
    except (smtplib.SMTPException, OSError):
        client.close()


def _relay_name(settings: Settings) -> str:
    ep = settings.smtp
    return f"{ep.host}:{ep.port}"[:300]


def record_relay(
    factory: sessionmaker[Session],
    settings: Settings,
    now: dt.datetime,
    *,
    ok: bool,
    error: str | None,
) -> None:
    """Record what a pass saw of the relay in ``smtp_relays``: ``ok`` (a mail was accepted)
    resets the failure count; ``error`` (the pass could not connect, or every try failed)
    counts one failing pass."""
    if not ok and error is None:
        return
    name = _relay_name(settings)
    for _ in range(2):
        try:
            with transaction(factory) as s:
                relay = s.scalar(select(SmtpRelay).where(SmtpRelay.relay == name))
                if relay is None:
                    relay = SmtpRelay(relay=name, failures=0)
                    s.add(relay)
                if ok:
                    relay.last_ok_at, relay.failures = now, 0
                if error is not None:
                    relay.last_error, relay.last_error_at = error[:2000], now
                    if not ok:
                        relay.failures = (relay.failures or 0) + 1
                failures = relay.failures
            if failures == FAILING_PASSES:  # once per failing spell: the notices may not get out
                from app.mail.notices import ALERTS_FILE, append_alert

                log.error(
                    "SMTP relay %s failing for %d passes (%s); organizer notices are kept in %s",
                    name,
                    failures,
                    error,
                    os.path.join(settings.data_dir, ALERTS_FILE),
                )
                append_alert(
                    settings,
                    subject=f"[amaryllis] SMTP relay {name} failing",
                    text=f"{failures} outbox passes in a row failed: {error}",
                    now=now,
                    key=f"relay:{name}",
                )
            return
        except IntegrityError:  # another sender created the row at the same moment
            continue


def send_once(
    settings: Settings,
    factory: sessionmaker[Session],
    *,
    now: dt.datetime | None = None,
    limit: int = 10_000,
    stop: threading.Event | None = None,
) -> SendReport:
    """One pass over the outbox: recover rows of dead senders (:func:`recover`), prune old
    delivered bytes (:func:`prune`), then claim and deliver due ``queued`` rows one by one over
    one SMTP connection (reopened after a loss, see the module docstring), at most ``limit``
    rows, until none is due or ``stop`` is set. Returns a :class:`SendReport`. SMTP errors never
    escape: they become row states."""
    now = now or utcnow()
    report = SendReport()
    recover(factory, now, report)
    report.pruned = prune(settings, factory, now)
    from app.mail import notices

    me = owner_id()
    client: smtplib.SMTP | None = None
    reopens_in_a_row = 0
    skip: set[int] = set()
    tried = 0
    last_error: str | None = None
    #: the outcome of the mail just sent, written with the next claim (:func:`_claim`)
    pending: tuple[int, Callable[[Session], None]] | None = None

    def sent(row_id: int) -> Callable[[Session], None]:
        def write(s: Session) -> None:
            row = s.get(OutboxMessage, row_id)
            assert row is not None
            row.status, row.sent_at, row.attempts = "sent", utcnow(), row.attempts + 1
            row.last_error = None
            row.lease_owner = row.lease_until = None
            report.sent.append(row_id)

        return write

    try:
        with transaction(factory) as s:
            notices.flush(s, settings, now=now)  # organizer notices, digested (issue #8.7)
        while tried < limit and not (stop is not None and stop.is_set()):
            claim = _claim(factory, now, me, skip, pending[1] if pending else None)
            if pending is not None:
                _UNRECORDED.discard(pending[0])
                pending = None
            if claim is None:
                # the notices the failures of this pass recorded, as one digest, then done
                with transaction(factory) as s:
                    if notices.flush(s, settings, now=now):
                        continue
                break
            row_id, raw, sender, recipient = claim
            tried += 1
            crash_point("before-smtp")
            outcome: str
            error: str | None = None
            try:
                if client is None:
                    try:
                        client = connect_smtp(settings)
                    except (OSError, smtplib.SMTPException) as exc:
                        raise _Unreachable(f"connection: {exc}") from exc
                _transaction(client, sender, recipient, raw)
                outcome = "sent"
            except _Unreachable as exc:
                outcome, error = "unreachable", str(exc)
            except _Lost as exc:
                outcome, error = "lost", str(exc)
            except _Unknown as exc:
                outcome, error = "unknown", str(exc)
            except smtplib.SMTPNotSupportedError as exc:
                # this row can never go through this relay; the connection is fine (issue #8.4)
                outcome, error = "permanent", f"relay: {exc}"
            except smtplib.SMTPRecipientsRefused as exc:
                code, msg = next(iter(exc.recipients.values()))
                outcome, error = ("permanent" if code >= 500 else "temporary"), f"{code} {msg!r}"
            except smtplib.SMTPResponseException as exc:
                outcome = "permanent" if exc.smtp_code >= 500 else "temporary"
                error = f"{exc.smtp_code} {exc.smtp_error!r}"
            except (OSError, smtplib.SMTPException) as exc:  # connect, EHLO, STARTTLS, AUTH
                outcome, error = "lost", f"connection: {exc}"
            _UNRECORDED.add(row_id)  # until the outcome below is committed
            crash_point("after-send")
            if outcome == "sent":  # written with the next claim, or after the loop
                pending = (row_id, sent(row_id))
                reopens_in_a_row = 0
                continue
            with transaction(factory) as s:
                row = s.get(OutboxMessage, row_id)
                assert row is not None
                if outcome == "permanent":
                    row.attempts += 1
                    _fail(s, settings, row, error or "", now)
                    report.failed.append(row_id)
                elif outcome == "temporary":
                    _temporary(s, settings, row, error or "", now, report)
                elif outcome == "unknown":
                    _temporary(s, settings, row, error or "", now, report, report.unknown)
                else:  # the relay never saw it: back uncharged (retried on a new connection)
                    row.status, row.last_error = "queued", error
                    row.lease_owner = row.lease_until = None
                    row.next_attempt_at = now
                    if outcome == "unreachable":  # not again in this pass
                        row.next_attempt_at = now + dt.timedelta(seconds=settings.send_interval)
                        report.deferred.append(row_id)
            _UNRECORDED.discard(row_id)
            last_error = error
            if outcome == "unreachable":
                break
            if outcome in ("lost", "unknown"):
                _close(client)
                client = None
                if outcome == "lost":
                    reopens_in_a_row += 1
                    report.reopens += 1
                    if reopens_in_a_row > MAX_REOPENS:
                        report.deferred.append(row_id)
                        with transaction(factory) as s:  # not due again in this pass
                            row = s.get(OutboxMessage, row_id)
                            if row is not None and row.status == "queued":
                                row.next_attempt_at = now + dt.timedelta(
                                    seconds=settings.send_interval
                                )
                        break
                    tried -= 1  # not a try of this mail
            elif client is not None:
                _rset(client)  # after a refused transaction reset the session state
        if pending is not None:  # the pass ends (limit, stop) after a mail was sent
            with transaction(factory) as s:
                pending[1](s)
            _UNRECORDED.discard(pending[0])
            pending = None
    finally:
        _close(client)
    # the relay is in trouble when it deferred, lost or refused temporarily (a 5xx for one
    # address is that mail's problem, not the relay's)
    trouble = bool(report.retry or report.deferred or report.unknown or report.reopens)
    record_relay(
        factory, settings, now, ok=bool(report.sent), error=last_error if trouble else None
    )
    return report


def requeue(factory: sessionmaker[Session], ids: list[int]) -> int:
    """Put ``unknown`` or ``failed`` rows back in the queue (an organizer's decision; the same
    bytes, so the same Message-ID). Returns the number of rows changed."""
    with transaction(factory) as s:
        rows = s.scalars(
            select(OutboxMessage).where(
                OutboxMessage.id.in_(ids), OutboxMessage.status.in_(("unknown", "failed"))
            )
        ).all()
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


def run_forever(
    settings: Settings, factory: sessionmaker[Session], *, stop: threading.Event | None = None
) -> None:
    """Send every ``send_interval`` seconds until ``stop`` is set (or forever), holding the
    sender lock. Raises ``RuntimeError`` when another sender holds it."""
    stop = stop or threading.Event()
    with sender_lock(settings):
        while not stop.is_set():
            report = send_once(settings, factory, stop=stop)
            if report.sent or report.failed or report.unknown or report.recovered:
                log.info("outbox: %s", report)
            stop.wait(settings.send_interval)
