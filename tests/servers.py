"""Real servers on 127.0.0.1 for the tests: Dovecot (IMAP + LMTP), an aiosmtpd SMTP sink, pymap, a
private PostgreSQL.

Nothing here is a mock: each helper starts a real server process or thread on a free loopback port
and stops it by its own PID/handle. Other suites import these helpers and fixtures::

    from tests.servers import dovecot, smtp_sink, pymap_server, mail_user   # pytest fixtures
    from tests.servers import Dovecot, SmtpSink, Pymap, PrivatePostgres, imap_append, imap_list, free_port

Fixtures
--------
``dovecot`` (session scope)
    A :class:`Dovecot` (Debian's ``dovecot-imapd``/``dovecot-lmtpd``) with a temporary config under
    a short ``/tmp/dc*`` directory (the unix-socket path limit). Skipped when Dovecot is not
    installed or the tests do not run as root (the config below runs mail processes as the
    package's ``dovecot`` user). Notes: ``shared/notes/mail-stack.md`` §2.
``mail_user`` (function scope)
    A fresh Dovecot user for one test: ``.name``, ``.password``, ``.address`` (``name@localhost``)
    and ``.imap_url`` (``imap://name:pw@127.0.0.1:PORT/INBOX``), so tests never see each other's mail.
``smtp_sink`` (function scope)
    A :class:`SmtpSink`: an aiosmtpd server that keeps every message it accepts in memory
    (``.messages``) and can be told to answer the next transactions with a 4xx/5xx code.
``pymap_server`` (session scope)
    A :class:`Pymap` ``dict`` backend subprocess (one user ``tourney``/``secret``).

Helpers
-------
``Dovecot(tls=True)`` also listens with implicit TLS on ``.imaps_port`` and offers STARTTLS on
``.imap_port``, with a throw-away certificate ``.cert`` (clients trust it via ``SSL_CERT_FILE``);
``Dovecot.lmtp_deliver(raw, rcpt)`` delivers like an MTA; ``Dovecot.kill()`` crashes it (master and
children) keeping its mail store (``Dovecot.maildir(user)``), for ``start()`` again on the same
ports. ``PrivatePostgres()`` is a PostgreSQL cluster of one test's own (``initdb``/``pg_ctl``, as
the ``postgres`` user under root) that it may restart. ``SmtpSink(tls="starttls"|"tls",
cert=self_signed_cert(dir))`` is a TLS sink; ``.fail_next("451 …")`` makes it refuse the next
DATA. ``imap_append(url, raws)`` (MULTIAPPEND) and ``imap_list(url)`` read and write a mailbox.

All servers bind 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import pytest

from tests.services import skip_or_fail

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (bind to port 0, read it, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def wait_for_greeting(
    port: int, prefix: bytes, timeout: float = 15.0, proc: subprocess.Popen | None = None
) -> None:
    """Connect to 127.0.0.1:``port`` until the server's first line starts with ``prefix``.

    Raises ``RuntimeError`` on timeout or when ``proc`` exits first.
    """
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before greeting")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=2) as s:
                line = s.recv(512)
                if line.startswith(prefix):
                    return
                last = RuntimeError(f"unexpected greeting {line!r}")
        except OSError as exc:
            last = exc
        time.sleep(0.02)
    raise RuntimeError(f"no greeting on port {port}: {last}")


def wait_for_port(port: int, timeout: float = 15.0, proc: subprocess.Popen | None = None) -> None:
    """Wait until 127.0.0.1:``port`` accepts a TCP connection (for TLS-first ports)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            socket.create_connection((LOOPBACK, port), timeout=2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port}")


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A throw-away self-signed certificate for 127.0.0.1/localhost made with the ``openssl`` CLI:
    ``(cert.pem, key.pem)``. Clients trust it through ``SSL_CERT_FILE=cert.pem``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def imap_client(host: str, port: int, user: str, password: str, *, timeout: float = 30):
    """A logged-in ``IMAPClient`` with TCP_NODELAY set (notes §0: 40 ms per command without it)."""
    from imapclient import IMAPClient

    client = IMAPClient(host, port=port, ssl=False, timeout=timeout)
    client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client.login(user, password)
    return client


