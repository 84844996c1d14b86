"""``amaryllis status``: is the server healthy, and what is it holding?

Reports, without changing anything:

- **database**: reachable, Alembic revision (``alembic_version``) vs the head of ``migrations/``;
- **mailbox**: IMAP login + SELECT of the configured mailbox works; EXISTS and UNSEEN counts; IDLE offered;
- **smtp**: the relay answers EHLO;
- **queues**: inbound mail by status (``stored`` = waiting for the pipeline, ``shunted`` = failed) and the
  outbox by status (``queued``, ``sending``, ``sent``, ``failed``);
- **leagues**: name, state, active entries, rounds done / scheduled, next round time;
- **last poll**: ``mailbox_state.last_poll_at`` per mailbox, and the ``serve`` heartbeat
  (``<data_dir>/serve-status.json``: state, pid, last run of each worker).

- **trouble** (issue 9.7): relays whose last passes failed (``smtp_relays``: last error and its time),
  outbox rows ``failed`` or ``unknown``, rows left ``sending`` past their lease, shunted or quarantined
  inbound mail, rounds past their scheduled time by more than :data:`STUCK_AFTER_S` and not done.

``collect_status`` returns a JSON-able dict; ``render_status`` prints it for people. Every failed
check is trouble (the database unreachable, missing or not migrated, the mailbox or relay not
answering, a heartbeat claiming a ``serve`` that is not running). ``--check`` makes the command
exit 1 when there is any trouble (``healthy``; the container HEALTHCHECK); without it the command
exits 1 only when the database could not be read (``exit_code``).

The heartbeat file lives in the data folder and names the database its ``serve`` works on
(``app.ops.serve.database_identity``): a heartbeat of another database sharing the folder is
shown as such (``serve_elsewhere``) and never taken for this database's server.

The heartbeat alone proves nothing after a crash (``kill -9`` leaves ``state: running``), so ``serve`` counts
as running only when its pid is alive (``os.kill(pid, 0)``), on Linux ``/proc/<pid>/cmdline`` looks like
amaryllis, and the file was written recently (``serve_liveness``). A pid that still answers but is a zombie
or has no ``/proc/<pid>`` (right after a SIGKILL) is "gone", not "another program". A SQLite database that
does not exist is reported as "no database yet" and is not created.
"""

from __future__ import annotations

import datetime as dt
import os
import smtplib
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import func, inspect, select, text

from app import PROGRAM
from app.config import Settings

__all__ = ["collect_status", "exit_code", "healthy", "render_status", "serve_liveness"]

#: a heartbeat older than this (seconds) means ``serve`` is not working, whatever its pid; at least
#: three times the longest worker interval is used when that is longer
STALE_AFTER_S = 300.0
#: a round this many seconds past its scheduled time and not done is reported as stuck
STUCK_AFTER_S = 900.0


