"""Fixtures of the fault tests: a fresh migrated database per test on SQLite and on PostgreSQL
(``db``: ``(url, factory)``), and the settings helper of the mail tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tests.db.pgutil import fresh_postgres
from tests.servers import dovecot, mail_user, smtp_sink  # noqa: F401 - fixtures


@pytest.fixture(params=["sqlite", "postgres"])
def db(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, sessionmaker[Session]]]:
    """``(url, factory)`` of a fresh database migrated to head, SQLite or PostgreSQL."""
    from app.db.session import session_factory

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'amaryllis.sqlite3'}"
        factory = session_factory(url)
        yield url, factory
        factory.kw["bind"].dispose()
    else:
        with fresh_postgres("amaryllis_faults") as url:
            factory = session_factory(url)
            yield url, factory
            factory.kw["bind"].dispose()
