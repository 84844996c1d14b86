"""Issue 20: a PostgreSQL database created as ``SQL_ASCII`` failed at start with only
``TypeError('cannot use a string pattern on a bytes-like object')``. Now every command that
opens it refuses it with one line naming the fix. Against a real SQL_ASCII database on the local
PostgreSQL, the commands run as processes."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.db.pgutil import ADMIN_URL
from tests.services import skip_or_fail

pytestmark = pytest.mark.postgres


@pytest.fixture
def ascii_db() -> Iterator[tuple[str, str]]:
    """(URL, name) of a fresh database created ``ENCODING 'SQL_ASCII'``; dropped afterwards."""
    name = f"amaryllis_ascii_{uuid.uuid4().hex[:10]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(
                text(
                    f"CREATE DATABASE \"{name}\" ENCODING 'SQL_ASCII' TEMPLATE template0 "
                    "LC_COLLATE 'C' LC_CTYPE 'C'"
                )
            )
    except Exception as exc:
        admin.dispose()
        skip_or_fail(f"PostgreSQL not reachable at {ADMIN_URL}: {exc}")
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False), name
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.mark.parametrize(
    "command",
    [
        ["db", "upgrade"],
        ["serve"],
        ["web", "--port", "0"],
        ["league", "list"],
        ["status", "--offline"],
    ],
)
def test_a_sql_ascii_database_is_refused_with_the_fix(
    command: list[str], ascii_db, tmp_path: Path
) -> None:
    url, name = ascii_db
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        {
            "AMARYLLIS_DATABASE_URL": url,
            "AMARYLLIS_DATA_DIR": str(tmp_path / "data"),
            "AMARYLLIS_WEB_PORT": "0",
            "AMARYLLIS_IMAP_URL": "imap://x:y@127.0.0.1:1/INBOX",
            "AMARYLLIS_SMTP_URL": "smtp://127.0.0.1:1",
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "Traceback" not in said and "TypeError" not in said
    assert f"the PostgreSQL database {name} is encoded SQL_ASCII, not UTF8" in said
    assert f"CREATE DATABASE {name} ENCODING 'UTF8' TEMPLATE template0" in said
    # nothing was created in it (asked through psycopg itself: SQLAlchemy cannot start on it)
    import psycopg

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn:
        row = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert row is not None and row[0] == 0
