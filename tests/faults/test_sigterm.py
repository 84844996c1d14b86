"""SIGTERM ends ``amaryllis serve`` promptly in every state (issue 9.6), with nothing half done: a
frozen IMAP server (it never greets), a relay frozen inside an SMTP transaction, and a long outbox
pass. No duration is asserted (issue 9.8): the socket timeouts are set to an hour, so ``serve``
can only exit within the test's bound because the stop cut its connections; the outbox rows are
then counted (sent or queued again, none left ``sending``, none charged for the cut)."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import func, select

from app.db.models import OutboxMessage
from app.db.session import transaction
from app.mail.compose import build_message
from app.mail.outbox import enqueue
from tests.faults.helpers import ROOT, crash_loop_module
from tests.servers import FaultySink, FrozenServer


def _serve(url: str, data: Path, imap_url: str, smtp_url: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        AMARYLLIS_DATABASE_URL=url,
        AMARYLLIS_DATA_DIR=str(data),
        AMARYLLIS_IMAP_URL=imap_url,
        AMARYLLIS_SMTP_URL=smtp_url,
        AMARYLLIS_WEB_PORT="0",
        AMARYLLIS_IMAP_TIMEOUT="3600",
        AMARYLLIS_SMTP_TIMEOUT="3600",
        AMARYLLIS_SEND_INTERVAL="0.2",
        AMARYLLIS_SERVER_ADDRESS="tourney@localhost",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _running(data: Path, proc: subprocess.Popen[str]) -> None:
    if not crash_loop_module()._wait_running(data, proc, 60):
        if proc.poll() is None:
            proc.kill()
        raise AssertionError(f"serve did not report running: {proc.communicate()[1][-3000:]}")


def _stop(proc: subprocess.Popen[str]) -> list[str]:
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)  # an hour-long socket timeout would blow this bound
    assert proc.returncode == 0, err[-3000:]
    events = [json.loads(line)["event"] for line in err.splitlines() if line.startswith("{")]
    assert "BrokenPipe" not in err
    return events


def _queue(factory, n: int) -> None:
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        for i in range(n):
            enqueue(
                s,
                dedupe_key=f"t:{i}",
                message=build_message(
                    sender="tourney@localhost",
                    to=f"p{i}@example.org",
                    subject="Re",
                    text="x",
                    now=now,
                ),
            )


def test_sigterm_with_a_frozen_imap_server_and_a_frozen_relay(db, tmp_path) -> None:
    url, factory = db
    _queue(factory, 3)
    with FrozenServer("silent") as imap, FrozenServer("smtp") as relay:
        proc = _serve(url, tmp_path, f"imap://u:p@127.0.0.1:{imap.port}/INBOX", relay.url)
        _running(tmp_path, proc)
        for _ in range(3000):  # the poller and the sender are both blocked on their servers
            if imap.accepted >= 1 and relay.accepted >= 1:
                break
            time.sleep(0.02)
        time.sleep(0.5)
        events = _stop(proc)
    assert "stop_cutting_connections" in events and events[-1] == "serve_stopped"
    with factory() as s:
        rows = s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        assert [r.status for r in rows] == ["queued"] * 3  # the one in flight went back
        assert [r.attempts for r in rows] == [0, 0, 0]  # the relay never saw a mail's content


def test_sigterm_during_a_long_outbox_pass_stops_between_two_mails(db, tmp_path) -> None:
    url, factory = db
    _queue(factory, 2000)
    with FaultySink() as sink:
        proc = _serve(url, tmp_path, "imap://u:p@127.0.0.1:9/INBOX", sink.url)
        _running(tmp_path, proc)
        sink.wait_for(20, timeout=120)
        _stop(proc)
        received = len(sink.messages)
    with factory() as s:
        counts = dict(
            s.execute(
                select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
            ).all()
        )
    assert counts.get("sending", 0) == 0
    assert counts["sent"] == received and counts["sent"] < 2000  # stopped inside the pass
    assert counts["sent"] + counts["queued"] == 2000
