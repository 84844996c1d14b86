"""The one form an instant takes in every mail and page people read: ``2026-12-04 01:35 UTC``.

Minutes, not seconds (a deadline or a round's time is set to the minute; the seconds of when a
round happened to finish say nothing to a player), UTC named (the server's clock is UTC, and a
reader anywhere knows what it means), no ``T`` or ``Z`` (ISO 8601's machine form, which readers
of a mail took for a different kind of date: issue 20 found both ``2026-12-04 01:35 UTC`` and
``2026-12-02T01:51:17Z`` in mails). Machine formats keep ISO 8601: the JSON documents, CSV
files, Atom ``<updated>``, ``<time datetime>`` attributes, the ``Date`` header (RFC 5322) and the
command line (``amaryllis league show``, ``status``).

Every template gets :func:`human_time` as the Jinja filter ``utc`` (``{{ value|utc }}``,
:mod:`app.reports.i18n`); Python code that writes a time into a reply calls it directly.
"""

from __future__ import annotations

import datetime as dt

__all__ = ["human_time"]


def human_time(value: dt.datetime | None) -> str:
    """``value`` as ``YYYY-MM-DD HH:MM UTC`` (``2026-12-04 01:35 UTC``): converted to UTC, a
    naive value (as SQLite returns them) taken as UTC, seconds dropped. ``None`` gives ``""``.
    Never raises for a ``datetime``."""
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
