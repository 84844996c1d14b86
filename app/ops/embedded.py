"""An embedded mail stack for ``amaryllis demo`` and the tests: IMAP + SMTP on 127.0.0.1, nothing to install.

One asyncio event loop, in its own thread, runs

- an IMAP4rev1 server (pymap's in-memory ``dict`` backend, one user, cleartext password hashing so a
  LOGIN costs milliseconds instead of a 0.12 s pbkdf2 run; IDLE, UIDPLUS, MOVE supported), and
- an SMTP server (aiosmtpd, ``SMTPUTF8`` and ``8BITMIME`` advertised) whose handler

  * appends mail for the server address (``tourney@localhost``) and its plus addresses
    (``tourney+NAME@localhost``, RFC 5233 subaddressing) straight into that user's IMAP ``INBOX``, the way an
    MDA delivers (a ``Return-Path`` and a ``Delivered-To`` header are prepended, RFC 5321 §4.4); and
  * writes mail for every other recipient into ``out_dir`` as ``NNNN-<recipient>.eml`` (the bytes as
    received) and ``NNNN-<recipient>.txt`` (decoded headers and the text body, for people to read).

Both servers bind 127.0.0.1 only; port 0 (the default) picks free ports. This follows the measured
prototype in ``/work/shared/notes/mail-stack.md`` §3c. It relies on pymap internals (``DictBackend.init``'s
``Namespace`` fields, ``Login.demo_user_identity``, ``Session.append_messages``), so pymap is pinned
to 0.36.7 in ``pyproject.toml``; keep every use of pymap inside this module.

Usage::

    with EmbeddedMailStack(Path("out")) as stack:
        settings = load_settings(imap_url=stack.imap_url, smtp_url=stack.smtp_url)
        ...
        stack.wait_for_sink(3, timeout=10)   # three mails delivered to players
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
import socket
import threading
import time
from argparse import Namespace
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

__all__ = ["EmbeddedMailStack", "SinkMail", "message_text"]

_SAFE = re.compile(r"[^\w.@+-]", re.UNICODE)


@dataclass(frozen=True)
class SinkMail:
    """One mail delivered by the embedded SMTP server to a recipient other than the server address.

    ``index`` is the 1-based delivery counter (the ``NNNN`` of the file names); ``recipient`` the envelope
    recipient (RCPT TO); ``sender`` the envelope sender (MAIL FROM, ``""`` for a bounce); ``eml`` and
    ``txt`` the two files written; ``message`` the parsed message (``email.policy.default``).
    """

    index: int
    recipient: str
    sender: str
    eml: Path
    txt: Path
    message: EmailMessage

    @property
    def subject(self) -> str:
        """The decoded Subject (RFC 2047 words decoded), ``""`` when absent."""
        return str(self.message.get("Subject", ""))

    @property
    def text(self) -> str:
        """The decoded text body (see :func:`message_text`)."""
        return message_text(self.message)


def message_text(message: EmailMessage) -> str:
    """The readable body of ``message``: its ``text/plain`` part decoded (any charset the ``email`` package
    knows, e.g. UTF-8, ISO-2022-JP) with ``\\n`` line ends, else the text of its ``text/html`` part (via
    BeautifulSoup), else ``""``.
    Never raises for a malformed body: undecodable bytes are replaced."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # unknown charset or broken transfer encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if isinstance(content, bytes):
        content = content.decode("utf-8", "replace")
    content = content.replace("\r\n", "\n")
    if part.get_content_subtype() == "html":
        from bs4 import BeautifulSoup

        content = BeautifulSoup(content, "html.parser").get_text("\n")
    return content


def _readable(message: EmailMessage, index: int, sender: str, recipient: str) -> str:
    """The ``.txt`` twin of a sink mail: envelope, decoded headers, a blank line, the text body."""
    lines = [f"# mail {index:04d}: from <{sender}> to <{recipient}>"]
    for name in (
        "Date",
        "From",
        "To",
        "Subject",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Auto-Submitted",
    ):
        value = message.get(name)
        if value is not None:
            lines.append(f"{name}: {value}")
    body = message_text(message)
    return "\n".join(lines) + "\n\n" + body.rstrip("\n") + "\n"