def _sqlite_missing(url: str) -> str | None:
    """For a SQLite URL whose file does not exist, the file's path; else ``None``."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:
        return None
    if not parsed.get_backend_name() == "sqlite":
        return None
    db = parsed.database or ""
    if not db or db == ":memory:" or db.startswith("file:"):
        return None
    return None if Path(db).exists() else db


def _db_status(url: str) -> tuple[dict[str, Any], Any]:
    from app.db.session import alembic_config, make_engine

    info: dict[str, Any] = {"ok": False}
    engine = None
    missing = _sqlite_missing(url)
    if missing is not None:  # connecting would create the file (and its folder)
        info.update(
            missing=True, error=f"no database yet ({missing}; run: amaryllis serve or db upgrade)"
        )
        return info, None
    try:
        engine = make_engine(url)
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            revision = None
            if "alembic_version" in tables:
                revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        from alembic.script import ScriptDirectory

        head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
        info.update(ok=True, revision=revision, head=head, migrated=revision == head)
    except Exception as exc:
        info["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    return info, engine


def _mailbox_status(settings: Settings) -> dict[str, Any]:
    from app.ops.serve import connect_imap

    info: dict[str, Any] = {"ok": False}
    try:
        endpoint = settings.imap
        client = connect_imap(endpoint, timeout=10)
        try:
            folder = endpoint.path or "INBOX"
            st = client.folder_status(folder, ["MESSAGES", "UNSEEN", "UIDVALIDITY"])
            info.update(
                ok=True,
                folder=folder,
                messages=int(st.get(b"MESSAGES", 0)),
                unseen=int(st.get(b"UNSEEN", 0)),
                uidvalidity=int(st.get(b"UIDVALIDITY", 0)),
                idle=b"IDLE" in client.capabilities(),
            )
        finally:
            client.logout()
    except Exception as exc:
        info["error"] = (
            f"{exc.__class__.__name__}: {exc}".splitlines()[0] if str(exc) else repr(exc)
        )
    return info


def _smtp_status(settings: Settings) -> dict[str, Any]:
    info: dict[str, Any] = {"ok": False}
    try:
        ep = settings.smtp
        cls = smtplib.SMTP_SSL if ep.security == "tls" else smtplib.SMTP
        with cls(ep.host, ep.port, timeout=10) as smtp:
            code, _ = smtp.ehlo()
            if ep.security == "starttls":
                smtp.starttls()
            info.update(ok=200 <= code < 300, code=code)
    except Exception as exc:
        info["error"] = (
            f"{exc.__class__.__name__}: {exc}".splitlines()[0] if str(exc) else repr(exc)
        )
    return info


def _counts(session: Any, model: Any) -> dict[str, int]:
    rows = session.execute(select(model.status, func.count()).group_by(model.status)).all()
    return {status: int(n) for status, n in sorted(rows)}


def utc_z(value: Any) -> str | None:
    """An instant as ISO 8601 UTC to the second with ``Z`` (``2026-11-29T15:06:45Z``), like every
    time ``status`` shows. ``value``: a ``datetime`` (naive ones, as SQLite returns them, are UTC)
    or ISO 8601 text (the heartbeat's times); ``None`` and ``""`` give ``None``; text that is not
    ISO 8601 is returned as it is."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    if not isinstance(value, dt.datetime):
        return str(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def collect_status(settings: Settings, *, network: bool = True) -> dict[str, Any]:
    """Gather the status (see the module docstring) as a JSON-able dict with keys ``database``,
    ``mailbox``, ``smtp``, ``queues``, ``leagues``, ``mailboxes`` (last poll per mailbox) and ``serve``
    (the heartbeat or ``None``). ``network=False`` skips the IMAP and SMTP checks. Never raises for an
    unreachable service: each section has ``ok`` and, on failure, ``error``."""
    from sqlalchemy.orm import Session

    from app.db.models import Entry, InboundMessage, League, MailboxState, OutboxMessage, Round
    from app.ops.serve import HEARTBEAT_FILE, Heartbeat, _mask, database_identity

    out: dict[str, Any] = {
        "config": {
            "database": _mask(settings.resolved_database_url),
            "imap": _mask(settings.imap_url),
            "smtp": _mask(settings.smtp_url),
            "server_address": settings.server_address,
        },
    }
    db, engine = _db_status(settings.resolved_database_url)
    out["database"] = db
    out["queues"], out["leagues"], out["mailboxes"] = {}, [], []
    found: list[str] = []
    if db["ok"] and db.get("revision"):
        try:
            with Session(engine) as session:
                out["queues"] = {
                    "inbound": _counts(session, InboundMessage),
                    "outbox": _counts(session, OutboxMessage),
                }
                for league in session.scalars(select(League).order_by(League.id)):
                    entries = session.scalar(
                        select(func.count())
                        .select_from(Entry)
                        .where(Entry.league_id == league.id, Entry.status == "active")
                    )
                    rounds = session.execute(
                        select(Round.state, func.count())
                        .where(Round.league_id == league.id)
                        .group_by(Round.state)
                    ).all()
                    by_state = {s: int(n) for s, n in rounds}
                    out["leagues"].append(
                        {
                            "name": league.name,
                            "state": league.state,
                            "entries": int(entries or 0),
                            "rounds_done": by_state.get("done", 0),
                            "rounds_total": sum(by_state.values()),
                            "entry_deadline": utc_z(league.entry_deadline),
                            "next_round_at": utc_z(league.next_round_at),
                        }
                    )
                out["relays"], found = _trouble(session, out["queues"])
                for mbox in session.scalars(select(MailboxState).order_by(MailboxState.mailbox)):
                    out["mailboxes"].append(
                        {
                            "mailbox": mbox.mailbox,
                            "uidvalidity": mbox.uidvalidity,
                            "last_uid": mbox.last_uid,
                            "last_poll_at": utc_z(mbox.last_poll_at),
                        }
                    )
        except Exception as exc:
            db["ok"] = False
            db["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    if engine is not None:
        engine.dispose()
    if network:
        out["mailbox"] = _mailbox_status(settings)
        out["smtp"] = _smtp_status(settings)
    beat_path = Path(settings.data_dir) / HEARTBEAT_FILE
    beat = Heartbeat.read(beat_path)
    ours = database_identity(settings.resolved_database_url)
    if beat is not None and beat.get("database") not in (None, ours):
        # the data folder is shared with a serve of another database: not ours, whatever it does
        out["serve_elsewhere"] = {
            "pid": beat.get("pid"),
            "state": beat.get("state"),
            "database": str(beat.get("database")),
        }
        beat = None
    if beat is not None:
        intervals = (settings.poll_interval, settings.tick_interval, settings.send_interval)
        beat.update(
            serve_liveness(beat, beat_path, stale_after=max(STALE_AFTER_S, 3 * max(intervals)))
        )
    out["serve"] = beat
    out["trouble"] = _failed_checks(out) + found
    return out


def _failed_checks(status: dict[str, Any]) -> list[str]:
    """One trouble line per check that failed: the database (unreachable, missing, unreadable,
    not migrated), the mailbox and the relay (when checked), a heartbeat that claims a ``serve``
    that is not running."""
    lines: list[str] = []
    db = status["database"]
    if not db.get("ok"):
        lines.append(f"database: {db.get('error', 'unknown error')}")
    elif not db.get("revision"):
        lines.append("database: not migrated (run: amaryllis serve or db upgrade)")
    elif not db.get("migrated"):
        lines.append(
            f"database: revision {db.get('revision')}, not the head {db.get('head')} "
            "(run: amaryllis serve or db upgrade)"
        )
    for name in ("mailbox", "smtp"):
        section = status.get(name)
        if section is not None and not section.get("ok"):
            lines.append(f"{name}: {section.get('error', 'unknown error')}")
    beat = status.get("serve") or {}
    if beat.get("stale"):
        lines.append(
            f"serve: the status file claims pid {beat.get('pid')}, which is not running "
            f"({beat.get('why')})"
        )
    return lines


def _trouble(
    session: Any, queues: dict[str, dict[str, int]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``(relays, trouble)``: every relay the senders recorded (``smtp_relays``) with ``failing``,
    and one line per problem an operator must look at (see the module docstring)."""
    from app.db.models import League, OutboxMessage, Round, SmtpRelay

    now = dt.datetime.now(dt.timezone.utc)
    relays: list[dict[str, Any]] = []
    trouble: list[str] = []
    for r in session.scalars(select(SmtpRelay).order_by(SmtpRelay.relay)):
        failing = bool(r.failures)
        relays.append(
            {
                "relay": r.relay,
                "failing": failing,
                "failures": r.failures,
                "last_error": r.last_error,
                "last_error_at": utc_z(r.last_error_at),
                "last_ok_at": utc_z(r.last_ok_at),
            }
        )
        if failing:
            trouble.append(
                f"relay {r.relay} failing ({r.failures} pass(es)): last error "
                f"{utc_z(r.last_error_at)}: {(r.last_error or '').splitlines()[0][:200]}"
            )
    outbox = queues.get("outbox", {})
    for state in ("failed", "unknown"):
        if outbox.get(state):
            trouble.append(f"outbox: {outbox[state]} {state} row(s) (amaryllis send --requeue ID)")
    expired = (
        session.scalar(
            select(func.count())
            .select_from(OutboxMessage)
            .where(OutboxMessage.status == "sending", OutboxMessage.lease_until < now)
        )
        or 0
    )
    if expired:
        trouble.append(
            f"outbox: {expired} row(s) sending past their lease (a sender died; the "
            "next pass of any sender sends them again)"
        )
    inbound = queues.get("inbound", {})
    for state in ("shunted", "quarantined"):
        if inbound.get(state):
            trouble.append(f"inbound: {inbound[state]} {state} mail(s)")
    late = now - dt.timedelta(seconds=STUCK_AFTER_S)
    stuck = session.execute(
        select(League.name, Round.number, Round.scheduled_at)
        .join(Round, Round.league_id == League.id)
        .where(
            League.state.in_(("closed", "running")),
            Round.state != "done",
            Round.scheduled_at.is_not(None),
            Round.scheduled_at < late,
        )
        .order_by(League.name, Round.number)
    ).all()
    for name, number, at in stuck:
        trouble.append(f"league {name}: round {number} due {utc_z(at)} and not played")
    try:
        from app.db.models import LeagueRequest

        waiting = (
            session.scalar(
                select(func.count())
                .select_from(LeagueRequest)
                .where(LeagueRequest.state == "queued", LeagueRequest.created_at < late)
            )
            or 0
        )
        if waiting:
            trouble.append(
                f"organizer requests: {waiting} waiting for more than "
                f"{int(STUCK_AFTER_S // 60)} minutes"
            )
    except Exception:
        pass
    return relays, trouble


def _pid_owner(pid: int) -> str:
    """Who has ``pid`` now: ``"gone"`` (no such process, or only its exit left: a zombie not yet
    reaped, or ``/proc/<pid>`` vanishing while being read, as right after a SIGKILL),
    ``"amaryllis"`` (``/proc/<pid>/cmdline`` names the ``amaryllis`` script or ``-m app.cli``;
    always off Linux, and for this process) or ``"other"`` (a live process of another program:
    the pid was reused). Linux reads ``/proc/<pid>/stat`` (proc(5): state ``Z``/``X``)."""
    if not _pid_alive(pid):
        return "gone"
    if pid == os.getpid() or not sys.platform.startswith("linux"):
        return PROGRAM
    proc = Path(f"/proc/{pid}")
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return "gone"
    except (OSError, IndexError):
        fields = []
    if fields and fields[0] in ("Z", "X", "x"):
        return "gone"
    try:
        cmdline = (proc / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return "gone"
    except OSError:
        return "other"
    if not cmdline:  # exiting (its memory already freed), unless a kernel thread took the pid
        kthread = len(fields) > 6 and fields[6].isdigit() and int(fields[6]) & 0x00200000
        return "other" if kthread else "gone"
    return PROGRAM if _names_amaryllis(cmdline) else "other"


def _names_amaryllis(cmdline: bytes) -> bool:
    """True when a ``/proc/<pid>/cmdline`` is the server's."""
    return PROGRAM.encode() in cmdline or b"app.cli" in cmdline


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return True


def serve_liveness(
    beat: dict[str, Any],
    path: Path,
    *,
    stale_after: float = STALE_AFTER_S,
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    """Judge the heartbeat ``beat`` read from ``path``. Returns ``running`` (bool: the pid is alive, looks
    like amaryllis, and the file was written less than ``stale_after`` seconds ago), ``stale`` (bool: the
    file says starting/running/stopping but ``running`` is false: the server died without a clean stop
    or hangs), ``last_seen`` (ISO 8601 UTC time the file was last written, or ``None``) and, when not
    running, ``why`` (English)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    try:
        seen = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
    except OSError:
        seen = None
    pid = beat.get("pid")
    claims = beat.get("state") in ("starting", "running", "stopping")
    why = ""
    owner = _pid_owner(pid) if isinstance(pid, int) else "gone"
    if owner == "gone":
        why = "the process is gone"
    elif owner == "other":
        why = "the pid now belongs to another program"
    elif seen is None or (now - seen).total_seconds() > stale_after:
        why = f"no heartbeat for more than {int(stale_after)} s"
    running = claims and not why
    out: dict[str, Any] = {
        "running": running,
        "stale": claims and not running,
        "last_seen": utc_z(seen),
    }
    if not running:
        out["why"] = why or f"state {beat.get('state')}"
    return out


def healthy(status: dict[str, Any], *, offline: bool = False) -> bool:
    """What ``status --check`` exits 0 on: no ``trouble`` at all. Every failed check is trouble
    (:func:`_failed_checks`: the database unreachable, missing or not migrated, the mailbox or
    the relay not answering unless ``offline``, a heartbeat of this database claiming a ``serve``
    that is not running; a missing heartbeat is fine: not started here), and so are failing
    relays, failed/unknown/expired outbox rows, shunted mail and stuck rounds."""
    db_ok = bool(status["database"].get("ok"))
    mailbox_ok = offline or bool((status.get("mailbox") or {}).get("ok"))
    serve_ok = not (status.get("serve") or {}).get("stale")
    return db_ok and mailbox_ok and serve_ok and not status.get("trouble")


def exit_code(status: dict[str, Any], *, check: bool, offline: bool = False) -> int:
    """The exit code of ``amaryllis status``: with ``check`` (the health check), 0 when
    :func:`healthy`, else 1; without it, 1 when the database could not be read (missing,
    unreachable, unreadable: the report then holds no queue, league or trouble of its own), else
    0, whatever trouble the report lists (a report for people, who read the trouble lines)."""
    if check:
        return 0 if healthy(status, offline=offline) else 1
    return 0 if status["database"].get("ok") else 1


def render_status(status: dict[str, Any]) -> str:
    """The status as text for people (one section per block)."""
    lines: list[str] = []

    def ok(section: dict[str, Any] | None) -> str:
        if section is None:
            return "not checked"
        if section.get("missing"):
            return str(section.get("error"))
        return "ok" if section.get("ok") else f"FAILED ({section.get('error', 'unknown error')})"

    cfg = status["config"]
    db = status["database"]
    lines.append(f"database  {ok(db)}  {cfg['database']}")
    if db.get("ok"):
        lines.append(
            f"          revision {db.get('revision') or 'none (run: amaryllis serve or db upgrade)'}"
            f"{'' if db.get('migrated') else ' (head ' + str(db.get('head')) + ')'}"
        )
    mb = status.get("mailbox")
    lines.append(f"mailbox   {ok(mb)}  {cfg['imap']}")
    if mb and mb.get("ok"):
        lines.append(
            f"          {mb['messages']} messages, {mb['unseen']} unseen in {mb['folder']}, "
            f"IDLE {'yes' if mb['idle'] else 'no'}"
        )
    lines.append(f"smtp      {ok(status.get('smtp'))}  {cfg['smtp']}")
    for relay in status.get("relays") or []:
        state = (
            f"FAILING ({relay['failures']} pass(es), last error {relay['last_error_at']}: "
            f"{(relay['last_error'] or '').splitlines()[0][:200]})"
            if relay["failing"]
            else f"ok (last mail accepted {relay['last_ok_at'] or 'never'})"
        )
        lines.append(f"relay     {relay['relay']}: {state}")
    queues = status.get("queues") or {}
    for name in ("inbound", "outbox"):
        counts = queues.get(name)
        if counts is not None:
            shown = ", ".join(f"{k} {v}" for k, v in counts.items()) or "empty"
            lines.append(f"{name:<9} {shown}")
    leagues = status.get("leagues") or []
    lines.append(f"leagues   {len(leagues)}")
    for lg in leagues:
        nxt = f", next round {utc_z(lg['next_round_at'])}" if lg.get("next_round_at") else ""
        lines.append(
            f"          {lg['name']}: {lg['state']}, {lg['entries']} entries, "
            f"rounds {lg['rounds_done']}/{lg['rounds_total']}{nxt}"
        )
    polls = status.get("mailboxes") or []
    if polls:
        for mbox in polls:
            lines.append(
                f"last poll {utc_z(mbox['last_poll_at']) or 'never'} ({mbox['mailbox']}, "
                f"UIDVALIDITY {mbox['uidvalidity']}, last UID {mbox['last_uid']})"
            )
    else:
        lines.append("last poll never")
    trouble = status.get("trouble") or []
    lines.append(f"trouble   {'none' if not trouble else len(trouble)}")
    for line in trouble:
        lines.append(f"          {line}")
    hb = status.get("serve")
    if hb and hb.get("stale"):
        lines.append(
            f"serve     not running (stale status file from pid {hb.get('pid')}, last seen "
            f"{utc_z(hb.get('last_seen')) or 'never'}: {hb.get('why')})"
        )
    elif hb and not hb.get("running", True):
        lines.append(
            f"serve     {hb.get('state')} (pid {hb.get('pid')}, last seen "
            f"{utc_z(hb.get('last_seen')) or 'never'})"
        )
    elif hb:
        lines.append(
            f"serve     {hb.get('state')} (pid {hb.get('pid')}, "
            f"started {utc_z(hb.get('started_at'))})"
        )
        for name, w in sorted((hb.get("workers") or {}).items()):
            err = f", last error {w['last_error']}" if w.get("last_error") else ""
            lines.append(
                f"          {name}: last run {utc_z(w.get('last_run_at')) or 'never'}{err}"
            )
    elif status.get("serve_elsewhere"):
        other = status["serve_elsewhere"]
        lines.append(
            f"serve     no heartbeat of this database (the data folder's status file is "
            f"pid {other.get('pid')}'s, {other.get('state')}, "
            f"serving {other.get('database')})"
        )
    else:
        lines.append("serve     no heartbeat (not started here)")
    return "\n".join(lines)
