"""Fixtures of the league tests: a migrated database (SQLite and PostgreSQL) and settings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings, load_settings
from app.db.session import session_factory
from tests.db.pgutil import db_url  # noqa: F401 - fixture


@pytest.fixture
def factory(db_url: str) -> Iterator[sessionmaker[Session]]:  # noqa: F811
    """A session factory on a freshly migrated database."""
    f = session_factory(db_url)
    yield f
    f.kw["bind"].dispose()


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:  # type: ignore[no-untyped-def]
    """Settings without any config file: server address ``league@example.net``."""
    monkeypatch.delenv("AMARYLLIS_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return load_settings(data_dir=tmp_path, server_address="league@example.net",
                         server_name="Amaryllis League")