def _bind(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:``port`` (0: a free port chosen by the kernel)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class EmbeddedMailStack:
    """pymap IMAP + aiosmtpd SMTP on 127.0.0.1 in one background thread (see the module docstring).

    Args:
        out_dir: folder for the ``.eml``/``.txt`` files of mail to other recipients (created if missing;
            existing files are left alone, numbering continues after the highest ``NNNN`` found).
        server_address: the address whose mail goes into the IMAP ``INBOX``; its local part is also the
            IMAP login. Plus addresses (``local+tag@domain``) are delivered to the same ``INBOX``.
        imap_port, smtp_port: ports to bind on 127.0.0.1; 0 picks free ones (read :attr:`imap_port`,
            :attr:`smtp_port` after :meth:`start`).
        password: the IMAP password of the single user.

    Raises (from :meth:`start`): ``OSError`` when a port cannot be bound, ``RuntimeError`` when the servers
    do not come up within 15 s. Use as a context manager, or call :meth:`start` / :meth:`stop`.
    """

    def __init__(
        self,
        out_dir: Path | str,
        server_address: str = "tourney@localhost",
        imap_port: int = 0,
        smtp_port: int = 0,
        *,
        password: str = "secret",
    ) -> None:
        local, at, domain = server_address.strip().partition("@")
        if not at or not local or not domain:
            raise ValueError(f"server_address must be local@domain, got {server_address!r}")
        self.out_dir = Path(out_dir)
        self.server_address = f"{local}@{domain}".lower()
        self.user = local.split("+", 1)[0]
        self.password = password
        self._domain = domain.lower()
        self._want_imap_port = imap_port
        self._want_smtp_port = smtp_port
        self.imap_port = 0
        self.smtp_port = 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._cond = threading.Condition()
        self._sink: list[SinkMail] = []
        self._inbox_count = 0
        self._counter = 0
        self._backend: Any = None
        self._listeners: list[Callable[[SinkMail], None]] = []

    # ------------------------------------------------------------------ public API

    @property
    def imap_url(self) -> str:
        """``imap://USER:PASSWORD@127.0.0.1:PORT/INBOX`` (plain IMAP, no TLS: loopback only)."""
        return f"imap://{self.user}:{self.password}@127.0.0.1:{self.imap_port}/INBOX"

    @property
    def smtp_url(self) -> str:
        """``smtp://127.0.0.1:PORT`` (no authentication, no TLS: loopback only)."""
        return f"smtp://127.0.0.1:{self.smtp_port}"

    @property
    def sink(self) -> list[SinkMail]:
        """A snapshot of the mails written to ``out_dir`` so far, in delivery order."""
        with self._cond:
            return list(self._sink)

    @property
    def inbox_deliveries(self) -> int:
        """How many messages the SMTP server appended to the IMAP ``INBOX`` so far."""
        with self._cond:
            return self._inbox_count

    def on_sink(self, callback: Callable[[SinkMail], None]) -> None:
        """Call ``callback(mail)`` (in the stack's thread) for every mail written to ``out_dir`` from now
        on. The callback must be quick and must not raise."""
        self._listeners.append(callback)

    def wait_for_sink(self, count: int, timeout: float = 10.0) -> list[SinkMail]:
        """Block until at least ``count`` mails are in the sink, then return them all.

        Raises ``TimeoutError`` (with how many arrived) after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._sink) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"{len(self._sink)} of {count} mails reached the sink in {timeout:.1f} s"
                    )
                self._cond.wait(left)
            return list(self._sink)

    def start(self) -> EmbeddedMailStack:
        """Bind both ports and start serving; returns ``self``. See the class docstring for errors."""
        if self._thread is not None:
            raise RuntimeError("EmbeddedMailStack already started")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._counter = max(
            (int(p.name[:4]) for p in self.out_dir.glob("[0-9][0-9][0-9][0-9]-*.eml")), default=0
        )
        imap_sock = _bind(self._want_imap_port)
        try:
            smtp_sock = _bind(self._want_smtp_port)
        except OSError:
            imap_sock.close()
            raise
        self.imap_port = imap_sock.getsockname()[1]
        self.smtp_port = smtp_sock.getsockname()[1]
        self._thread = threading.Thread(
            target=self._run, args=(imap_sock, smtp_sock), name="embedded-mail", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(15):
            raise RuntimeError("embedded mail stack did not start within 15 s")
        if self._error is not None:
            self._thread.join(5)
            self._thread = None
            raise RuntimeError(
                f"embedded mail stack failed to start: {self._error!r}"
            ) from self._error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Close both servers and their open connections, and end the thread. Idempotent."""
        thread, loop, stop_event = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        if loop is not None and stop_event is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop_event.set)
            except RuntimeError:  # loop already closed
                pass
        thread.join(timeout)
        self._thread = None

    def __enter__(self) -> EmbeddedMailStack:
        """Start the stack unless :meth:`start` was called already."""
        return self if self._thread is not None else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the thread

    def _run(self, imap_sock: socket.socket, smtp_sock: socket.socket) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main(imap_sock, smtp_sock))
        finally:
            try:
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()
                imap_sock.close()
                smtp_sock.close()
                self._ready.set()

    async def _main(self, imap_sock: socket.socket, smtp_sock: socket.socket) -> None:
        servers: list[asyncio.AbstractServer] = []
        try:
            self._stop_event = asyncio.Event()
            servers.append(await self._start_imap(imap_sock))
            loop = asyncio.get_running_loop()
            servers.append(
                await loop.create_server(
                    lambda: SMTP(
                        self,
                        hostname=self._domain,
                        enable_SMTPUTF8=True,
                        ident="Amaryllis embedded SMTP",
                    ),
                    sock=smtp_sock,
                )
            )
        except BaseException as exc:  # reported to start()
            self._error = exc
            for server in servers:
                server.close()
            self._ready.set()
            return
        self._ready.set()
        await self._stop_event.wait()
        for server in servers:
            server.close()
        # connection handlers (an IDLEing client, an open SMTP session) are cancelled by _run

    async def _start_imap(self, sock: socket.socket) -> asyncio.AbstractServer:
        from proxyprotocol.reader import ProxyProtocolReader
        from pymap.backend.dict import DictBackend
        from pymap.imap import IMAPServer
        from pysasl.hashing import Cleartext

        args = Namespace(
            debug=False,
            host=["127.0.0.1"],
            port=str(self.imap_port),
            cert=None,
            key=None,
            tls=False,
            proxy_protocol=None,
            passlib_cfg=None,
            inherited_sockets=None,
            demo_data=False,
            demo_user=self.user,
            demo_password=self.password,
        )
        backend, config = await DictBackend.init(args, hash_context=Cleartext())
        config.apply_context()
        self._backend = backend
        # what pymap.imap.IMAPService.start does, but on our pre-bound socket (port 0 works)
        callback = ProxyProtocolReader(config.proxy_protocol).get_callback(
            IMAPServer(backend.login, config)
        )
        return await asyncio.start_server(callback, sock=sock)

    # ------------------------------------------------------------------ aiosmtpd handler hooks

    def _is_ours(self, address: str) -> bool:
        local, _, domain = address.lower().rpartition("@")
        return domain == self._domain and local.split("+", 1)[0] == self.user

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        """Accept every syntactically valid recipient: ours go to IMAP, the rest to the sink."""
        if "@" not in address:
            return f"550 5.1.3 <{address}> is not local@domain"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Deliver the message: once into the INBOX if any recipient is ours, and once per other
        recipient into ``out_dir``."""
        raw = envelope.original_content or b""
        mail_from = envelope.mail_from or ""
        if mail_from == "<>":
            mail_from = ""
        ours = [r for r in envelope.rcpt_tos if self._is_ours(r)]
        others = [r for r in envelope.rcpt_tos if not self._is_ours(r)]
        try:
            if ours:
                await self._deliver_inbox(raw, mail_from, ours[0])
            for recipient in others:
                await asyncio.get_running_loop().run_in_executor(
                    None, self._write_sink, raw, mail_from, recipient
                )
        except Exception as exc:
            return f"451 4.3.0 delivery failed: {exc.__class__.__name__}"
        return "250 2.0.0 delivered"

    async def _deliver_inbox(self, raw: bytes, mail_from: str, recipient: str) -> None:
        from pymap.parsing.message import AppendMessage
        from pymap.parsing.specials import ExtensionOptions

        trace = f"Return-Path: <{mail_from}>\r\nDelivered-To: {recipient}\r\n".encode()
        message = AppendMessage(
            trace + raw, datetime.now(timezone.utc), frozenset(), ExtensionOptions.empty()
        )
        async with self._backend.login.demo_user_identity.new_session() as imap_session:
            await imap_session.append_messages("INBOX", [message])
        with self._cond:
            self._inbox_count += 1
            self._cond.notify_all()

    def _write_sink(self, raw: bytes, mail_from: str, recipient: str) -> None:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self._cond:
            self._counter += 1
            index = self._counter
        stem = f"{index:04d}-{_SAFE.sub('_', recipient)[:100]}"
        eml = self.out_dir / f"{stem}.eml"
        txt = self.out_dir / f"{stem}.txt"
        eml.write_bytes(raw)
        try:
            readable = _readable(message, index, mail_from, recipient)
        except Exception as exc:
            readable = f"# mail {index:04d}: could not be decoded ({exc!r}); see {eml.name}\n"
        txt.write_text(readable, encoding="utf-8")
        mail = SinkMail(index, recipient, mail_from, eml, txt, message)
        with self._cond:
            self._sink.append(mail)
            self._sink.sort(key=lambda m: m.index)
            self._cond.notify_all()
        for callback in list(self._listeners):
            try:
                callback(mail)
            except Exception:
                pass
