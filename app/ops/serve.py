"""``amaryllis serve``: the long-running server process.

Three workers share one process, each a thread that does one *unit of work* at a time:

- **poller**: ``app.mail.inbound.poll_once`` (store new mail, commit, mark it on the server) then
  ``app.mail.pipeline.process_pending`` (decode, command, sheet, reply into the outbox); between polls it
  waits on a separate IMAP connection in IDLE (RFC 2177) used only as a doorbell
  (``app.mail.inbound.wait_for_mail``), falling back to polling every ``poll_interval`` seconds when the
  server has no IDLE. A full poll also runs every ``poll_interval`` seconds, so a missed doorbell only
  delays a mail, never loses it. When the poll fails (IMAP unreachable), the mail stored before is
  still processed in that unit, and the failure is then retried like any other.
- **scheduler**: ``app.league.service.tick`` every ``tick_interval`` seconds (entry deadlines, due
  rounds; idempotent).
- **sender**: ``app.mail.send.send_once`` every ``send_interval`` seconds, and at once when the poller or
  the scheduler has queued something.

SIGTERM or SIGINT sets a stop flag: every worker finishes the unit it is in (a poll, a tick, one outbox
pass), then exits; ``serve`` returns 0 once all have stopped. Nothing is lost or sent twice because every
unit commits its own transaction and the outbox marks a row ``sending`` before SMTP (see
``app.mail.send``). The database is migrated to head before the workers start.

Logs are structured (structlog): one JSON object per line on stderr when stderr is not a terminal,
coloured key=value lines when it is. A heartbeat file ``<data_dir>/serve-status.json`` records the last
poll, tick and send, for ``amaryllis status``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from app import PROGRAM
from app.config import Endpoint, Settings
from app.signals import install_stop_handlers, restore_handlers

__all__ = ["configure_logging", "serve", "Heartbeat", "connect_imap", "HEARTBEAT_FILE"]

#: the hint logged when IMAP or SMTP cannot be reached at all
UNREACHABLE_HINT = (
    "no server answers at the imap_url/smtp_url settings: start one (for a trial on "
    "this machine: amaryllis mailserver) or set imap_url and smtp_url"
)
HEARTBEAT_FILE = "serve-status.json"
log = structlog.get_logger("amaryllis.serve")


def configure_logging(*, json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """Route structlog and the standard ``logging`` module to stderr through one formatter.

    ``json_logs``: ``True`` for one JSON object per line, ``False`` for console lines, ``None`` (default)
    for JSON unless stderr is a terminal. Every record gets ``timestamp`` (ISO 8601 UTC), ``level`` and
    ``logger``. Safe to call more than once (the handler is replaced)."""
    if json_logs is None:
        json_logs = not sys.stderr.isatty()
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer(ensure_ascii=False)
        if json_logs
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    handler.set_name(PROGRAM)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == PROGRAM]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("pymap", "mail.log", "aiosmtpd", "imapclient", "alembic"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.timezone.utc)


def connect_imap(endpoint: Endpoint, *, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    """Open an ``IMAPClient`` for ``endpoint`` (plain, implicit TLS or STARTTLS), log in, select the mailbox
    (``endpoint.path`` or ``INBOX``) and return the client. TCP_NODELAY is set (notes §0: imapclient sends a
    command and its CRLF in two writes; with Nagle each command costs ~40 ms). Raises ``imapclient``/
    ``OSError`` exceptions when the server is unreachable or refuses the login."""
    from app.mail.sockets import TrackedIMAPClient

    client = TrackedIMAPClient(
        endpoint.host, port=endpoint.port, ssl=endpoint.security == "tls", timeout=timeout
    )
    try:
        client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if endpoint.security == "starttls":
            client.starttls()
        client.login(endpoint.user or "", endpoint.password or "")
        client.select_folder(endpoint.path or "INBOX")
    except Exception:
        try:
            client.shutdown()
        except Exception:
            pass
        raise
    return client


def database_identity(url: str) -> str:
    """Which database ``url`` names, as text two processes compare: for SQLite ``sqlite:`` and the
    file's absolute path (a relative ``data_dir`` resolved against the working directory); for a
    server, the URL without its password and driver, host in lower case
    (``postgresql://amaryllis@db:5432/amaryllis``). A URL SQLAlchemy cannot parse is returned
    masked (:func:`_mask`). Never raises."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:
        return _mask(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        db = parsed.database or ""
        if db and db != ":memory:" and not db.startswith("file:"):
            db = os.path.abspath(db)
        return f"sqlite:{db}"
    port = f":{parsed.port}" if parsed.port else ""
    user = f"{parsed.username}@" if parsed.username else ""
    return f"{backend}://{user}{(parsed.host or '').lower()}{port}/{parsed.database or ''}"


class Heartbeat:
    """The ``<data_dir>/serve-status.json`` file: pid, start time, the database served
    (:func:`database_identity`, so that ``status`` of another database sharing the data folder
    does not take this process for its own), and per worker the time (ISO 8601 UTC) and result of
    its last unit of work and its last error. Written atomically (temp file + rename)."""

    def __init__(self, path: Path, database: str = "") -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {
            "pid": os.getpid(),
            "started_at": utcnow().isoformat(),
            "state": "starting",
            "workers": {},
        }
        if database:
            self._data["database"] = database

    def update(self, worker: str, **fields: Any) -> None:
        """Merge ``fields`` into ``workers[worker]`` and rewrite the file."""
        with self._lock:
            self._data["workers"].setdefault(worker, {}).update(fields)
            self._write()

    def set_state(self, state: str) -> None:
        """Set the top-level ``state`` (``starting``, ``running``, ``stopping``, ``stopped``)."""
        with self._lock:
            self._data["state"] = state
            self._write()

    def _write(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._data, indent=2, default=str), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:  # a read-only data dir must not stop the server
            log.warning("heartbeat_write_failed", error=str(exc))

    @staticmethod
    def read(path: Path) -> dict[str, Any] | None:
        """The heartbeat at ``path``, or ``None`` when there is none (or it cannot be read)."""
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


class _Worker(threading.Thread):
    """Runs ``unit()`` repeatedly until ``stop`` is set; between units waits ``interval`` seconds or until
    ``bell`` rings. An exception in a unit is logged and retried with exponential backoff (1 s .. 60 s)."""

    def __init__(
        self,
        name: str,
        unit: Callable[[], Any],
        *,
        interval: float,
        stop: threading.Event,
        bell: threading.Event | None,
        heartbeat: Heartbeat,
        wait: Callable[[float], None] | None = None,
    ) -> None:
        super().__init__(name=name, daemon=False)
        self.unit = unit
        self.interval = interval
        self.stop = stop
        self.bell = bell or threading.Event()
        self.heartbeat = heartbeat
        self.wait = wait
        self.failures = 0

    def run(self) -> None:
        logger = log.bind(worker=self.name)
        while not self.stop.is_set():
            self.bell.clear()
            started = time.monotonic()
            try:
                result = self.unit()
            except Exception as exc:
                if self.stop.is_set():  # its connection was cut by the stop (app.mail.sockets)
                    logger.info("unit_aborted", error=repr(exc))
                    break
                self.failures += 1
                backoff = min(60.0, 2.0 ** (self.failures - 1))
                if isinstance(exc, (ConnectionError, TimeoutError, socket.gaierror)):
                    # a server that is not there: one line, not a traceback at every retry
                    logger.error(
                        "unit_failed", error=repr(exc), retry_in_s=backoff, hint=UNREACHABLE_HINT
                    )
                else:
                    logger.exception("unit_failed", error=repr(exc), retry_in_s=backoff)
                self.heartbeat.update(
                    self.name, last_error=repr(exc), last_error_at=utcnow().isoformat()
                )
                self.stop.wait(backoff)
                continue
            self.failures = 0
            self.heartbeat.update(
                self.name,
                last_run_at=utcnow().isoformat(),
                last_result=_summary(result),
                last_duration_ms=round((time.monotonic() - started) * 1000, 1),
            )
            if self.stop.is_set():
                break
            if self.wait is not None:
                self.wait(self.interval)
            else:
                _wait_any(self.stop, self.bell, self.interval)
        logger.info("worker_stopped")


def _summary(result: Any) -> Any:
    if result is None or isinstance(result, (int, float, str, bool)):
        return result
    if isinstance(result, (list, tuple)):
        return [str(r) for r in result]
    return str(result)


def _wait_any(stop: threading.Event, bell: threading.Event, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for ``stop`` or ``bell`` (checked every 0.1 s)."""
    deadline = time.monotonic() + timeout
    while not stop.is_set() and not bell.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        bell.wait(min(left, 0.1))


class _Poller:
    """The poller's unit of work and its IDLE doorbell connection."""

    def __init__(
        self,
        settings: Settings,
        factory: Any,
        stop: threading.Event,
        send_bell: threading.Event,
        doorbell_slice: float = 1.0,
    ) -> None:
        self.settings = settings
        self.factory = factory
        self.stop = stop
        self.send_bell = send_bell
        self.slice = doorbell_slice
        self.client: Any = None
        self.has_idle = True

    def unit(self) -> dict[str, int]:
        from app.mail import inbound, pipeline

        try:
            stored = inbound.poll_once(self.settings, self.factory, process=False, stop=self.stop)
        except Exception:
            # IMAP is away (or failed in a later batch): the mail stored already needs no IMAP, so
            # it is answered now, not when the server is back; the poll's error is then raised
            processed = pipeline.process_pending(
                self.settings, self.factory, now=utcnow(), stop=self.stop
            )
            if processed:
                log.info("processed_without_imap", processed=processed)
                self.send_bell.set()
            raise
        processed = pipeline.process_pending(
            self.settings, self.factory, now=utcnow(), stop=self.stop
        )
        if stored or processed:
            log.info("polled", stored=stored, processed=processed)
            self.send_bell.set()
        return {"stored": stored, "processed": processed}

    def wait(self, interval: float) -> None:
        """Block until new mail may be there, ``interval`` seconds pass, or ``stop`` is set.

        The doorbell connection is SELECTed on the mailbox; a mail appended after that is announced as
        ``EXISTS`` (RFC 3501 §7.3.1). So: right after (re)connecting, return at once (one more poll covers
        what arrived before the SELECT); then, in slices of ``doorbell_slice`` seconds (so that a stop
        request is seen quickly), NOOP (collects announcements that came between two IDLEs) and IDLE."""
        deadline = time.monotonic() + interval
        while not self.stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not self.has_idle:
                self.stop.wait(left)
                return
            try:
                if self.client is None:
                    self.client = connect_imap(
                        self.settings.imap, timeout=self.settings.imap_timeout
                    )
                    self.has_idle = b"IDLE" in self.client.capabilities()
                    if not self.has_idle:
                        log.info("imap_without_idle", poll_interval_s=interval)
                    return
                from app.mail import inbound

                _, pending = self.client.noop()
                if _announces_mail(pending):
                    return
                responses = inbound.wait_for_mail(self.client, min(self.slice, left))
            except Exception as exc:
                log.warning("doorbell_failed", error=repr(exc))
                self.close()
                self.stop.wait(min(left, 1.0))
                return
            if _announces_mail(responses):
                return

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            try:
                client.logout()
            except Exception:
                try:
                    client.shutdown()
                except Exception:
                    pass


def _announces_mail(responses: Any) -> bool:
    """True when an IMAP untagged response list contains ``EXISTS`` or ``RECENT`` (RFC 3501 §7.3)."""
    for item in responses or ():
        if isinstance(item, tuple) and any(part in (b"EXISTS", b"RECENT") for part in item[1:2]):
            return True
    return False


def serve(
    settings: Settings, *, stop: threading.Event | None = None, install_signal_handlers: bool = True
) -> int:
    """Run the poller, the scheduler and the sender until SIGTERM/SIGINT (or ``stop`` is set).

    The signal handlers are installed first, before any import, migration or connection, so a stop
    requested during start-up is honoured: start-up ends after the step under way (a migration is never
    interrupted), no worker starts, and the exit code is 0.

    Returns the exit code: 0 after a graceful stop. Raises ``ImportError`` with a clear message when a
    part of the product (mail inbound/pipeline/send, league service) is missing, and ``RuntimeError`` when
    the database cannot be opened and migrated or another sender holds ``data_dir/sender.lock``."""
    stop = stop or threading.Event()
    previous = install_stop_handlers(stop) if install_signal_handlers else {}
    try:
        return _serve(settings, stop)
    finally:
        restore_handlers(previous)


def _serve(settings: Settings, stop: threading.Event) -> int:
    """:func:`serve` once its signal handlers are in place."""
    from app.db.session import session_factory

    send_bell = threading.Event()
    url = settings.resolved_database_url
    heartbeat = Heartbeat(Path(settings.data_dir) / HEARTBEAT_FILE, database_identity(url))
    try:
        from app.league import service
        from app.mail import inbound, pipeline, send  # noqa: F401 - fail early, before migrating
    except ImportError as exc:
        raise ImportError(f"amaryllis serve needs the mail and league parts: {exc}") from exc

    log.info(
        "serve_starting",
        database=_mask(url),
        imap=_mask(settings.imap_url),
        smtp=_mask(settings.smtp_url),
        server_address=settings.server_address,
    )
    if stop.is_set():  # requested before the handlers above could log it
        log.info("stop_requested", during="start-up")
        log.info("serve_stopped", during="start-up")
        return 0
    try:
        factory = session_factory(url, migrate=True)
    except Exception as exc:
        log.error("database_unavailable", error=repr(exc))
        raise RuntimeError(f"cannot open and migrate the database {_mask(url)}: {exc}") from exc
    log.info("database_migrated")
    if stop.is_set():
        factory.kw["bind"].dispose()
        log.info("serve_stopped", during="start-up")
        return 0

    def tick() -> list[str]:
        from app.mail import requests
        from app.mail.league_mail import LeagueMail

        done = service.tick(factory, LeagueMail.of(settings), now=utcnow(), stop=stop)
        done += requests.run_pending(factory, settings, now=utcnow(), stop=stop)
        if done:
            log.info("ticked", actions=list(done))
            send_bell.set()
        return done

    def send_pass() -> str:
        report = send.send_once(settings, factory, now=utcnow(), stop=stop)
        text = str(report)
        if any(getattr(report, name, None) for name in ("sent", "retry", "failed", "unknown")):
            log.info("outbox_pass", report=text)
        return text

    poller = _Poller(settings, factory, stop, send_bell)
    workers: list[threading.Thread] = [
        _Worker(
            "poller",
            poller.unit,
            interval=settings.poll_interval,
            stop=stop,
            bell=None,
            heartbeat=heartbeat,
            wait=poller.wait,
        ),
        _Worker(
            "scheduler",
            tick,
            interval=settings.tick_interval,
            stop=stop,
            bell=None,
            heartbeat=heartbeat,
        ),
        _Worker(
            "sender",
            send_pass,
            interval=settings.send_interval,
            stop=stop,
            bell=send_bell,
            heartbeat=heartbeat,
        ),
    ]
    from app.web.server import web_workers

    workers += web_workers(settings, stop)  # the web view (app/web): [] when web_port = 0

    lock = send.sender_lock(settings)
    try:
        lock.__enter__()
    except RuntimeError as exc:
        log.error("sender_locked", error=str(exc))
        raise RuntimeError(
            f"{exc}: another `amaryllis serve` or `send` uses this data_dir"
        ) from exc

    try:
        for worker in workers:
            worker.start()
        heartbeat.set_state("running")
        log.info("serve_running", pid=os.getpid())
        while any(w.is_alive() for w in workers):
            stop.wait(0.5)
            if stop.is_set():
                heartbeat.set_state("stopping")
                _join_within(workers, STOP_GRACE_S)
                if any(w.is_alive() for w in workers):
                    # a unit blocked on a frozen IMAP/SMTP server: cut its connection
                    from app.mail import sockets

                    log.info("stop_cutting_connections", cut=sockets.abort_all())
                for worker in workers:
                    worker.join()
    finally:
        stop.set()
        for worker in workers:
            if worker.is_alive():
                worker.join()
        poller.close()
        factory.kw["bind"].dispose()
        lock.__exit__(None, None, None)
        heartbeat.set_state("stopped")
        log.info("serve_stopped")
    return 0


#: seconds the workers get to finish their piece of work after SIGTERM before their connections are cut
STOP_GRACE_S = 0.5


def _join_within(workers: list[threading.Thread], seconds: float) -> None:
    """Join ``workers`` for at most ``seconds`` in all."""
    deadline = time.monotonic() + seconds
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))


def _mask(url: str) -> str:
    """``url`` with the password replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable>"
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    return url
