"""Serving the web view: uvicorn in a thread of its own, stopped by a ``threading.Event``.

The same :class:`WebServer` runs

* next to the workers of ``amaryllis serve`` (:func:`web_workers`, the one call in
  ``app.ops.serve``): the socket is bound at start-up, in the main thread, so a taken port fails
  ``serve`` at once with a clear error; the thread stops when ``serve``'s stop event is set
  (SIGTERM/SIGINT), finishing the requests under way for at most ``GRACE`` seconds;
* on its own (``amaryllis web``, :func:`run_web`), and in ``amaryllis demo``.

The socket is bound with ``SO_REUSEPORT`` where the system has it, so several ``serve`` (or
``web``) processes on one host may listen on the same port and the kernel spreads the
connections over them; each process reads the shared database itself (``docs/web.md``).
uvicorn never installs signal handlers here (it does so only in the main thread, and the main
thread of ``serve`` keeps its own).

**Slow and many connections** (issue 20: 1,500 half-open requests, one header line every 3 s, all
still open after 28 s, in the process that also holds the IMAP and SMTP connections). uvicorn
has ``timeout_keep_alive`` (idle time *between* requests, used here as ``web_keepalive_timeout``)
and ``h11_max_incomplete_event_size`` (bytes of a request line and headers, 16 KiB here), but no
timeout on receiving a request (its keep-alive timer is cancelled by every byte received, and no
timer runs before the first request), and its ``limit_concurrency`` answers 503 only once a
request has arrived, so it caps nothing that never finishes its headers. The smallest robust
addition is a subclass of uvicorn's own h11 protocol (:func:`guarded_protocol`), given to
uvicorn as its ``http`` class: a timer per connection that closes it when a request (line,
headers and body) is not received within ``web_header_timeout`` seconds of its first byte (or of
the connection, for the first one), and a cap on open connections (``web_max_connections``):
one over it is answered ``503`` and closed at once, so the process holds at most that many
sockets for the view. The counts are logged when the view stops (``web_connections``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("amaryllis.web")

#: seconds the server waits for open requests once asked to stop
GRACE = 1.0
#: bytes of a request line and its headers (h11's ``max_incomplete_event_size``); more: 400
MAX_HEAD_BYTES = 16 * 1024
#: what a connection over ``web_max_connections`` gets before it is closed
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: 5\r\nRetry-After: 10\r\nConnection: close\r\n\r\nbusy\n"
)


@dataclass(frozen=True)
class WebLimits:
    """How long and how many: ``header_timeout`` seconds a client has to send a whole request
    from its first byte (the first request: from the connection); ``keepalive_timeout``
    seconds an idle connection is kept between requests; ``max_connections`` open at once."""

    header_timeout: float = 10.0
    keepalive_timeout: int = 5
    max_connections: int = 256

    @classmethod
    def from_settings(cls, settings: Any) -> WebLimits:
        """The limits of the ``web_header_timeout``, ``web_keepalive_timeout`` and
        ``web_max_connections`` settings (the defaults where ``settings`` lacks one)."""
        base = cls()
        return cls(
            header_timeout=float(getattr(settings, "web_header_timeout", base.header_timeout)),
            keepalive_timeout=int(
                getattr(settings, "web_keepalive_timeout", base.keepalive_timeout)
            ),
            max_connections=int(getattr(settings, "web_max_connections", base.max_connections)),
        )


@dataclass
class ConnectionCounts:
    """What the guarded protocol did, for the log line at stop: connections ``accepted``,
    ``refused`` (over the cap), ``timed_out`` (no whole request in time), ``peak`` (most open at
    once)."""

    accepted: int = 0
    refused: int = 0
    timed_out: int = 0
    peak: int = 0

    def line(self) -> str:
        return (
            f"web_connections: {self.accepted} accepted, {self.refused} refused over "
            f"web_max_connections, {self.timed_out} timed out before a whole request, "
            f"peak {self.peak} open"
        )


def guarded_protocol(limits: WebLimits, counts: ConnectionCounts) -> type:
    """A subclass of uvicorn's ``H11Protocol`` that enforces ``limits`` (see the module
    docstring) and counts into ``counts``; given to ``uvicorn.Config(http=…)``.

    The request timer is armed when a connection opens and when the first byte of a later
    request arrives (uvicorn's keep-alive timer covers the idle time before it), and disarmed
    once h11 has the whole request (the client's state ``DONE``); a response may then take as
    long as it takes. States are h11's (RFC 9112 message parsing)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._request_timer: asyncio.TimerHandle | None = None
            self._refused = False

        def connection_made(self, transport: Any) -> None:
            if len(self.connections) >= limits.max_connections:
                self._refused = True
                self.transport = transport
                counts.refused += 1
                transport.write(BUSY)
                transport.close()
                return
            super().connection_made(transport)
            counts.accepted += 1
            counts.peak = max(counts.peak, len(self.connections))
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                self._disarm()
            elif self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                if self._request_timer is None:  # the first byte of a request
                    self._arm()
            else:  # DONE (the whole request is here), MUST_CLOSE, CLOSED, ERROR
                self._disarm()

        def _arm(self) -> None:
            self._disarm()
            self._request_timer = self.loop.call_later(limits.header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _too_slow(self) -> None:
            self._request_timer = None
            if not self.transport.is_closing():
                counts.timed_out += 1
                self.transport.close()

    return GuardedH11Protocol


def bind(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A TCP socket bound to ``host:port`` (``port`` 0: a free port), ``SO_REUSEADDR`` and, when
    ``reuse_port`` and the system has it, ``SO_REUSEPORT``. Raises ``OSError`` (e.g. the port is
    taken, unless every holder set ``SO_REUSEPORT``). Off by default: two views on different
    databases must not silently share a port and answer from either at random."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port and hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class WebServer(threading.Thread):
    """uvicorn serving ``app`` on an already bound ``sock`` in this thread, until ``stop`` is set
    (or :meth:`shutdown` is called). ``on_exit`` runs in the thread once the server has stopped
    (e.g. to dispose of the database engine)."""

    def __init__(
        self,
        app: Any,
        sock: socket.socket,
        *,
        stop: threading.Event | None = None,
        on_exit: Any = None,
        access_log: bool = True,
        limits: WebLimits | None = None,
    ) -> None:
        super().__init__(name="web", daemon=True)
        import uvicorn

        self.app = app
        self.sock = sock
        self.stop_event = stop or threading.Event()
        self.on_exit = on_exit
        self.limits = limits or WebLimits()
        self.counts = ConnectionCounts()
        self.config = uvicorn.Config(
            app,
            log_config=None,
            access_log=access_log,
            timeout_graceful_shutdown=int(GRACE),
            server_header=False,
            lifespan="off",
            ws="none",
            http=guarded_protocol(self.limits, self.counts),
            timeout_keep_alive=self.limits.keepalive_timeout,
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        )
        self.server = uvicorn.Server(self.config)
        self.error: BaseException | None = None

    @property
    def host(self) -> str:
        return str(self.sock.getsockname()[0])

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` (IPv6 hosts in brackets)."""
        host = self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    def run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self.error = exc
            log.exception("web server failed")
        finally:
            try:
                self.sock.close()
            finally:
                if self.on_exit is not None:
                    self.on_exit()
            log.info(self.counts.line())
            log.info("web server stopped")

    async def _main(self) -> None:
        async def watch() -> None:
            while not self.stop_event.is_set():
                await asyncio.sleep(0.1)
            self.server.should_exit = True

        watcher = asyncio.create_task(watch())
        try:
            await self.server.serve(sockets=[self.sock])
        finally:
            watcher.cancel()

    def wait_started(self, timeout: float = 10.0) -> None:
        """Block until the server accepts connections. Raises ``RuntimeError`` when it failed or
        did not start within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if self.error is not None or (not self.is_alive() and self.ident is not None):
                raise RuntimeError(f"the web server did not start: {self.error!r}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start within {timeout} s")
            time.sleep(0.02)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop the server and wait for the thread (at most ``timeout`` seconds)."""
        self.stop_event.set()
        if self.ident is not None:
            self.join(timeout)


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""Host names always answered: the machine itself (a local check, the demo)."""


def allowed_hosts(settings: Any) -> list[str]:
    """The ``Host`` header values (host part, lower case) the view answers: the
    ``web_allowed_hosts`` setting, plus :data:`LOOPBACK_HOSTS`, ``web_host`` when it is one
    address (not ``0.0.0.0`` or ``::``; IPv6 in brackets, as the header writes it) and the host
    of ``public_url``. Every other Host is answered 400 (Starlette's ``TrustedHostMiddleware``),
    so that nothing the view builds from the request's address (the feeds' links when
    ``public_url`` is empty) follows a Host an attacker wrote (RFC 9110 §7.2)."""
    from urllib.parse import urlsplit

    hosts = list(getattr(settings, "web_allowed_hosts", []) or [])
    hosts += LOOPBACK_HOSTS
    web_host = str(getattr(settings, "web_host", "") or "").strip().lower()
    if web_host and web_host not in ("0.0.0.0", "::"):
        hosts.append(f"[{web_host}]" if ":" in web_host else web_host)
    public = str(getattr(settings, "public_url", "") or "")
    if public:
        name = urlsplit(public).hostname or ""
        if name:
            hosts.append(f"[{name}]" if ":" in name else name)
    return list(dict.fromkeys(h.lower() for h in hosts))


def make_app(settings: Any) -> tuple[Any, Any]:
    """The application over a new read-only engine on ``settings``' database, and the engine.
    It answers only the :func:`allowed_hosts` of ``settings``."""
    from app.web.app import create_app
    from app.web.db import read_only_engine

    engine = read_only_engine(settings.resolved_database_url)
    domain = (settings.server_address.rpartition("@")[2] or "localhost").strip() or "localhost"
    app = create_app(
        engine=engine,
        public_url=settings.public_url,
        server_name=settings.server_name,
        feed_domain=domain,
        allowed_hosts=allowed_hosts(settings),
    )
    return app, engine


def start_web(
    settings: Any,
    *,
    host: str | None = None,
    port: int | None = None,
    stop: threading.Event | None = None,
    access_log: bool = True,
) -> WebServer:
    """Bind ``host:port`` (default: the ``web_host``/``web_port`` settings), start the server
    thread and wait until it accepts connections. Raises ``OSError`` when the address cannot be
    bound and ``RuntimeError`` when the server does not start."""
    app, engine = make_app(settings)
    try:
        sock = bind(
            host if host is not None else settings.web_host,
            port if port is not None else settings.web_port,
            reuse_port=bool(getattr(settings, "web_reuse_port", False)),
        )
    except OSError:
        engine.dispose()
        raise
    server = WebServer(
        app,
        sock,
        stop=stop,
        on_exit=engine.dispose,
        access_log=access_log,
        limits=WebLimits.from_settings(settings),
    )
    server.start()
    server.wait_started()
    return server


def web_workers(settings: Any, stop: threading.Event) -> list[threading.Thread]:
    """The hook of ``amaryllis serve``: an unstarted web server thread bound to the ``web_host``
    and ``web_port`` settings, which ``serve`` starts and joins with its other workers and which
    ends within about ``GRACE`` seconds of ``stop`` being set; ``[]`` when ``web_port`` is 0.
    Raises ``RuntimeError`` naming the address when it cannot be bound (``serve`` then exits
    with that message)."""
    if not settings.web_port:
        return []
    app, engine = make_app(settings)
    try:
        sock = bind(
            settings.web_host,
            settings.web_port,
            reuse_port=bool(getattr(settings, "web_reuse_port", False)),
        )
    except OSError as exc:
        engine.dispose()
        raise RuntimeError(
            f"the web view cannot listen on {settings.web_host}:"
            f"{settings.web_port}: {exc} (set web_port, or 0 to turn it off)"
        ) from exc
    server = WebServer(
        app, sock, stop=stop, on_exit=engine.dispose, limits=WebLimits.from_settings(settings)
    )
    log.info(
        "web view listening on %s (public_url %s)", server.url, settings.public_url or "not set"
    )
    return [server]


def schema_is_current(url: str) -> tuple[bool, str]:
    """Whether the database at ``url`` is at the migrations' head, read without writing:
    ``(True, "")`` or ``(False, what is wrong)``."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from app.db.session import alembic_config
    from app.web.db import read_only_engine

    heads = set(ScriptDirectory.from_config(alembic_config(url)).get_heads())
    engine = read_only_engine(url)
    try:
        with engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except Exception as exc:
        return False, f"cannot read the database: {exc}"
    finally:
        engine.dispose()
    if current != heads:
        return False, (
            f"the database schema is at {sorted(current) or 'nothing'}, this version "
            f"needs {sorted(heads)}: run `amaryllis db upgrade` (the web view never "
            "writes to the database)"
        )
    return True, ""


def run_web(settings: Any, *, host: str | None = None, port: int | None = None) -> int:
    """``amaryllis web``: serve until SIGTERM/SIGINT, then stop within about ``GRACE`` seconds.
    Returns the exit code (0). Raises ``RuntimeError`` when the schema is not current or the
    address cannot be bound."""
    from app.signals import install_stop_handlers, restore_handlers

    stop = threading.Event()
    previous = install_stop_handlers(stop)
    try:
        ok, why = schema_is_current(settings.resolved_database_url)
        if not ok:
            raise RuntimeError(why)
        try:
            server = start_web(settings, host=host, port=port, stop=stop)
        except OSError as exc:
            raise RuntimeError(
                f"cannot listen on {host or settings.web_host}:"
                f"{settings.web_port if port is None else port}: {exc}"
            ) from exc
        log.info("web view on %s", server.url)
        print(f"Amaryllis web view on {server.url}/ (stop with Ctrl-C)", flush=True)
        while server.is_alive() and not stop.is_set():
            stop.wait(0.2)
        server.shutdown()
        return 0 if server.error is None else 1
    finally:
        restore_handlers(previous)
