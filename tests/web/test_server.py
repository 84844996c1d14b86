"""The web view as a process: inside ``amaryllis serve`` (the hook in ``app.ops.serve``) and
alone as ``amaryllis web``; both answer on 127.0.0.1 and stop cleanly on SIGTERM (exit 0), and
``web`` refuses a database that is not migrated (it never writes)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.db.session import session_factory
from app.ops.embedded import EmbeddedMailStack


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    (tmp_path / "empty.toml").write_text("")
    env.update(
        {
            "AMARYLLIS_CONFIG": str(tmp_path / "empty.toml"),
            "AMARYLLIS_DATA_DIR": str(tmp_path / "data"),
            "AMARYLLIS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            **extra,
        }
    )
    return env


def _wait_http(url: str, proc: subprocess.Popen[str], tries: int = 400) -> httpx.Response:
    for _ in range(tries):
        assert proc.poll() is None, proc.communicate()
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            time.sleep(0.05)
    raise AssertionError(f"{url} never answered")


def test_serve_runs_the_web_view_and_stops_it_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    with EmbeddedMailStack(tmp_path / "sink") as stack:
        env = _env(
            tmp_path,
            AMARYLLIS_IMAP_URL=stack.imap_url,
            AMARYLLIS_SMTP_URL=stack.smtp_url,
            AMARYLLIS_WEB_PORT=str(port),
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            page = _wait_http(f"http://127.0.0.1:{port}/?lang=en", proc)
            assert page.status_code == 200 and "Leagues" in page.text
            assert httpx.get(f"http://127.0.0.1:{port}/index.json").json()["leagues"] == []
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-2000:]
    events = [json.loads(line).get("event", "") for line in err.splitlines()]
    assert any("web view listening" in e for e in events)
    assert "web server stopped" in events and events[-1] == "serve_stopped"
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=2)


def test_serve_with_web_port_zero_runs_no_web_view(tmp_path: Path) -> None:
    import threading

    from app.config import load_settings
    from app.web.server import web_workers

    settings = load_settings(database_url=f"sqlite:///{tmp_path / 'x.sqlite3'}", web_port=0)
    assert web_workers(settings, threading.Event()) == []


def test_serve_refuses_a_web_port_it_cannot_bind(tmp_path: Path) -> None:
    import threading

    from app.config import load_settings
    from app.web.server import web_workers

    with socket.socket() as taken:  # a listener without SO_REUSEPORT: the port cannot be shared
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = load_settings(database_url=f"sqlite:///{tmp_path / 'x.sqlite3'}", web_port=port)
        with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{port}"):
            web_workers(settings, threading.Event())


def test_a_second_view_cannot_take_the_port_of_a_running_one_by_default(tmp_path: Path) -> None:
    """Two views (on different databases, say) must not share a port and answer at random:
    without ``web_reuse_port`` the second bind fails; with it on both sides, it succeeds."""
    import threading

    from app.config import load_settings
    from app.web.server import bind, web_workers

    first = bind("127.0.0.1", 0)
    try:
        port = first.getsockname()[1]
        with pytest.raises(OSError):
            bind("127.0.0.1", port)
        settings = load_settings(database_url=f"sqlite:///{tmp_path / 'y.sqlite3'}", web_port=port)
        with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{port}"):
            web_workers(settings, threading.Event())
    finally:
        first.close()
    shared = bind("127.0.0.1", 0, reuse_port=True)
    try:
        bind("127.0.0.1", shared.getsockname()[1], reuse_port=True).close()
    finally:
        shared.close()


def test_amaryllis_web_serves_and_stops(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session_factory(env["AMARYLLIS_DATABASE_URL"]).kw["bind"].dispose()  # migrated
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "web", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_http(f"http://127.0.0.1:{port}/rules/amaryllis", proc).status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"http://127.0.0.1:{port}/" in out


def test_amaryllis_web_refuses_an_unmigrated_database(tmp_path: Path) -> None:
    env = _env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "web", "--port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "amaryllis db upgrade" in done.stderr and "Traceback" not in done.stderr
