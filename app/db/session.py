"""Engine and session helpers, and self-migration on start."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.paths import MIGRATIONS

#: the top of the checkout (in an installed wheel: the folder holding the ``app`` package)
ROOT = Path(__file__).resolve().parents[2]


def make_engine(url: str, *, read_only: bool = False) -> Engine:
    """Create an SQLAlchemy engine for ``url``. For SQLite: creates the parent folder, enables
    foreign keys and WAL, and a 30 s busy timeout.

    SQLite transactions follow SQLAlchemy's recipe "Serializable isolation / Savepoints /
    Transactional DDL" (SQLite dialect docs): pysqlite's own transaction handling is switched off
    (``isolation_level = None``) and SQLAlchemy emits the ``BEGIN`` itself, so a transaction
    starts at its first statement, reads included, and ``Session.begin_nested()`` is a real
    ``SAVEPOINT`` inside it (with pysqlite's default mode a SAVEPOINT issued as the first write
    opened no transaction and was committed on its own, issue #9.7). The ``BEGIN`` is
    ``BEGIN IMMEDIATE``: the write lock is taken at the start, waiting up to the busy timeout,
    because a deferred transaction that read first and writes later fails at once with
    ``database is locked`` when another connection wrote in between (WAL snapshot upgrade).
    ``read_only`` engines (the web view) begin with a plain deferred ``BEGIN``: they never write,
    and an immediate one would take the write lock (and fail under ``PRAGMA query_only``).

    PostgreSQL connections plan every statement for its parameters (``plan_cache_mode =
    force_custom_plan``): psycopg prepares a statement on the server from its fifth execution,
    and a generic plan made while a table was nearly empty (a sequential scan of ``outbox`` for
    the dedupe-key look-up) would otherwise be kept as the table grows, until the table is next
    analyzed.

    A PostgreSQL database whose server encoding is not UTF8 is refused at the first connection
    with a :class:`DatabaseEncodingError` naming the fix (:func:`check_server_encoding`)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None  # the recipe: pysqlite emits no BEGIN of its own
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn):  # type: ignore[no-untyped-def]
            conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "postgresql":
        refuse_non_utf8(engine)

        @event.listens_for(engine, "connect", insert=True)
        def _custom_plans(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            autocommit = dbapi_conn.autocommit
            dbapi_conn.autocommit = True
            cur = dbapi_conn.cursor()
            cur.execute("SET plan_cache_mode = force_custom_plan")
            cur.close()
            dbapi_conn.autocommit = autocommit

    return engine


class DatabaseEncodingError(SQLAlchemyError):
    """The PostgreSQL database is not encoded in UTF8 (:func:`check_server_encoding`). An
    ``SQLAlchemyError``, so that every command reports it as the database error it is (one line,
    exit 1), as it does an unreachable server."""


def check_server_encoding(dbapi_conn: Any, database: str = "") -> None:
    """Refuse a PostgreSQL connection whose database is not encoded in UTF8.

    ``dbapi_conn`` is a psycopg 3 connection (its ``info.parameter_status``; another driver is
    asked ``SHOW server_encoding``), ``database`` the name for the message. Names, sheets and mail
    are Unicode; a database created as ``SQL_ASCII`` makes psycopg hand back bytes for text, and
    start-up failed with only ``TypeError('cannot use a string pattern on a bytes-like object')``
    (issue 20); another server encoding (LATIN1, EUC_JP) cannot store every character a player
    writes. The PostgreSQL documentation, §24.3 "Character Set Support", names the fix, which the
    message gives.

    Raises:
        DatabaseEncodingError: the server encoding is not ``UTF8``.
    """
    encoding: Any = None
    info = getattr(dbapi_conn, "info", None)
    if info is not None and hasattr(info, "parameter_status"):
        encoding = info.parameter_status("server_encoding")
    if encoding is None:  # pragma: no cover - another driver than psycopg 3
        cur = dbapi_conn.cursor()
        cur.execute("SHOW server_encoding")
        encoding = cur.fetchone()[0]
        cur.close()
    if isinstance(encoding, bytes):
        encoding = encoding.decode("ascii", "replace")
    encoding = str(encoding or "").strip()
    if encoding.upper().replace("-", "") in ("UTF8", ""):
        return
    name = database or "NAME"
    raise DatabaseEncodingError(
        f"the PostgreSQL database {name} is encoded {encoding}, not UTF8 (names, sheets and mail "
        f"are Unicode): create it with CREATE DATABASE {name} ENCODING 'UTF8' TEMPLATE template0 "
        "(add LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' when the cluster's locale is not UTF-8; "
        "pg_dump and restore existing data into it)"
    )


def refuse_non_utf8(engine: Engine) -> None:
    """Make ``engine`` (PostgreSQL) check its database's encoding at its first connection
    (:func:`check_server_encoding`): the listener is inserted before the dialect's own
    first-connect work, which is what fails with a ``TypeError`` on ``SQL_ASCII``."""
    database = engine.url.database or ""

    @event.listens_for(engine, "first_connect", insert=True)
    def _utf8_only(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        check_server_encoding(dbapi_conn, database)


def rowcount(result: Any) -> int:
    """The rows an ``UPDATE``/``DELETE`` matched (``CursorResult.rowcount``; the result of
    ``Session.execute`` is typed as a plain ``Result``), 0 when the driver does not say."""
    return int(getattr(result, "rowcount", 0) or 0)


def insert_ignore(session: Session, model: type, rows: list[dict[str, Any]]) -> None:
    """``INSERT ... ON CONFLICT DO NOTHING`` of ``rows`` into ``model``'s table, in the caller's
    transaction (SQLite and PostgreSQL dialects): a row whose key exists already is skipped, also
    when another transaction inserts it at the same moment. On PostgreSQL through psycopg the
    rows (every row the same columns) go as one statement over ``unnest`` of one array per
    column, in binary (:func:`_unnest_arrays`), not one statement per row (psycopg's
    ``executemany``) nor a multi-row ``VALUES`` statement compiled afresh for every number of
    rows."""
    if not rows:
        return
    raw = _psycopg(session)
    name = session.connection().dialect.name
    if raw is not None:
        connection, cursor = raw
        table = model.__table__  # type: ignore[attr-defined]
        names = list(rows[0])
        values = {n: [row[n] for row in rows] for n in names}
        values.update({c: [v] * len(rows) for c, v in _python_defaults(table, names).items()})
        quote = connection.dialect.identifier_preparer.quote
        arrays, casts = _unnest_arrays(connection, table, values)
        cursor.execute(
            f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in values)}) "
            f"SELECT * FROM unnest({casts}) ON CONFLICT DO NOTHING",
            arrays,
        )
    elif name == "postgresql":  # pragma: no cover - another PostgreSQL driver
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        session.execute(pg_insert(model).on_conflict_do_nothing(), rows)
    elif name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        session.execute(sqlite_insert(model).on_conflict_do_nothing(), rows)
    else:  # pragma: no cover - the two supported databases are above
        from sqlalchemy import insert

        session.execute(insert(model), rows)


