"""Leases: which process works on a shared row (an outbox row, a league's rounds, an organizer
request), so several ``serve`` processes on one database never do one piece of work at once, and
the work of a dead one is taken over.

A lease is an owner id (:func:`owner_id`: ``host/pid/start-ticks/random``) and an end time. It may
be taken over (:func:`lease_over`) once its end passed, or at once when its owner was a process on
this host that no longer runs (the pid's start time from ``/proc`` tells a reused pid apart). A
live owner's lease on another host is honoured until its end.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import uuid


def _start_ticks(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (``/proc/<pid>/stat`` field
    22), or ``None`` when there is no such process (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:
        return stat.rsplit(b")", 1)[1].split()[19].decode()
    except (IndexError, UnicodeDecodeError):
        return None


_OWNER: str | None = None


def owner_id() -> str:
    """This process's lease owner id: ``host/pid/start-ticks/random`` (at most 200 characters).
    The pid and its start time let a sender on the same host see that an owner is dead."""
    global _OWNER
    if _OWNER is None or _OWNER.split("/")[1] != str(os.getpid()):
        _OWNER = (
            f"{socket.gethostname()[:120]}/{os.getpid()}/{_start_ticks(os.getpid()) or 0}/"
            f"{uuid.uuid4().hex[:12]}"
        )
    return _OWNER


def owner_alive(owner: str | None) -> bool | None:
    """Whether the process named by lease owner id ``owner`` still runs: ``True``/``False`` for an
    owner on this host, ``None`` (unknown: trust the lease time) for another host."""
    if not owner:
        return False
    parts = owner.split("/")
    if len(parts) < 4:
        return None
    host, pid, ticks = parts[0], parts[1], parts[2]
    if host != socket.gethostname()[:120]:
        return None
    try:
        running = _start_ticks(int(pid))
    except ValueError:
        return None
    return running is not None and (ticks == "0" or running == ticks)


def lease_over(owner: str | None, until: dt.datetime | None, now: dt.datetime) -> bool:
    """True when a lease may be taken over: no owner or no end, its end passed, or its owner is
    a dead process of this host (:func:`owner_alive`)."""
    if owner is None or until is None:
        return True
    if until.tzinfo is None:
        until = until.replace(tzinfo=dt.timezone.utc)
    if until <= now:
        return True
    return owner_alive(owner) is False
