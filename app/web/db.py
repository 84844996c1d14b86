"""The web view's database access: its own engine, read-only at the database level, and sessions
that refuse to flush.

* SQLite: every connection runs ``PRAGMA query_only=ON`` (after the WAL and foreign-key pragmas
  of :func:`app.db.session.make_engine`);
* PostgreSQL: every connection starts with ``default_transaction_read_only=on``;
* and each :class:`~sqlalchemy.orm.Session` made here raises on any flush, so a bug that adds or
  changes an object fails loudly instead of writing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from app.db.session import make_engine, refuse_non_utf8


class ReadOnlyError(RuntimeError):
    """Something tried to write through the web view's session."""


def read_only_engine(url: str) -> Engine:
    """An engine on ``url`` whose connections cannot write (see the module docstring)."""
    if url.startswith("sqlite"):
        engine = make_engine(url, read_only=True)

        @event.listens_for(engine, "connect")
        def _query_only(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA query_only=ON")
            cur.close()

        return engine
    connect_args: dict[str, Any] = {}
    if url.startswith("postgresql"):
        connect_args["options"] = "-c default_transaction_read_only=on"
    engine = create_engine(
        url, pool_pre_ping=True, pool_size=5, max_overflow=10, connect_args=connect_args
    )
    if engine.dialect.name == "postgresql":
        refuse_non_utf8(engine)  # a database not in UTF8 is refused with the fix, as everywhere
    return engine


def _refuse_flush(session: Session, _context: Any, _instances: Any) -> None:
    if session.new or session.dirty or session.deleted:
        raise ReadOnlyError("the web view never writes to the database")


def read_sessions(engine: Engine) -> sessionmaker[Session]:
    """A session factory over ``engine`` whose sessions raise :class:`ReadOnlyError` on a flush
    with changes (autoflush is off)."""
    factory = sessionmaker(engine, autoflush=False, expire_on_commit=False)
    event.listen(factory, "before_flush", _refuse_flush)
    return factory


@contextmanager
def reading(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session for one request: its transaction is always rolled back."""
    with factory() as session:
        try:
            yield session
        finally:
            session.rollback()
