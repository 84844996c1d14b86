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

``collect_status`` returns a JSON-able dict; ``render_status`` prints it for people. ``--check`` makes the
command exit 1 when the database or the mailbox is unreachable (the container HEALTHCHECK).
"""

from __future__ import annotations

import smtplib
from pathlib import Path
from typing import Any

from sqlalchemy import func, inspect, select, text

from app.config import Settings

__all__ = ["collect_status", "render_status"]


def _db_status(url: str) -> tuple[dict[str, Any], Any]:
    from app.db.session import alembic_config, make_engine

    info: dict[str, Any] = {"ok": False}
    engine = None
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
    except Exception as exc:  # noqa: BLE001 - reported, not raised
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
                ok=True, folder=folder,
                messages=int(st.get(b"MESSAGES", 0)), unseen=int(st.get(b"UNSEEN", 0)),
                uidvalidity=int(st.get(b"UIDVALIDITY", 0)),
                idle=b"IDLE" in client.capabilities(),
            )
        finally:
            client.logout()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        info["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0] if str(exc) else repr(exc)
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
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        info["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0] if str(exc) else repr(exc)
    return info


def _counts(session: Any, model: Any) -> dict[str, int]:
    rows = session.execute(select(model.status, func.count()).group_by(model.status)).all()
    return {status: int(n) for status, n in sorted(rows)}


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def collect_status(settings: Settings, *, network: bool = True) -> dict[str, Any]:
    """Gather the status (see the module docstring) as a JSON-able dict with keys ``database``,
    ``mailbox``, ``smtp``, ``queues``, ``leagues``, ``mailboxes`` (last poll per mailbox) and ``serve``
    (the heartbeat or ``None``). ``network=False`` skips the IMAP and SMTP checks. Never raises for an
    unreachable service: each section has ``ok`` and, on failure, ``error``."""
    from sqlalchemy.orm import Session

    from app.db.models import Entry, InboundMessage, League, MailboxState, OutboxMessage, Round
    from app.ops.serve import HEARTBEAT_FILE, Heartbeat, _mask

    out: dict[str, Any] = {
        "config": {"database": _mask(settings.resolved_database_url),
                   "imap": _mask(settings.imap_url), "smtp": _mask(settings.smtp_url),
                   "server_address": settings.server_address},
    }
    db, engine = _db_status(settings.resolved_database_url)
    out["database"] = db
    out["queues"], out["leagues"], out["mailboxes"] = {}, [], []
    if db["ok"] and db.get("revision"):
        try:
            with Session(engine) as session:
                out["queues"] = {"inbound": _counts(session, InboundMessage),
                                 "outbox": _counts(session, OutboxMessage)}
                for league in session.scalars(select(League).order_by(League.id)):
                    entries = session.scalar(select(func.count()).select_from(Entry).where(
                        Entry.league_id == league.id, Entry.status == "active"))
                    rounds = session.execute(select(Round.state, func.count()).where(
                        Round.league_id == league.id).group_by(Round.state)).all()
                    by_state = {s: int(n) for s, n in rounds}
                    out["leagues"].append({
                        "name": league.name, "state": league.state, "entries": int(entries or 0),
                        "rounds_done": by_state.get("done", 0),
                        "rounds_total": sum(by_state.values()),
                        "entry_deadline": _iso(league.entry_deadline),
                        "next_round_at": _iso(league.next_round_at),
                    })
                for mbox in session.scalars(select(MailboxState).order_by(MailboxState.mailbox)):
                    out["mailboxes"].append({"mailbox": mbox.mailbox, "uidvalidity": mbox.uidvalidity,
                                             "last_uid": mbox.last_uid,
                                             "last_poll_at": _iso(mbox.last_poll_at)})
        except Exception as exc:  # noqa: BLE001 - a half-migrated database is reported, not raised
            db["ok"] = False
            db["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    if engine is not None:
        engine.dispose()
    if network:
        out["mailbox"] = _mailbox_status(settings)
        out["smtp"] = _smtp_status(settings)
    out["serve"] = Heartbeat.read(Path(settings.data_dir) / HEARTBEAT_FILE)
    return out


def render_status(status: dict[str, Any]) -> str:
    """The status as text for people (one section per block)."""
    lines: list[str] = []

    def ok(section: dict[str, Any] | None) -> str:
        if section is None:
            return "not checked"
        return "ok" if section.get("ok") else f"FAILED ({section.get('error', 'unknown error')})"

    cfg = status["config"]
    db = status["database"]
    lines.append(f"database  {ok(db)}  {cfg['database']}")
    if db.get("ok"):
        lines.append(f"          revision {db.get('revision') or 'none (run: amaryllis serve or db upgrade)'}"
                     f"{'' if db.get('migrated') else ' (head ' + str(db.get('head')) + ')'}")
    mb = status.get("mailbox")
    lines.append(f"mailbox   {ok(mb)}  {cfg['imap']}")
    if mb and mb.get("ok"):
        lines.append(f"          {mb['messages']} messages, {mb['unseen']} unseen in {mb['folder']}, "
                     f"IDLE {'yes' if mb['idle'] else 'no'}")
    lines.append(f"smtp      {ok(status.get('smtp'))}  {cfg['smtp']}")
    queues = status.get("queues") or {}
    for name in ("inbound", "outbox"):
        counts = queues.get(name)
        if counts is not None:
            shown = ", ".join(f"{k} {v}" for k, v in counts.items()) or "empty"
            lines.append(f"{name:<9} {shown}")
    leagues = status.get("leagues") or []
    lines.append(f"leagues   {len(leagues)}")
    for lg in leagues:
        nxt = f", next round {lg['next_round_at']}" if lg.get("next_round_at") else ""
        lines.append(f"          {lg['name']}: {lg['state']}, {lg['entries']} entries, "
                     f"rounds {lg['rounds_done']}/{lg['rounds_total']}{nxt}")
    polls = status.get("mailboxes") or []
    if polls:
        for mbox in polls:
            lines.append(f"last poll {mbox['last_poll_at'] or 'never'} ({mbox['mailbox']}, "
                         f"UIDVALIDITY {mbox['uidvalidity']}, last UID {mbox['last_uid']})")
    else:
        lines.append("last poll never")
    hb = status.get("serve")
    if hb:
        lines.append(f"serve     {hb.get('state')} (pid {hb.get('pid')}, started {hb.get('started_at')})")
        for name, w in sorted((hb.get("workers") or {}).items()):
            err = f", last error {w['last_error']}" if w.get("last_error") else ""
            lines.append(f"          {name}: last run {w.get('last_run_at', 'never')}{err}")
    else:
        lines.append("serve     no heartbeat (not started here)")
    return "\n".join(lines)
