"""Where the main process of ``benchmarks/league.py`` spends its time: the round-phase functions
of this process wrapped with wall-clock accumulators, the SQL statements counted, and the CPU
seconds of this process and of its worker processes (``resource.getrusage``).

Run by hand (not a timed test)::

    .venv/bin/python benchmarks/league_breakdown.py                  # SQLite, 100 entries
    .venv/bin/python benchmarks/league_breakdown.py --db postgres --entries 50
    AMARYLLIS_LEAGUE_WORKERS=0 .venv/bin/python benchmarks/league_breakdown.py   # one process

The wrapped functions nest (``_store_chunk`` of a round's last chunk contains its
``_finish_round``), so the totals do not add up. Timings on a shared machine vary: compare runs
taken back to back, and the CPU seconds.
"""

from __future__ import annotations

import argparse
import collections
import functools
import resource
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TOTALS: dict[str, float] = collections.defaultdict(float)
CALLS: dict[str, int] = collections.defaultdict(int)

#: (module, function names) wrapped; a name another module imported by value (``from x import
#: f``) is timed only where it is looked up through its module
WRAPPED = [
    (
        "app.league.play",
        ["_prepare_rounds", "_store_chunk", "_close_round", "_finish_round", "_apply"],
    ),
    ("app.league.results", ["standings_context", "standings", "_games"]),
    ("app.league.standings", ["compute"]),
    ("app.league.ratings", ["rate_round", "latest", "current"]),
    ("app.league.formats", ["rounds_planned", "describe", "advance"]),
    ("app.mail.outbox", ["existing_keys", "build_rows", "insert_rows", "store_bodies"]),
    ("app.reports.standings", ["render_standings_context"]),
]


def _wrap(module: Any, name: str) -> None:
    fn = getattr(module, name, None)
    if fn is None:
        return
    key = f"{module.__name__.rsplit('.', 1)[-1]}.{name}"

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TOTALS[key] += time.perf_counter() - start
            CALLS[key] += 1

    setattr(module, name, timed)


def main() -> None:
    import importlib

    import league as bench
    from sqlalchemy import create_engine, event, text
    from sqlalchemy.engine import Engine, make_url

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=100)
    ap.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    args = ap.parse_args()
    for modname, names in WRAPPED:
        module = importlib.import_module(modname)
        for name in names:
            _wrap(module, name)
    statements: collections.Counter[str] = collections.Counter()

    @event.listens_for(Engine, "before_cursor_execute")
    def _count(_conn, _cursor, statement, _params, _context, _many):  # type: ignore[no-untyped-def]
        statements[" ".join(statement.split())[:80]] += 1

    before = resource.getrusage(resource.RUSAGE_SELF)
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            times = bench.run(f"sqlite:///{tmp}/bench.sqlite3", args.entries, False)
    else:
        name = f"amaryllis_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(bench.PG, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = make_url(bench.PG).set(database=name).render_as_string(hide_password=False)
            times = bench.run(url, args.entries, False)
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    after = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("  " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))
    for key, total in sorted(TOTALS.items(), key=lambda kv: -kv[1]):
        print(f"  {total:8.2f} s  {key} ({CALLS[key]} calls)")
    print(f"  SQL statements: {sum(statements.values())}; most frequent:")
    for stmt, n in statements.most_common(12):
        print(f"  {n:8d}  {stmt}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(
        f"  CPU: this process {cpu:.2f} s, worker processes "
        f"{children.ru_utime + children.ru_stime:.2f} s"
    )


if __name__ == "__main__":  # the round workers are spawned: they import this file again
    main()
