"""Times and durations typed by organizers: ISO 8601 instants and relative spans.

``parse_duration("48h")`` → 48 hours; units ``s``, ``m``, ``h``, ``d``, ``w`` (combinable:
``1d12h``); :func:`format_duration` writes spans back in that syntax (``1d 12h``).
``parse_instant("2026-12-01T12:00Z", now)`` → an aware UTC datetime; ``+2d`` or ``48h`` mean
``now`` plus that span. A time without a zone is read as UTC.
"""

from __future__ import annotations

import datetime as dt
import re

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SPAN = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)


def parse_duration(text: str) -> dt.timedelta:
    """Parse a span like ``48h``, ``2d``, ``90m``, ``1d12h``. Raises ``ValueError`` when the text is
    not a positive span in those units."""
    s = text.strip().lower().replace(" ", "")
    if not s or _SPAN.sub("", s):
        raise ValueError(f"not a duration: {text!r} (use e.g. 48h, 2d, 90m, 1d12h)")
    seconds = sum(int(n) * _UNITS[u] for n, u in _SPAN.findall(s))
    if seconds <= 0:
        raise ValueError(f"duration must be positive: {text!r}")
    try:
        return dt.timedelta(seconds=seconds)
    except OverflowError:
        raise ValueError(f"duration too long: {text!r}") from None


def format_duration(span: dt.timedelta | int | float) -> str:
    """A span (``timedelta`` or whole seconds) in the syntax :func:`parse_duration` reads, for
    people: ``2d``, ``1d 12h``, ``6h``, ``1h 30m``, ``45s``. Days are the largest unit (no
    weeks) and zero parts are left out; ``parse_duration(format_duration(x)) == x`` for any
    positive whole-second span. Zero is ``0s``; a negative span gets a leading ``-``. Fractions
    of a second are dropped."""
    total = int(span.total_seconds()) if isinstance(span, dt.timedelta) else int(span)
    sign = "-" if total < 0 else ""
    total = abs(total)
    if total == 0:
        return "0s"
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        n, total = divmod(total, size)
        if n:
            parts.append(f"{n}{unit}")
    return sign + " ".join(parts)


def parse_instant(text: str, now: dt.datetime) -> dt.datetime:
    """Parse an ISO 8601 instant (``2026-12-01T12:00Z``, ``2026-12-01 12:00+09:00``,
    ``2026-12-01``) or a span relative to ``now`` (``+2d``, ``48h``). Returns aware UTC.
    Raises ``ValueError`` for anything else."""
    s = text.strip()
    rel = s[1:] if s.startswith("+") else s
    if rel and not _SPAN.sub("", rel.lower().replace(" ", "")):
        try:
            return now.astimezone(dt.timezone.utc) + parse_duration(rel)
        except OverflowError:
            raise ValueError(f"time too far in the future: {text!r}") from None
        except ValueError as exc:
            if "too long" in str(exc):
                raise ValueError(f"time too far in the future: {text!r}") from None
    iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
    try:
        value = dt.datetime.fromisoformat(iso)
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.astimezone(dt.timezone.utc)
    except (ValueError, OverflowError):
        raise ValueError(
            f"not a time: {text!r} (use ISO 8601 such as 2026-12-01T12:00Z, or +2d, 48h)"
        ) from None


def as_utc(value: dt.datetime | None) -> dt.datetime | None:
    """``value`` as aware UTC; a naive value (SQLite returns those) is taken to be UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def iso(value: dt.datetime | None) -> str:
    """``YYYY-MM-DDTHH:MMZ`` for an instant (seconds kept when non-zero), ``""`` for ``None``."""
    v = as_utc(value)
    if v is None:
        return ""
    fmt = "%Y-%m-%dT%H:%M:%SZ" if v.second else "%Y-%m-%dT%H:%MZ"
    return v.strftime(fmt)