def imap_append(
    url: str, messages: Iterable[bytes], *, folder: str | None = None, batch: int = 200
) -> int:
    """APPEND ``messages`` (raw RFC 5322 bytes) to the mailbox of an ``imap://`` URL.

    Uses MULTIAPPEND in batches of ``batch`` when the server offers it. Returns the number appended.
    """
    from app.config import parse_endpoint

    ep = parse_endpoint(url)
    box = folder or ep.path or "INBOX"
    client = imap_client(ep.host, ep.port, ep.user or "", ep.password or "")
    try:
        if not client.folder_exists(box):
            client.create_folder(box)
        items = list(messages)
        if b"MULTIAPPEND" in client.capabilities():
            for i in range(0, len(items), batch):
                client.multiappend(box, items[i : i + batch])
        else:
            for raw in items:
                client.append(box, raw)
        return len(items)
    finally:
        with contextlib.suppress(Exception):
            client.logout()


def imap_list(url: str, *, folder: str | None = None) -> list[tuple[int, set[bytes], bytes]]:
    """``(uid, flags, raw)`` of every message in a folder of the ``imap://`` URL's mailbox."""
    from app.config import parse_endpoint

    ep = parse_endpoint(url)
    box = folder or ep.path or "INBOX"
    client = imap_client(ep.host, ep.port, ep.user or "", ep.password or "")
    try:
        if not client.folder_exists(box):
            return []
        client.select_folder(box, readonly=True)
        uids = client.search(["ALL"])
        out = []
        if uids:
            data = client.fetch(uids, ["FLAGS", "BODY.PEEK[]"])
            for uid in sorted(data):
                out.append((uid, set(data[uid][b"FLAGS"]), data[uid][b"BODY[]"]))
        return out
    finally:
        with contextlib.suppress(Exception):
            client.logout()


# ---------------------------------------------------------------------------------------------
# Dovecot


@dataclass
class MailUser:
    """One Dovecot account: ``imap_url`` points at its INBOX."""

    name: str
    password: str
    imap_port: int

    @property
    def address(self) -> str:
        return f"{self.name}@localhost"

    @property
    def imap_url(self) -> str:
        return f"imap://{self.name}:{self.password}@{LOOPBACK}:{self.imap_port}/INBOX"


def dovecot_available() -> str | None:
    """``None`` when Dovecot can run here, else the reason to skip."""
    if not shutil.which("dovecot") and not Path("/usr/sbin/dovecot").exists():
        return "Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)"
    if os.geteuid() != 0:
        return "the Dovecot test config runs as root (mail processes as the 'dovecot' user)"
    return None


def stop_process(proc: subprocess.Popen | None) -> None:
    """SIGTERM ``proc`` if it still runs, wait up to 10 s, then SIGKILL it."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Dovecot:
    """Debian's Dovecot on 127.0.0.1 from a temporary config (IMAP + LMTP), no systemd.

    ``start()`` writes ``dovecot.conf`` and a passwd-file into a fresh ``/tmp/dc*`` directory and
    runs ``dovecot -F``; ``stop()`` sends SIGTERM to that PID and waits. Users are added with
    :meth:`add_user` (one passwd-file per user).
    """

    binary = "/usr/sbin/dovecot"

    def __init__(self, *, tls: bool = False) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="dc"))  # short: unix sockets live under it
        self.imap_port = free_port()
        self.lmtp_port = free_port()
        self.tls = tls
        self.imaps_port = free_port() if tls else 0
        self.cert: Path | None = None
        self.proc: subprocess.Popen | None = None
        self._users: dict[str, str] = {}
        self._lock = threading.Lock()

    def _write_users(self) -> None:
        # one passwd-file per user (the path has %n): a new user is a new file, so Dovecot's
        # once-per-second re-read of a changed passwd-file never hides a fresh account
        folder = self.dir / "passwd"
        folder.mkdir(exist_ok=True)
        folder.chmod(0o755)
        for user, password in self._users.items():
            path = folder / user
            if not path.exists():
                tmp = folder / f".{user}.tmp"
                tmp.write_text(f"{user}:{{PLAIN}}{password}\n")
                tmp.chmod(0o644)
                os.replace(tmp, path)

    def add_user(self, name: str | None = None, password: str = "secret") -> MailUser:
        """Create an account (default: a unique name) and return it."""
        name = name or f"u{uuid.uuid4().hex[:10]}"
        with self._lock:
            self._users[name] = password
            self._write_users()
        return MailUser(name, password, self.imap_port)

    def start(self) -> Dovecot:
        d = self.dir
        d.chmod(0o755)  # auth and mail processes run as 'dovecot' and must read the passwd-file
        for sub in ("run", "state", "mail"):
            (d / sub).mkdir(exist_ok=True)
        shutil.chown(d / "mail", "dovecot", "dovecot")
        self._users.setdefault("tourney", "secret")
        self._write_users()
        ssl_conf = "ssl = no"
        if self.tls:
            self.cert, key = self_signed_cert(d)
            ssl_conf = f"ssl = yes\nssl_cert = <{self.cert}\nssl_key = <{key}"
        (d / "dovecot.conf").write_text(
            f"""base_dir = {d}/run
