"""Fixtures of the mail tests: real servers from ``tests.servers``, a migrated SQLite database per
test (copied from one migrated template), settings pointing at them."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
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


def make_settings(
    db_url: str,
    imap_url: str = "imap://x:y@127.0.0.1:1/INBOX",
    smtp_url: str = "smtp://127.0.0.1:1",
    **overrides: object,
):
    """Settings for tests: our address ``tourney@localhost``, organizer ``org@example.com`` with
    password ``orgpw``."""
    from app.config import Settings

    values: dict[str, object] = dict(
        database_url=db_url,
        imap_url=imap_url,
        smtp_url=smtp_url,
        server_address="tourney@localhost",
        organizers=["org@example.com"],
        organizer_password="orgpw",
        data_dir=Path(db_url.split("///", 1)[1]).parent
        if "///" in db_url
        else Path(tempfile.mkdtemp()),
    )
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def open_league(factory, name: str = "spring", **kw: object) -> None:
    """Create an open league with a deadline a week after NOW."""
    from app.db.session import transaction
    from app.league.service import create_league

    with transaction(factory) as s:
        create_league(s, name, entry_deadline=NOW + dt.timedelta(days=7), now=NOW, **kw)


@pytest.fixture(scope="session")
def postgres_url():
    """A uniquely named PostgreSQL database for this test session, migrated to head, dropped at the
    end (``$AMARYLLIS_TEST_POSTGRES_URL``; skipped when the server is not reachable, failed in CI)."""
    from app.db.session import upgrade
    from tests.db.pgutil import fresh_postgres

    with fresh_postgres("amaryllis_mail") as url:
        upgrade(url)
        yield url


@pytest.fixture
def pg_factory(postgres_url):
    """A session factory on the session's PostgreSQL database, emptied before the test."""
    from sqlalchemy import text

    from app.db.models import Base
    from app.db.session import session_factory

    f = session_factory(postgres_url, migrate=False)
    with f() as s, s.begin():
        names = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
        s.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    yield f
    f.kw["bind"].dispose()


def empty_config(folder: Path) -> Path:
    """An empty configuration file in ``folder`` (settings then come from the environment only;
    ``AMARYLLIS_CONFIG`` naming a missing file is an error)."""
    path = folder / "empty.toml"
    path.write_text("", encoding="utf-8")
    return path


def entry_key(factory, address: str, league: str | None = None) -> str:
    """The entry key of ``address``'s entry (in ``league``, else its only one): what the
    acceptance reply told the player (``key: XXXX-XXXX``)."""
    from sqlalchemy import select

    from app.db.models import Entry, League, Player

    with factory() as s:
        q = (
            select(Entry.owner_key)
            .join(Player, Player.id == Entry.player_id)
            .join(League, League.id == Entry.league_id)
            .where(Player.address == address)
        )
        if league is not None:
            q = q.where(League.name == league)
        keys = list(s.scalars(q))
    assert len(keys) == 1 and keys[0], (address, league, keys)
    return keys[0]
