"""Two ``amaryllis serve`` processes (real subprocesses, each with its own data folder) on one
PostgreSQL database and one mailbox (issue 9.4): inbound mail and outbox rows are claimed
atomically, so every mail is processed once and every reply sent once; when one of them is killed
with SIGKILL halfway, the other finishes its work (the dead sender's leases are taken over), and
a reply in flight at the kill is resent with the same Message-ID."""

from __future__ import annotations

import datetime as dt
import json
import signal
import smtplib
import subprocess
import sys
import time
from collections import defaultdict

import pytest
from sqlalchemy import func, select

from app.db.models import Entry, InboundMessage, OutboxMessage, SenderCounter
from app.db.session import transaction
from app.league import service as svc
from app.ops.embedded import EmbeddedMailStack
from tests.faults.helpers import ROOT, crash_loop_module

MAILS = 60


@pytest.fixture
def pg(db):  # type: ignore[no-untyped-def]
    url, factory = db
    if not url.startswith("postgresql"):
        pytest.skip("two serve processes share a PostgreSQL database (docs/deploy.md)")
    return url, factory


@pytest.mark.parametrize("kill_one", [False, True], ids=["both-live", "one-killed"])
def test_two_serves_on_one_postgres_process_each_mail_once(pg, tmp_path, kill_one) -> None:
    url, factory = pg
    h = crash_loop_module()
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        svc.create_league(s, "spring", entry_deadline=now + dt.timedelta(days=1), now=now)
    with EmbeddedMailStack(tmp_path / "sink") as stack:
        procs = []
        for name in ("a", "b"):
            env = h._env(url, tmp_path / name, stack)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "app.cli", "serve"],
                    env=env,
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=open(tmp_path / f"{name}.log", "wb"),
                )
            )
        try:
            for name, proc in zip(("a", "b"), procs, strict=True):
                h._wait_running(tmp_path / name, proc, 60)
            with smtplib.SMTP("127.0.0.1", stack.smtp_port, timeout=30) as smtp:
                for n in range(MAILS):
                    smtp.send_message(h._entry(n, stack.server_address))
            if kill_one:
                stack.wait_for_sink(MAILS // 3, timeout=120)
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait(30)
            expected = {f"p{n}@example.org" for n in range(MAILS)}
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                if {m.recipient for m in stack.sink} >= expected and h._work_left(factory) == 0:
                    break
                time.sleep(0.2)
            time.sleep(1.0)  # a duplicate would show up now
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(30)
        sink = stack.sink
    ids: dict[str, list[str]] = defaultdict(list)
    for m in sink:
        ids[m.recipient].append(str(m.message["Message-ID"]))
    lost = len(expected - set(ids))
    duplicates = sum(len(v) - 1 for v in ids.values())
    assert lost == 0
    assert all(len(set(v)) == 1 for v in ids.values())  # copies share their Message-ID
    # both live: exactly once; one killed: at most the one reply in flight at the kill again
    assert duplicates == 0 if not kill_one else duplicates <= 1
    with factory() as s:
        inbound = dict(
            s.execute(
                select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
            ).all()
        )
        assert inbound == {"done": MAILS}
        assert s.scalar(select(func.count()).select_from(Entry)) == MAILS
        outbox = dict(
            s.execute(
                select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
            ).all()
        )
        assert outbox == {"sent": MAILS}
        counts = list(
            s.scalars(select(SenderCounter.count).where(SenderCounter.purpose == "reply"))
        )
        assert counts == [1] * MAILS  # each mail counted once against its sender's quota
    if not kill_one:
        for name in ("a", "b"):  # both stopped cleanly on SIGTERM
            beat = json.loads((tmp_path / name / "serve-status.json").read_text())
            assert beat["state"] == "stopped"
