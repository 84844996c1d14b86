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
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any

log = logging.getLogger("amaryllis.web")

#: seconds the server waits for open requests once asked to stop
GRACE = 1.0


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

    def __init__(self, app: Any, sock: socket.socket, *, stop: threading.Event | None = None,
                 on_exit: Any = None, access_log: bool = True) -> None:
        super().__init__(name="web", daemon=True)
        import uvicorn

        self.app = app
        self.sock = sock
        self.stop_event = stop or threading.Event()
        self.on_exit = on_exit
        self.config = uvicorn.Config(app, log_config=None, access_log=access_log,
                                     timeout_graceful_shutdown=int(GRACE), server_header=False,
                                     lifespan="off", timeout_keep_alive=5)
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
        except BaseException as exc:  # noqa: BLE001 - reported, the thread ends
            self.error = exc
            log.exception("web server failed")
        finally:
            try:
                self.sock.close()
            finally:
                if self.on_exit is not None:
                    self.on_exit()
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


def make_app(settings: Any) -> tuple[Any, Any]:
    """The application over a new read-only engine on ``settings``' database, and the engine."""
    from app.web.app import create_app
    from app.web.db import read_only_engine

    engine = read_only_engine(settings.resolved_database_url)
    domain = (settings.server_address.rpartition("@")[2] or "localhost").strip() or "localhost"
    app = create_app(engine=engine, public_url=settings.public_url,
                     server_name=settings.server_name, feed_domain=domain)
    return app, engine


def start_web(settings: Any, *, host: str | None = None, port: int | None = None,
              stop: threading.Event | None = None, access_log: bool = True) -> WebServer:
    """Bind ``host:port`` (default: the ``web_host``/``web_port`` settings), start the server
    thread and wait until it accepts connections. Raises ``OSError`` when the address cannot be
    bound and ``RuntimeError`` when the server does not start."""
    app, engine = make_app(settings)
    try:
        sock = bind(host if host is not None else settings.web_host,
                    port if port is not None else settings.web_port,
                    reuse_port=bool(getattr(settings, "web_reuse_port", False)))
    except OSError:
        engine.dispose()
        raise
    server = WebServer(app, sock, stop=stop, on_exit=engine.dispose, access_log=access_log)
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
        sock = bind(settings.web_host, settings.web_port,
                    reuse_port=bool(getattr(settings, "web_reuse_port", False)))
    except OSError as exc:
        engine.dispose()
        raise RuntimeError(f"the web view cannot listen on {settings.web_host}:"
                           f"{settings.web_port}: {exc} (set web_port, or 0 to turn it off)"
                           ) from exc
    server = WebServer(app, sock, stop=stop, on_exit=engine.dispose)
    log.info("web view listening on %s (public_url %s)", server.url,
             settings.public_url or "not set")
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
    except Exception as exc:  # noqa: BLE001 - unreachable database
        return False, f"cannot read the database: {exc}"
    finally:
        engine.dispose()
    if current != heads:
        return False, (f"the database schema is at {sorted(current) or 'nothing'}, this version "
                       f"needs {sorted(heads)}: run `amaryllis db upgrade` (the web view never "
                       "writes to the database)")
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
            raise RuntimeError(f"cannot listen on {host or settings.web_host}:"
                               f"{settings.web_port if port is None else port}: {exc}") from exc
        log.info("web view on %s", server.url)
        print(f"Amaryllis web view on {server.url}/ (stop with Ctrl-C)", flush=True)
        while server.is_alive() and not stop.is_set():
            stop.wait(0.2)
        server.shutdown()
        return 0 if server.error is None else 1
    finally:
        restore_handlers(previous)
