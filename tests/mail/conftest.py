"""Fixtures of the mail tests: real servers from ``tests.servers``, a migrated SQLite database per
test (copied from one migrated template), settings pointing at them."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from tests.servers import dovecot, mail_user, pymap_server, smtp_sink  # noqa: F401 - fixtures

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file migrated to head once per session."""
    from app.db.session import upgrade

    path = tmp_path_factory.mktemp("dbtemplate") / "template.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def db_url(tmp_path: Path, migrated_template: Path) -> str:
    """A fresh migrated SQLite database for one test."""
    target = tmp_path / "amaryllis.sqlite3"
    shutil.copy(migrated_template, target)
    return f"sqlite:///{target}"


@pytest.fixture
def factory(db_url: str):
    """A session factory on the test database."""
    from app.db.session import session_factory

    f = session_factory(db_url, migrate=False)
    yield f
    f.kw["bind"].dispose()


def make_settings(db_url: str, imap_url: str = "imap://x:y@127.0.0.1:1/INBOX",
                  smtp_url: str = "smtp://127.0.0.1:1", **overrides: object):
    """Settings for tests: our address ``tourney@localhost``, organizer ``org@example.com`` with
    password ``orgpw``."""
    from app.config import Settings

    values: dict[str, object] = dict(
        database_url=db_url, imap_url=imap_url, smtp_url=smtp_url,
        server_address="tourney@localhost", organizers=["org@example.com"],
        organizer_password="orgpw", data_dir=Path(db_url.split("///", 1)[1]).parent,
    )
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def open_league(factory, name: str = "spring", **kw: object) -> None:
    """Create an open league with a deadline a week after NOW."""
    from app.db.session import transaction
    from app.league.service import create_league

    with transaction(factory) as s:
        create_league(s, name, entry_deadline=NOW + dt.timedelta(days=7), now=NOW, **kw)
