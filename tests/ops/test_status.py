"""``amaryllis status`` after a crash and before any database: bugs found by the user test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.ops.embedded import EmbeddedMailStack
from tests.ops.test_serve import _env, _start, _wait_running, stack  # noqa: F401 - fixture


def _status(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "status", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_status_after_kill_9_says_not_running_and_check_fails(
    tmp_path: Path, stack: EmbeddedMailStack
) -> None:
    env = _env(tmp_path, stack, f"sqlite:///{tmp_path / 'data' / 'db.sqlite3'}")
    proc = _start(env, tmp_path)
    try:
        _wait_running(env, proc)
        alive = _status(env, tmp_path, "--check")
        assert alive.returncode == 0, alive.stdout + alive.stderr
        assert f"serve     running (pid {proc.pid}" in alive.stdout
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=20)
    beat = json.loads((tmp_path / "data" / "serve-status.json").read_text())
    assert beat["state"] == "running"  # what the crash leaves behind
    dead = _status(env, tmp_path, "--check")
    assert dead.returncode == 1
    assert f"not running (stale status file from pid {proc.pid}, last seen 20" in dead.stdout
    as_json = json.loads(_status(env, tmp_path, "--json").stdout)
    assert as_json["serve"]["stale"] is True and as_json["serve"]["running"] is False


def test_a_live_pid_of_another_program_or_an_old_heartbeat_is_not_serve(tmp_path: Path) -> None:
    from app.ops.status import serve_liveness

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        path = tmp_path / "serve-status.json"
        path.write_text(json.dumps({"pid": other.pid, "state": "running"}))
        verdict = serve_liveness(json.loads(path.read_text()), path)
        assert verdict["stale"] and "another program" in verdict["why"]
        mine = {"pid": os.getpid(), "state": "running"}
        assert serve_liveness(mine, path)["running"]
        old = time.time() - 3600
        os.utime(path, (old, old))
        verdict = serve_liveness(mine, path)
        assert verdict["stale"] and "no heartbeat" in verdict["why"]
        stopped = serve_liveness({"pid": other.pid, "state": "stopped"}, path)
        assert not stopped["running"] and not stopped["stale"]
    finally:
        other.kill()
        other.wait()


def test_status_does_not_create_the_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "nothing" / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        {"AMARYLLIS_DATA_DIR": str(tmp_path / "data"), "AMARYLLIS_DATABASE_URL": f"sqlite:///{db}"}
    )
    done = _status(env, tmp_path, "--offline")
    assert done.returncode == 1, done.stderr  # the database could not be read (issue 20)
    assert "no database yet" in done.stdout and "trouble   1" in done.stdout
    assert not db.exists() and not db.parent.exists()
    assert _status(env, tmp_path, "--offline", "--check").returncode == 1
    assert not db.exists()


@pytest.mark.parametrize("after", ["serve_starting", "database_migrated"])
def test_sigterm_during_start_up_exits_0(
    tmp_path: Path, stack: EmbeddedMailStack, after: str
) -> None:
    """A stop request while serve starts (as soon as it logs ``after``: before the migrations, or
    before the workers) ends it cleanly with exit code 0 and no worker runs."""
    env = _env(tmp_path, stack, f"sqlite:///{tmp_path / 'data' / 'db.sqlite3'}")
    proc = _start(env, tmp_path)
    assert proc.stderr is not None
    seen = []
    while not seen or json.loads(seen[-1])["event"] != after:
        line = proc.stderr.readline()
        assert line, seen
        seen.append(line)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    events = [json.loads(line)["event"] for line in "".join(seen).splitlines() + err.splitlines()]
    assert "stop_requested" in events and events[-1] == "serve_stopped"
    if "serve_running" in events:  # the request came after the last start-up check: a normal stop
        assert events.index("stop_requested") > events.index("database_migrated")


def test_every_time_status_prints_is_utc_to_the_second_with_z(tmp_path: Path) -> None:
    import datetime as dt
    import re

    from app.db.models import MailboxState
    from app.db.session import session_factory, transaction
    from app.league import service

    db = tmp_path / "data" / "db.sqlite3"
    db.parent.mkdir()
    factory = session_factory(f"sqlite:///{db}")
    now = dt.datetime(2026, 11, 29, 15, 6, 45, 835970, tzinfo=dt.timezone.utc)
    with transaction(factory) as s:
        league = service.create_league(
            s, "spring", entry_deadline=now + dt.timedelta(days=1), now=now
        )
        league.next_round_at = now + dt.timedelta(hours=2)
        s.add(MailboxState(mailbox="INBOX", uidvalidity=7, last_uid=3, last_poll_at=now))
    factory.kw["bind"].dispose()
    # a live process whose command line names the server stands in for serve
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "app.cli"])
    try:
        beat = {
            "pid": server.pid,
            "state": "running",
            "started_at": now.isoformat(),
            "workers": {"poller": {"last_run_at": "2026-11-29T15:06:45.835970+00:00"}},
        }
        (tmp_path / "data" / "serve-status.json").write_text(json.dumps(beat))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
        env.update(
            {
                "AMARYLLIS_DATA_DIR": str(tmp_path / "data"),
                "AMARYLLIS_DATABASE_URL": f"sqlite:///{db}",
            }
        )
        out = _status(env, tmp_path, "--offline")
    finally:
        server.kill()
        server.wait()
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "last poll 2026-11-29T15:06:45Z (INBOX" in text
    assert "next round 2026-11-29T17:06:45Z" in text
    assert "started 2026-11-29T15:06:45Z" in text and "last run 2026-11-29T15:06:45Z" in text
    stamps = re.findall(r"\d{4}-\d\d-\d\dT[0-9:.+\-]+Z?", text)
    assert stamps and all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t) for t in stamps), (
        stamps
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_but_not_yet_reaped_process_is_gone_not_another_program(tmp_path: Path) -> None:
    from app.ops.status import serve_liveness

    victim = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "--help"],
        stdout=subprocess.DEVNULL,
        stdin=subprocess.PIPE,
    )
    try:
        os.kill(victim.pid, signal.SIGKILL)
        stat = Path(f"/proc/{victim.pid}/stat")
        deadline = time.monotonic() + 120  # a generous wait for a condition, not a timing
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
            if time.monotonic() > deadline:
                pytest.fail(f"pid {victim.pid} never became a zombie after SIGKILL")
            time.sleep(0.01)
        os.kill(victim.pid, 0)  # the pid still answers: only /proc tells it is dead
        path = tmp_path / "serve-status.json"
        path.write_text(json.dumps({"pid": victim.pid, "state": "running"}))
        verdict = serve_liveness(json.loads(path.read_text()), path)
        assert verdict["stale"] and verdict["why"] == "the process is gone", verdict
    finally:
        victim.wait()
    verdict = serve_liveness({"pid": victim.pid, "state": "running"}, path)
    assert verdict["why"] == "the process is gone"
