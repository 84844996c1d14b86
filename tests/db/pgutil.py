"""Database fixtures for the storage tests: SQLite files and a throw-away PostgreSQL database.

PostgreSQL is ``$AMARYLLIS_TEST_POSTGRES_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``);
each test session creates a uniquely named database on that server and drops it afterwards, so
parallel suites never collide. A test needing a fresh schema gets a fresh database
(:func:`fresh_postgres`).
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.services import skip_or_fail

ADMIN_URL = os.environ.get(
    "AMARYLLIS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@contextmanager
def fresh_postgres(prefix: str = "amaryllis_league") -> Iterator[str]:
    """Create an empty PostgreSQL database with a unique name; yield its URL; drop it."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:  # no server: skip (fail in CI), saying why
        admin.dispose()
        skip_or_fail(f"PostgreSQL not reachable at {ADMIN_URL}: {exc}")
    url = make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        # connections a test left to the garbage collector go back now, while their database
        # exists; reset after the forced drop below, they would log an ERROR (and fail the test)
        gc.collect()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """An empty database URL, once on SQLite (a file in ``tmp_path``) and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
    else:
        with fresh_postgres() as url:
            yield url
