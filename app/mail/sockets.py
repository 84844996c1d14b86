"""The open IMAP and SMTP sockets of this process, so that ``serve`` can cut them on SIGTERM.

A unit of work blocked on a frozen server would otherwise wait for its socket timeout
(``imap_timeout``/``smtp_timeout``, 30 s by default) before the process can stop. :func:`abort_all`
shuts every tracked socket down: the blocked read returns at once with an error, the unit ends
like after a lost connection (nothing half-done: every mail and outbox row is its own
transaction; an SMTP transaction cut after its content is an unknown outcome and is sent again
with the same Message-ID).
"""

from __future__ import annotations

import socket
import threading
import weakref

_LOCK = threading.Lock()
_SOCKETS: weakref.WeakSet[socket.socket] = weakref.WeakSet()


def track(sock: socket.socket | None) -> None:
    """Remember ``sock`` (held weakly: a closed, dropped socket is forgotten)."""
    if sock is not None:
        with _LOCK:
            _SOCKETS.add(sock)


def abort_all() -> int:
    """``shutdown(SHUT_RDWR)`` every tracked socket still open. Returns how many were cut."""
    with _LOCK:
        socks = list(_SOCKETS)
    cut = 0
    for sock in socks:
        try:
            if sock.fileno() >= 0:
                sock.shutdown(socket.SHUT_RDWR)
                cut += 1
        except OSError:
            pass
    return cut


# -- clients whose sockets are tracked from the moment they exist (a server frozen before its
#    greeting blocks inside the constructor, before the caller could track anything)

import smtplib  # noqa: E402
from typing import Any  # noqa: E402

from imapclient import IMAPClient, imap4, tls  # noqa: E402


class _TrackedIMAP4(imap4.IMAP4WithTimeout):
    def _create_socket(self, timeout: float | None = None) -> socket.socket:
        sock = super()._create_socket(timeout)
        track(sock)
        return sock


class _TrackedIMAP4TLS(tls.IMAP4_TLS):
    def _create_socket(self, timeout: float | None = None) -> socket.socket:
        sock = super()._create_socket(timeout)
        track(sock)
        return sock


class TrackedIMAPClient(IMAPClient):
    """``imapclient.IMAPClient`` whose socket is tracked (:func:`track`) as soon as it is
    connected, before the server's greeting is read."""

    def _create_IMAP4(self) -> Any:
        if self.stream or (self.ssl and not hasattr(self, "ssl_context")):
            return super()._create_IMAP4()
        timeout = getattr(self._timeout, "connect", None)
        if self.ssl:
            return _TrackedIMAP4TLS(self.host, self.port, self.ssl_context, timeout)
        return _TrackedIMAP4(self.host, self.port, timeout)


class TrackedSMTP(smtplib.SMTP):
    """``smtplib.SMTP`` whose socket is tracked before the greeting is read."""

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = super()._get_socket(host, port, timeout)  # type: ignore[misc]
        track(sock)
        return sock


class TrackedSMTP_SSL(smtplib.SMTP_SSL):
    """``smtplib.SMTP_SSL`` whose socket is tracked before the greeting is read."""

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = super()._get_socket(host, port, timeout)  # type: ignore[misc]
        track(sock)
        return sock
