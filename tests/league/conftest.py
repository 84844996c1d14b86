"""Fixtures of the league tests: a migrated database (SQLite and PostgreSQL) and settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings, load_settings
from app.db.session import session_factory
from tests.db.pgutil import db_url  # noqa: F401 - fixture
from tests.league.helpers import T0


@pytest.fixture
def factory(db_url: str) -> Iterator[sessionmaker[Session]]:
    """A session factory on a freshly migrated database."""
    f = session_factory(db_url)
    yield f
    f.kw["bind"].dispose()


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:  # type: ignore[no-untyped-def]
    """Settings without any config file: server address ``league@example.net``."""
    monkeypatch.delenv("AMARYLLIS_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return load_settings(
        data_dir=tmp_path, server_address="league@example.net", server_name="Amaryllis League"
    )


@pytest.fixture
def cli(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run ``amaryllis …`` against the test database, the clock at ``T0`` unless ``now`` is
    given. An exception that is not a clean click exit fails the test (no traceback reaches a
    user)."""
    from app.cli import main

    monkeypatch.delenv("AMARYLLIS_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AMARYLLIS_DATABASE_URL", db_url)

    def run(*args: str, now: str = T0.isoformat(), input: str | None = None) -> Result:
        return CliRunner().invoke(
            main, list(args), env={"AMARYLLIS_NOW": now}, input=input, catch_exceptions=False
        )

    return run