state_dir = {d}/state
instance_name = test-{self.imap_port}
log_path = {d}/dovecot.log
protocols = imap lmtp
listen = {LOOPBACK}
{ssl_conf}
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_login_user = dovenull
first_valid_uid = 1
mail_location = maildir:{d}/mail/%n
mail_max_userip_connections = 200
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {d}/passwd/%n
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={d}/mail/%n
}}
service imap-login {{
  inet_listener imap {{
    address = {LOOPBACK}
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = {LOOPBACK}
    port = {self.imaps_port}
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {LOOPBACK}
    port = {self.lmtp_port}
  }}
}}
protocol lmtp {{
  auth_username_format = %n
}}
"""
        )
        self.proc = subprocess.Popen(
            [self.binary, "-F", "-c", str(d / "dovecot.conf")],
            stdout=subprocess.DEVNULL,
            stderr=open(d / "stderr.log", "ab"),
            start_new_session=True,  # its own process group: :meth:`kill` ends master and children
        )
        try:
            wait_for_greeting(self.imap_port, b"* OK", proc=self.proc)
            wait_for_greeting(self.lmtp_port, b"220", proc=self.proc)
            if self.tls:
                wait_for_port(self.imaps_port, proc=self.proc)
        except RuntimeError as exc:
            log = (d / "stderr.log").read_text(errors="replace")
            self.stop()
            raise RuntimeError(f"Dovecot did not start: {exc}\n{log}") from exc
        return self

    def lmtp_deliver(self, raw: bytes, rcpt: str, mail_from: str = "player@example.com") -> None:
        """Deliver ``raw`` to ``rcpt`` (``user@localhost``) over LMTP, like an MTA would."""
        import smtplib

        with smtplib.LMTP(LOOPBACK, self.lmtp_port) as lmtp:
            lmtp.sendmail(mail_from, [rcpt], raw)

    def maildir(self, user: MailUser) -> Path:
        """The Maildir of ``user`` (``new/``, ``cur/``, ``tmp/``) in the mail store."""
        return self.dir / "mail" / user.name

    def kill(self, timeout: float = 60.0) -> None:
        """Crash the server: SIGKILL to the master's process group (the master and every child it
        started: login, imap, auth, lmtp), then wait until nothing accepts on its IMAP and LMTP
        ports. The directory (config, mail store) stays: :meth:`start` runs it again on the same
        ports and mail. Raises ``RuntimeError`` when a port still accepts after ``timeout``."""
        import signal

        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout)
            self.proc = None
        deadline = time.monotonic() + timeout
        for port in (self.imap_port, self.lmtp_port):
            while True:
                try:
                    socket.create_connection((LOOPBACK, port), timeout=2).close()
                except OSError:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"port {port} still accepts after the kill")
                time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM the master (by PID), wait for it, remove the directory."""
        stop_process(self.proc)
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Dovecot:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------------------------------
# aiosmtpd sink


@dataclass
class SunkMessage:
    """One message accepted by the sink: envelope and raw bytes as received."""

    mail_from: str
    rcpt_tos: list[str]
    raw: bytes

    def parsed(self):
        """The message parsed with ``email`` (policy=default)."""
        import email
        from email.policy import default

        return email.message_from_bytes(self.raw, policy=default)


