"""Issue 20: ``amaryllis status`` on a database that does not exist, in a data folder shared with
a ``serve`` of another database. It printed ``database FAILED`` next to "trouble none", showed
the other database's ``serve`` pid as its own, and exited 0. Run as processes."""

from __future__ import annotations

import json
import signal
import uuid
from pathlib import Path

import pytest

from app.ops.embedded import EmbeddedMailStack
from tests.ops.test_serve import _env, _start, _wait_running, stack  # noqa: F401 - fixture
from tests.ops.test_status import _status


def _missing(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'elsewhere' / 'nothing.sqlite3'}"
    from sqlalchemy.engine import make_url

    from tests.db.pgutil import ADMIN_URL

    missing = make_url(ADMIN_URL).set(database=f"amaryllis_missing_{uuid.uuid4().hex[:8]}")
    return missing.render_as_string(hide_password=False)


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_status_of_a_missing_database_is_trouble_and_not_the_other_serve(
    kind: str, tmp_path: Path, stack: EmbeddedMailStack
) -> None:
    env = _env(tmp_path, stack, f"sqlite:///{tmp_path / 'data' / 'db.sqlite3'}")
    proc = _start(env, tmp_path)
    try:
        _wait_running(env, proc)
        # the serving database itself: healthy, its serve counted
        own = _status(env, tmp_path, "--check")
        assert own.returncode == 0, own.stdout + own.stderr
        assert f"serve     running (pid {proc.pid}" in own.stdout and "trouble   none" in own.stdout

        other = dict(env, AMARYLLIS_DATABASE_URL=_missing(kind, tmp_path))
        plain = _status(other, tmp_path)
        assert plain.returncode == 1, plain.stdout + plain.stderr  # the database could not be read
        lines = plain.stdout.splitlines()
        assert "trouble   none" not in plain.stdout
        trouble = next(i for i, line in enumerate(lines) if line.startswith("trouble"))
        assert lines[trouble] == "trouble   1"
        assert lines[trouble + 1].startswith("          database: ")
        assert f"pid {proc.pid}" not in plain.stdout.replace(f"is pid {proc.pid}'s", "")
        serve_line = next(line for line in lines if line.startswith("serve"))
        assert serve_line.startswith(
            f"serve     no heartbeat of this database (the data folder's "
            f"status file is pid {proc.pid}'s, running, serving sqlite:"
        )
        assert _status(other, tmp_path, "--check").returncode == 1
        as_json = json.loads(_status(other, tmp_path, "--json").stdout)
        assert as_json["serve"] is None and as_json["serve_elsewhere"]["pid"] == proc.pid
        assert as_json["trouble"][0].startswith("database: ") and not as_json["database"]["ok"]
        # offline too (no mailbox, no relay checked): the database alone is the trouble
        assert _status(other, tmp_path, "--offline", "--check").returncode == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0
    if kind == "sqlite":
        assert not (tmp_path / "elsewhere").exists()  # status created nothing


def test_a_failed_relay_check_is_trouble(tmp_path: Path, stack: EmbeddedMailStack) -> None:
    """A check that failed (here the relay: nothing listens at its port) is listed as trouble and
    fails ``--check``; the plain report still exits 0, since the database was read."""
    env = _env(tmp_path, stack, f"sqlite:///{tmp_path / 'data' / 'db.sqlite3'}")
    from app.db.session import upgrade

    upgrade(env["AMARYLLIS_DATABASE_URL"])
    env["AMARYLLIS_SMTP_URL"] = "smtp://127.0.0.1:1"
    plain = _status(env, tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "trouble   1\n          smtp: " in plain.stdout
    assert _status(env, tmp_path, "--check").returncode == 1
    assert _status(env, tmp_path, "--check", "--offline").returncode == 0
