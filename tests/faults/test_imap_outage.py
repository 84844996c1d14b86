"""Dovecot stopped under a running ``amaryllis serve`` (issue 9): a real Dovecot holds 260 entry
mails (more than one FETCH batch); ``serve`` (a real subprocess) starts on them, and as soon as the
first batch is stored Dovecot is killed (SIGKILL to the master and its children), left down while
20 more mails land in its Maildir (an MDA delivering while IMAP is down), and started again on the
same port and mail store; 20 more mails then arrive over LMTP, on SQLite and PostgreSQL.

Checked: ``serve`` keeps running (the same process throughout, no crash loop: the poller's failed
units back off, 1 s, 2 s, 4 s ...), logs the outage, answers the mails it had stored while IMAP
is down, and no mail is marked ``\\Seen`` on the server before it is stored in the database.
Counts: 300 mails, 300 replies, 0 lost, 0 duplicates, 300 inbound rows ``done``, 300 entries,
300 mails ``\\Seen``."""

from __future__ import annotations

import datetime as dt
import email
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import func, select

from app.db.models import Entry, InboundMessage, OutboxMessage
from app.db.session import transaction
from app.league import service as svc
from tests.faults.helpers import ROOT, WAIT, crash_loop_module, until
from tests.servers import Dovecot, SmtpSink, dovecot_available, imap_append, imap_list
from tests.services import skip_or_fail

FIRST, WHILE_DOWN, AFTER = 260, 20, 20  # FETCH_BATCH is 250: the first pass takes two batches


def _events(log: Path) -> list[dict]:
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def _maildir_seen(folder: Path) -> dict[str, bool]:
    """Message-ID -> has the ``S`` (``\\Seen``) flag, read from the Maildir files of a stopped
    Dovecot (``cur/name:2,FLAGS``; ``new/`` holds mail no client has looked at)."""
    out = {}
    for sub in ("new", "cur"):
        for path in (folder / sub).iterdir():
            with open(path, "rb") as fh:
                mid = email.message_from_binary_file(fh)["Message-ID"]
            flags = path.name.rsplit(":2,", 1)[1] if ":2," in path.name else ""
            out[str(mid)] = "S" in flags
    return out


def test_dovecot_killed_and_restarted_under_serve_loses_and_repeats_nothing(db, tmp_path) -> None:
    reason = dovecot_available()
    if reason:
        skip_or_fail(reason)
    url, factory = db
    h = crash_loop_module()
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        svc.create_league(s, "spring", entry_deadline=now + dt.timedelta(days=1), now=now)
    total = FIRST + WHILE_DOWN + AFTER
    expected = {f"p{n}@example.org" for n in range(total)}
    log = tmp_path / "serve.log"
    with Dovecot() as dc, SmtpSink() as sink:
        user = dc.add_user()
        imap_append(
            user.imap_url, [h._entry(n, "tourney@localhost").as_bytes() for n in range(FIRST)]
        )
        env = h._env(
            url, tmp_path / "data", SimpleNamespace(imap_url=user.imap_url, smtp_url=sink.url)
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=open(log, "wb"),
        )
        try:
            h._wait_running(tmp_path / "data", proc, WAIT)

            def stored() -> int:
                with factory() as s:
                    return s.scalar(select(func.count()).select_from(InboundMessage)) or 0

            until(lambda: stored() > 0, "the first stored batch", proc, log)
            dc.kill()  # mid-run: between storing a batch and marking it, or in the next batch
            seen = _maildir_seen(dc.maildir(user))  # frozen now: nobody can flag anything
            with factory() as s:
                keys = set(s.scalars(select(InboundMessage.message_key)))
            assert len(seen) == FIRST
            marked_unstored = [mid for mid, flag in seen.items() if flag and mid not in keys]
            assert marked_unstored == []  # \Seen only after the row was committed

            def poller_failures() -> list[dict]:
                return [
                    e
                    for e in _events(log)
                    if e.get("event") == "unit_failed" and e.get("worker") == "poller"
                ]

            until(
                lambda: len(poller_failures()) >= 1, "the poll cut by the kill to fail", proc, log
            )
            at_kill = stored()  # what the cut poll had stored (a batch fetched before the kill too)
            for n in range(FIRST, FIRST + WHILE_DOWN):  # an MDA delivers while IMAP is down
                folder = dc.maildir(user)
                tmp = folder / "tmp" / f"{int(time.time())}.down{n}.localhost"
                tmp.write_bytes(h._entry(n, "tourney@localhost").as_bytes())
                shutil.chown(tmp, "dovecot", "dovecot")
                os.rename(tmp, folder / "new" / tmp.name)
            until(
                lambda: len(poller_failures()) >= 3,
                "three failed polls while IMAP is down",
                proc,
                log,
            )
            # the mails stored before the kill are answered without IMAP
            until(
                lambda: len({m.rcpt_tos[0] for m in sink.messages}) >= at_kill,
                f"the replies to the {at_kill} mails stored before the kill",
                proc,
                log,
            )
            answered_down = {m.rcpt_tos[0] for m in sink.messages}
            assert stored() == at_kill  # nothing stored while the server was away
            dc.start()  # same ports, same mail store
            for n in range(FIRST + WHILE_DOWN, total):
                dc.lmtp_deliver(h._entry(n, "tourney@localhost").as_bytes(), user.address)
            until(
                lambda: (
                    {m.rcpt_tos[0] for m in sink.messages} >= expected
                    and h._work_left(factory) == 0
                ),
                f"replies to all {total} mails",
                proc,
                log,
            )
            time.sleep(1.0)  # a duplicate would show up now
            assert proc.poll() is None  # one serve process through the whole outage
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        assert proc.returncode == 0, log.read_text(errors="replace")[-3000:]
        on_server = imap_list(user.imap_url)
        got = sink.messages
    events = _events(log)
    failures = [
        e for e in events if e.get("event") == "unit_failed" and e.get("worker") == "poller"
    ]
    assert [e["retry_in_s"] for e in failures[:3]] == [1.0, 2.0, 4.0]  # backs off, no tight loop
    assert any("ConnectionRefused" in e["error"] for e in failures)  # the outage, logged
    assert [e["event"] for e in events].count("serve_running") == 1  # never restarted
    assert len(answered_down) >= at_kill > 0
    ids: dict[str, list[str]] = defaultdict(list)
    for m in got:
        ids[m.rcpt_tos[0]].append(str(m.parsed()["Message-ID"]))
    assert set(ids) == expected  # 0 lost, nothing to anyone else
    assert sum(len(v) - 1 for v in ids.values()) == 0  # 0 duplicates
    assert len(got) == total
    assert len(on_server) == total and all(b"\\Seen" in flags for _, flags, _ in on_server)
    with factory() as s:
        inbound = dict(
            s.execute(
                select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
            ).all()
        )
        assert inbound == {"done": total}
        assert s.scalar(select(func.count()).select_from(Entry)) == total
        outbox = dict(
            s.execute(
                select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
            ).all()
        )
        assert outbox == {"sent": total}