@dataclass
class _SinkHandler:
    messages: list[SunkMessage] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)  # answers for the next DATA commands
    cond: threading.Condition = field(default_factory=threading.Condition)

    async def handle_DATA(self, server, session, envelope):
        with self.cond:
            if self.replies:
                return self.replies.pop(0)
            self.messages.append(
                SunkMessage(envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content)
            )
            self.cond.notify_all()
        return "250 2.0.0 OK queued"


class SmtpSink:
    """An aiosmtpd SMTP server on 127.0.0.1 that stores what it receives in memory.

    ``url`` is ``smtp://127.0.0.1:PORT``. :meth:`fail_next` makes the next transactions answer a
    given code (``"451 4.3.0 try later"`` or ``"550 5.1.1 no such user"``); :meth:`stop` then
    :meth:`start` again on the same port simulates a refused connection window.
    """

    def __init__(
        self,
        port: int | None = None,
        *,
        tls: str = "",
        cert: tuple[Path, Path] | None = None,
        smtputf8: bool = True,
    ) -> None:
        """``tls``: ``""`` (plain), ``"starttls"`` or ``"tls"`` (implicit); ``cert``: (cert, key);
        ``smtputf8=False``: a relay that does not offer SMTPUTF8 (RFC 6531)."""
        self.smtputf8 = smtputf8
        self.port = port or free_port()
        self.handler = _SinkHandler()
        self._ctl = None
        self.tls = tls
        self.cert = cert

    @property
    def url(self) -> str:
        scheme = {"": "smtp", "starttls": "smtp+starttls", "tls": "smtps"}[self.tls]
        return f"{scheme}://{LOOPBACK}:{self.port}"

    @property
    def messages(self) -> list[SunkMessage]:
        with self.handler.cond:
            return list(self.handler.messages)

    def start(self) -> SmtpSink:
        from aiosmtpd.controller import Controller

        kwargs: dict = {}
        if self.tls:
            import ssl

            assert self.cert is not None, "a TLS sink needs cert=(cert.pem, key.pem)"
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(str(self.cert[0]), str(self.cert[1]))
            kwargs = {"tls_context": ctx} if self.tls == "starttls" else {"ssl_context": ctx}
        self._ctl = Controller(
            self.handler,
            hostname=LOOPBACK,
            port=self.port,
            enable_SMTPUTF8=self.smtputf8,
            data_size_limit=64 * 1024 * 1024,
            **kwargs,
        )
        self._ctl.start()
        return self

    def stop(self) -> None:
        if self._ctl is not None:
            self._ctl.stop()
            self._ctl = None

    def fail_next(self, reply: str, count: int = 1) -> None:
        """Answer the next ``count`` DATA commands with ``reply`` (e.g. ``"451 4.3.0 busy"``)."""
        with self.handler.cond:
            self.handler.replies.extend([reply] * count)

    def wait_for(self, count: int, timeout: float = 30.0) -> list[SunkMessage]:
        """Block until at least ``count`` messages arrived; return them. Raises ``TimeoutError``."""
        deadline = time.monotonic() + timeout
        with self.handler.cond:
            while len(self.handler.messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(self.handler.messages)} of {count} messages arrived")
                self.handler.cond.wait(left)
            return list(self.handler.messages)

    def clear(self) -> None:
        with self.handler.cond:
            self.handler.messages.clear()

    def __enter__(self) -> SmtpSink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class _FaultHandler(_SinkHandler):
    """A sink handler that misbehaves on purpose (see :class:`FaultySink`)."""

    drop_after_data: int = 0  # the next N DATA: keep the mail, then cut the connection, no reply
    per_connection: int | None = None  # answer 421 to MAIL after this many mails per connection
    dropped: int = 0
    closed_421: int = 0

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        import asyncio

        count = getattr(session, "amaryllis_mails", 0)
        if self.per_connection is not None and count >= self.per_connection:
            with self.cond:
                self.closed_421 += 1
            asyncio.get_running_loop().call_later(0.01, server.transport.close)
            return "421 4.7.0 too many mails on this connection, closing"
        session.amaryllis_mails = count + 1
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.cond:
            drop = self.drop_after_data > 0
            if drop:
                self.drop_after_data -= 1
                self.dropped += 1
                self.messages.append(
                    SunkMessage(
                        envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content
                    )
                )
                self.cond.notify_all()
        if drop:  # the relay took the mail, the client never hears so
            server.transport.abort()
            return "250 OK (never seen by the client)"
        return await super().handle_DATA(server, session, envelope)