def _psycopg(session: Session) -> tuple[Any, Any] | None:
    """``(connection, raw psycopg cursor)`` of the session's transaction when it runs on
    PostgreSQL through psycopg 3, after flushing the ORM's pending rows (as a Core statement
    would autoflush), for the bulk statements below; ``None`` on any other database or
    driver."""
    connection = session.connection()
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    session.flush()
    return connection, connection.connection.driver_connection.cursor()  # type: ignore[union-attr]


def _python_defaults(table: Any, names: list[str]) -> dict[str, Any]:
    """The Python-side defaults (SQLAlchemy ``default=``, a callable called once) of the
    columns of ``table`` not in ``names``: what SQLAlchemy would fill in for an insert."""
    defaults: dict[str, Any] = {}
    for column in table.columns:
        d = column.default
        if column.name not in names and d is not None and (d.is_scalar or d.is_callable):
            defaults[column.name] = d.arg(None) if d.is_callable else d.arg
    return defaults


def bulk_insert(session: Session, model: type, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (column values, every row the same columns) into ``model``'s table in the
    caller's transaction: one ``COPY ... FROM STDIN`` on PostgreSQL through psycopg 3
    (``Cursor.copy``; psycopg's ``executemany`` sends one statement per row: 20,000 outbox rows
    take a fifth of the time), one ``executemany`` elsewhere. Columns the rows do not set take
    their Python-side defaults (SQLAlchemy ``default=``, evaluated once for the batch) or the
    server's (the id). A duplicate key raises ``IntegrityError`` either way."""
    if not rows:
        return
    raw = _psycopg(session)
    if raw is None:
        from sqlalchemy import insert

        session.execute(insert(model), rows)
        return
    connection, cursor = raw
    table = model.__table__  # type: ignore[attr-defined]
    names = list(rows[0])
    defaults = _python_defaults(table, names)
    quote = connection.dialect.identifier_preparer.quote
    columns = ", ".join(quote(c) for c in names + list(defaults))
    extra = tuple(defaults.values())
    with cursor.copy(f"COPY {quote(table.name)} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(tuple(row[n] for n in names) + extra)


def bulk_update(session: Session, model: type, rows: list[dict[str, Any]]) -> None:
    """Update rows of ``model``'s table by primary key ``id``, in the caller's transaction:
    ``rows`` are column values with the ``id`` (every row the same columns). On PostgreSQL
    through psycopg one ``UPDATE ... FROM unnest(...)`` (one array per column, in binary, JSON
    columns as ``json[]``: :func:`_unnest_arrays`), not one statement per row (psycopg's
    ``executemany``); elsewhere one executemany."""
    if not rows:
        return
    from sqlalchemy import bindparam, update

    table = model.__table__  # type: ignore[attr-defined]
    names = [n for n in rows[0] if n != "id"]
    raw = _psycopg(session)
    if raw is None:
        session.execute(
            update(table)
            .where(table.c.id == bindparam("_id"))
            .values({n: bindparam(n) for n in names}),
            [{**{n: row[n] for n in names}, "_id": row["id"]} for row in rows],
        )
        return
    connection, cursor = raw
    quote = connection.dialect.identifier_preparer.quote
    arrays, casts = _unnest_arrays(
        connection,
        table,
        {"id": [row["id"] for row in rows], **{n: [row[n] for row in rows] for n in names}},
    )
    aliases = ["id"] + [f"c{i}" for i in range(len(names))]
    sets = ", ".join(f"{quote(n)} = v.{a}" for n, a in zip(names, aliases[1:], strict=True))
    cursor.execute(
        f"UPDATE {quote(table.name)} SET {sets} FROM unnest({casts}) "
        f"AS v({', '.join(aliases)}) WHERE {quote(table.name)}.id = v.id",
        arrays,
    )


def _unnest_arrays(
    connection: Any, table: Any, values: dict[str, list[Any]]
) -> tuple[list[list[Any]], str]:
    """The parameters of an ``unnest(...)`` over ``values`` (column name -> one value per row)
    and its argument list, one ``%b::<type>[]`` per column: binary parameters (psycopg's
    ``binary=True`` sets only the result format; a text array hex-encodes bytea and escapes
    each quote of a JSON value with a regex), JSON values wrapped as ``json`` (``None`` as
    SQLAlchemy writes it: JSON null unless the type says SQL NULL)."""
    from psycopg.types.json import Json
    from sqlalchemy import JSON

    arrays: list[list[Any]] = []
    types: list[str] = []
    for name, column_values in values.items():
        column_type = table.c[name].type
        if isinstance(column_type, JSON):
            null = column_type.none_as_null
            arrays.append([None if v is None and null else Json(v) for v in column_values])
            types.append("JSON")
        else:
            arrays.append(column_values)
            types.append(column_type.compile(dialect=connection.dialect))
    return arrays, ", ".join(f"%b::{t}[]" for t in types)


def alembic_config(url: str):  # type: ignore[no-untyped-def]
    """An Alembic ``Config`` for ``migrations/`` (``app.paths.MIGRATIONS``: the checkout's, or
    the copy inside an installed wheel) pointed at ``url``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at ``url`` to ``revision`` (default: head)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    """Migrate the database at ``url`` down to ``revision`` (default: empty)."""
    from alembic import command

    command.downgrade(alembic_config(url), revision)


def head_revision() -> str | None:
    """The head of the migration chain in ``migrations/versions`` (the revision no other file
    names as its ``down_revision``), read from the files' text without importing Alembic;
    ``None`` when the chain is not one line (then :func:`upgrade` decides)."""
    import re

    revs: set[str] = set()
    downs: set[str] = set()
    for path in (ROOT / "migrations" / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        rev = re.search(r'^revision(?::\s*str)?\s*=\s*["\']([^"\']+)["\']', text, re.M)
        down = re.search(r'^down_revision(?::[^=]+)?=\s*["\']([^"\']+)["\']', text, re.M)
        if rev:
            revs.add(rev.group(1))
        if down:
            downs.add(down.group(1))
    heads = revs - downs
    return heads.pop() if len(heads) == 1 else None


def current_revision(engine: Engine) -> str | None:
    """The revision in the database's ``alembic_version`` table, or ``None`` (no table, or not
    exactly one row)."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return None
    return rows[0][0] if len(rows) == 1 else None


def session_factory(url: str, *, migrate: bool = True) -> sessionmaker[Session]:
    """Return a session factory for ``url``, migrating the database to head first. A database
    already at head (:func:`current_revision` equals :func:`head_revision`) is not handed to
    Alembic at all: a restarted ``serve`` starts faster (issue 9.6, a crash-looping server)."""
    engine = make_engine(url)
    if migrate:
        head = head_revision()
        if head is None or current_revision(engine) != head:
            upgrade(url)
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any exception (and re-raise it)."""
    with factory() as session, session.begin():
        yield session
