"""Migrations: empty → head → empty on SQLite and PostgreSQL, and no drift between the models
and the migrations (Alembic's ``compare_metadata`` finds nothing after upgrading)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db.models import Base
from app.db.session import downgrade, make_engine, upgrade

MAIL_TABLES = {"inbound_messages", "mailbox_state", "outbox", "sender_counters"}
LEAGUE_TABLES = {"players", "leagues", "entries", "sheet_versions", "rounds", "battles"}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_from_empty_to_head_and_back(db_url: str) -> None:
    assert _tables(db_url) == set()
    upgrade(db_url)
    tables = _tables(db_url)
    assert tables == set(Base.metadata.tables)
    assert MAIL_TABLES | LEAGUE_TABLES <= tables
    downgrade(db_url, "base")
    assert _tables(db_url) == set()
    upgrade(db_url)  # and up again: the downgrade left nothing behind that blocks it
    assert _tables(db_url) == set(Base.metadata.tables)


def test_models_and_migrations_do_not_drift(db_url: str) -> None:
    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()
    assert diff == [], f"models and migrations differ: {diff}"


def test_upgrade_is_idempotent(db_url: str) -> None:
    upgrade(db_url)
    upgrade(db_url)  # a second start migrates nothing and does not fail
    assert _tables(db_url) == set(Base.metadata.tables)