class FaultySink(SmtpSink):
    """An :class:`SmtpSink` that fails like real relays do.

    ``drop_after_data=N``: the next N mails are accepted (kept in ``.messages``) but the
    connection is cut before the reply to the final dot, so the client cannot know (RFC 5321
    §4.1.1.4); ``per_connection=N``: after N mails on one connection, ``MAIL`` gets ``421`` and
    the connection is closed (RFC 5321 §3.8); ``.fail_next`` as in :class:`SmtpSink`. Counters:
    ``.handler.dropped``, ``.handler.closed_421``."""

    def __init__(
        self,
        port: int | None = None,
        *,
        drop_after_data: int = 0,
        per_connection: int | None = None,
        smtputf8: bool = True,
    ) -> None:
        super().__init__(port, smtputf8=smtputf8)
        self.handler = _FaultHandler(drop_after_data=drop_after_data, per_connection=per_connection)


class _RawServer:
    """A TCP listener on 127.0.0.1 whose accept loop runs in a thread between ``__enter__`` and
    ``__exit__``; :meth:`_accepted` decides what each connection gets. ``.accepted`` counts the
    connections; connections kept in ``._conns`` are closed on exit."""

    def __init__(self) -> None:
        self.port = free_port()
        self.accepted = 0
        self._conns: list[socket.socket] = []
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((LOOPBACK, self.port))
        self._sock.listen(50)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def url(self) -> str:
        return f"smtp://{LOOPBACK}:{self.port}"

    def _accepted(self, conn: socket.socket) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.accepted += 1
            self._accepted(conn)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()
        self._sock.close()


class DroppingServer(_RawServer):
    """A TCP server on 127.0.0.1 that accepts every connection and closes it at once, before any
    greeting: a relay whose every connection drops. ``.accepted`` counts the connections."""

    def _accepted(self, conn: socket.socket) -> None:
        conn.close()


class FrozenServer(_RawServer):
    """A TCP server on 127.0.0.1 that stops answering: ``mode="silent"`` never writes a byte (an
    IMAP or SMTP server frozen before its greeting); ``mode="smtp"`` greets and answers EHLO, then
    reads and never answers again (a relay frozen in the middle of a transaction). Connections
    stay open until :meth:`__exit__`. ``.accepted`` counts them."""

    def __init__(self, mode: str = "silent") -> None:
        super().__init__()
        self.mode = mode

    def _accepted(self, conn: socket.socket) -> None:
        self._conns.append(conn)
        threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        if self.mode != "smtp":
            return
        try:
            conn.sendall(b"220 frozen ESMTP\r\n")
            conn.settimeout(30)
            line = conn.recv(1024)
            if line[:4].upper() in (b"EHLO", b"HELO"):
                conn.sendall(b"250-frozen\r\n250 8BITMIME\r\n")
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------
# a private PostgreSQL


PG_BIN = Path("/usr/lib/postgresql/15/bin")


def private_postgres_available() -> str | None:
    """``None`` when :class:`PrivatePostgres` can run here, else the reason to skip."""
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        return f"PostgreSQL server binaries not found in {PG_BIN} (apt-get install postgresql-15)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no 'postgres' user to run a private PostgreSQL as"
        if not shutil.which("runuser"):
            return (
                "running as root, and there is no runuser to run a private PostgreSQL as 'postgres'"
            )
    return None


