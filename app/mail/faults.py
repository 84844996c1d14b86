"""Crash points for the crash tests: ``AMARYLLIS_CRASH_AT=after-store`` (comma-separated names)
makes the process SIGKILL itself at that point, exactly like a power cut.

Points: ``after-store`` (inbound: raw mail committed, not yet flagged/moved on the server),
``before-smtp`` (outbox row committed as ``sending``), ``after-send`` (SMTP accepted the mail,
``sent`` not yet committed). Unset in production: :func:`crash_point` then costs one dict lookup.
"""

from __future__ import annotations

import os
import signal


def crash_point(name: str) -> None:
    """SIGKILL this process when ``name`` is listed in ``$AMARYLLIS_CRASH_AT``."""
    spec = os.environ.get("AMARYLLIS_CRASH_AT")
    if spec and name in spec.split(","):
        os.kill(os.getpid(), signal.SIGKILL)
