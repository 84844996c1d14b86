"""Operators see trouble (issue 9.7): a relay that answers 451 to every mail is shown FAILING by
``amaryllis status`` (the real CLI) with its last error, ``status --check`` exits 1 on it and on
failed outbox rows, and the organizer notices are in ``data_dir/alerts.log`` although the relay
cannot deliver them; once the relay works and the failed row is requeued, ``--check`` exits 0."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from app.db.session import transaction
from app.mail.compose import build_message
from app.mail.outbox import enqueue
from app.mail.send import backoff, requeue, send_once
from tests.mail.conftest import make_settings
from tests.servers import FaultySink

ROOT = Path(__file__).resolve().parents[2]


def status(url: str, data: Path, smtp_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        AMARYLLIS_DATABASE_URL=url, AMARYLLIS_DATA_DIR=str(data), AMARYLLIS_SMTP_URL=smtp_url
    )
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "status", "--offline", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_failing_relay_and_failed_rows_fail_the_check(db, tmp_path, expect_error_log) -> None:
    url, factory = db
    now = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=1)
    with transaction(factory) as s:
        for i in range(3):
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
    with FaultySink() as sink:
        settings = make_settings(url, smtp_url=sink.url, data_dir=tmp_path)
        sink.fail_next("451 4.3.0 mailbox busy", count=3 * 3)
        for k in range(3):  # three passes in which every mail gets 451
            report = send_once(settings, factory, now=now + k * backoff(5))
            assert len(report.retry) == 3 and report.sent == []
        shown = status(url, tmp_path, sink.url)
        assert shown.returncode == 0, shown.stderr
        assert f"relay     127.0.0.1:{sink.port}: FAILING (3 pass(es)" in shown.stdout
        assert "451" in shown.stdout
        assert status(url, tmp_path, sink.url, "--check").returncode == 1
        alerts = [json.loads(line) for line in (tmp_path / "alerts.log").read_text().splitlines()]
        assert [a["key"] for a in alerts] == [f"relay:127.0.0.1:{sink.port}"]

        sink.fail_next("550 5.1.1 no such user")  # one row fails for good, two go out
        report = send_once(settings, factory, now=now + dt.timedelta(days=1))
        assert len(report.failed) == 1 and len(report.sent) == 3  # 2 replies + the notice digest
        shown = status(url, tmp_path, sink.url, "--check")
        assert shown.returncode == 1 and "outbox: 1 failed row(s)" in shown.stdout
        assert f"127.0.0.1:{sink.port}: ok" in shown.stdout  # the relay works again
        alerts = [json.loads(line) for line in (tmp_path / "alerts.log").read_text().splitlines()]
        assert [a["key"].split(":")[1] for a in alerts[1:]] == ["failed"]  # the notice, kept

        assert requeue(factory, report.failed) == 1
        assert len(send_once(settings, factory, now=now + dt.timedelta(days=2)).sent) >= 1
        assert status(url, tmp_path, sink.url, "--check").returncode == 0