class PrivatePostgres:
    """A PostgreSQL cluster of its own for one test (Debian's binaries in :data:`PG_BIN`): ``initdb``
    into a fresh ``/tmp/pg*`` directory, ``pg_ctl start`` on a free 127.0.0.1 port with trust
    authentication (superuser ``postgres``), so a test may stop, kill or restart it without touching
    the PostgreSQL other tests share. PostgreSQL refuses to run as root: as root every command runs
    through ``runuser -u postgres --`` and the directory belongs to that user.

    ``url(db)`` is a SQLAlchemy URL (``postgresql+psycopg://postgres@127.0.0.1:PORT/db``);
    :meth:`create_database` makes one; :meth:`restart` is ``pg_ctl restart -m <mode>`` (every
    client connection is cut; same port and data); :meth:`stop` stops it and removes the
    directory."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pg"))  # /tmp: pytest's tmp_path is root-only
        self.data = self.dir / "data"
        self.port = free_port()
        self.log = self.dir / "postgres.log"
        self.running = False

    def _run(self, *cmd: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        argv = [str(PG_BIN / cmd[0]), *cmd[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(cmd[:2])} exited {done.returncode}: "
                f"{done.stdout[-2000:]}{done.stderr[-2000:]}\n{log}"
            )
        return done

    def start(self) -> PrivatePostgres:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        if not self.data.exists():
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            )
        opts = (
            f"-p {self.port} -c listen_addresses={LOOPBACK} -k {self.dir} -c fsync=off "
            "-c max_connections=100"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            opts,
            "-w",
            "-t",
            "120",
            "start",
        )
        self.running = True
        return self

    def restart(self, mode: str = "fast") -> None:
        """``pg_ctl restart -m mode`` (``fast``: sessions are ended, transactions rolled back;
        ``immediate``: no clean shutdown, crash recovery on start), waiting until it accepts again."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-m",
            mode,
            "-w",
            "-t",
            "120",
            "restart",
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@{LOOPBACK}:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """``CREATE DATABASE name``; returns its URL."""
        from sqlalchemy import create_engine, text

        admin = create_engine(self.url(), isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            admin.dispose()
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (``-m immediate``: it holds nothing worth keeping) and remove its
        directory."""
        if self.running:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self._run(
                    "pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop"
                )
            self.running = False
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> PrivatePostgres:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------------------------------
# pymap


class Pymap:
    """pymap's in-memory ``dict`` backend as a subprocess on 127.0.0.1 (one user).

    ``imap_url`` is ``imap://tourney:secret@127.0.0.1:PORT/INBOX``. Stopped by SIGTERM to its PID.
    """

    def __init__(self, user: str = "tourney", password: str = "secret") -> None:
        self.user, self.password = user, password
        self.port = free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix="pm"))
        self.proc: subprocess.Popen | None = None

    @property
    def imap_url(self) -> str:
        return f"imap://{self.user}:{self.password}@{LOOPBACK}:{self.port}/INBOX"

    def start(self) -> Pymap:
        exe = Path(sys.executable).with_name("pymap")
        cmd = [
            str(exe) if exe.exists() else "pymap",
            "--no-service",
            "admin",
            "--no-tls",
            "--host",
            LOOPBACK,
            "--port",
            str(self.port),
            "dict",
            "--demo-user",
            self.user,
            "--demo-password",
            self.password,
        ]
        env = dict(os.environ, TMPDIR=str(self.tmp))
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_for_greeting(self.port, b"* OK", proc=self.proc)
        except RuntimeError:
            err = (
                self.proc.stderr.read().decode(errors="replace")
                if self.proc.poll() is not None
                else ""
            )
            self.stop()
            raise RuntimeError(f"pymap did not start: {err}") from None
        return self

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Pymap:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------------------------------
# pytest fixtures (import them into a conftest.py or a test module)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A running Dovecot for the whole session (skipped when it cannot run here)."""
    reason = dovecot_available()
    if reason:
        skip_or_fail(reason)
    with Dovecot() as server:
        yield server


@pytest.fixture
def mail_user(dovecot: Dovecot) -> MailUser:
    """A fresh, empty Dovecot account for one test."""
    return dovecot.add_user()


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """A running SMTP sink for one test."""
    with SmtpSink() as sink:
        yield sink


@pytest.fixture(scope="session")
def pymap_server() -> Iterator[Pymap]:
    """A running pymap (dict backend) for the whole session."""
    with Pymap() as server:
        yield server
