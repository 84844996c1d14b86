"""Graceful stops on SIGTERM and SIGINT, shared by ``serve`` (``app.ops.serve``) and the web
view run alone (``app.web.server.run_web``): below both, so neither imports the other.

POSIX signals are delivered to the main thread only; a handler there sets a
``threading.Event`` that every worker watches between two units of work.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import structlog

log = structlog.get_logger("amaryllis.serve")


def install_stop_handlers(stop: threading.Event) -> dict[int, Any]:
    """Make SIGTERM and SIGINT set ``stop`` (a graceful stop: the current unit of work is
    finished, exit code 0); a second signal while stopping restores the default action, so a
    third one kills at once. Only possible in the main thread (returns ``{}`` elsewhere).
    Returns the previous handlers, for :func:`restore_handlers`."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous

    def _on_signal(signum: int, _frame: Any) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():  # a second signal: the next one kills the process at once
            log.warning(
                "stop_requested_again",
                signal=name,
                note="finishing the current unit of work; send the signal again to kill",
            )
            signal.signal(signum, signal.SIG_DFL)
            return
        log.info("stop_requested", signal=name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        previous[sig] = signal.signal(sig, _on_signal)
    return previous


def restore_handlers(previous: dict[Any, Any]) -> None:
    """Put back the signal handlers :func:`install_stop_handlers` replaced (a mapping of
    signal number to handler)."""
    for sig, handler in previous.items():
        signal.signal(sig, handler)
