"""Benchmark: one update of a big accumulating league (issue 22's target: 1,000 entries on
PostgreSQL, entries → digests queued, ≤ 90 s and ≤ 1 GB).

Run by hand (not a timed test)::

    .venv/bin/python benchmarks/accumulating.py                    # 1,000 entries, PostgreSQL
    .venv/bin/python benchmarks/accumulating.py --entries 200 --database-url sqlite:///x.db

The league ``Big`` is an accumulating round robin of one update: ``--entries`` players (half
``ja``, half ``en``) each enter a random Amaryllis sheet through ``submit_entry`` (the service
the mail path calls), entries close (the Berger table: ``n (n - 1) / 2`` battles in one round),
then ``run_round`` plays the update in this process and its round workers (one per CPU, as
``serve`` does) and queues one digest per player and the standings. Prints the time of each
step, the mails queued by kind, and the peak resident memory of this process and of its
largest worker (``getrusage``: kilobytes on Linux); asserts nothing. PostgreSQL:
``$AMARYLLIS_TEST_POSTGRES_URL``'s server, a scratch database dropped afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from league import enter_random  # noqa: E402  (benchmarks/league.py)
from run import scratch_postgres  # noqa: E402  (benchmarks/run.py)
from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from app.config import Settings  # noqa: E402
from app.db.models import Battle, OutboxMessage  # noqa: E402
from app.db.session import session_factory, transaction  # noqa: E402
from app.league import service as svc  # noqa: E402
from app.mail.league_mail import LeagueMail  # noqa: E402

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def run(url: str, n: int, data: Path) -> dict[str, float]:
    """Enter ``n`` sheets, close entries, play the update; returns the figures (seconds, counts,
    kilobytes)."""
    factory = session_factory(url)
    settings = Settings(
        database_url=url, server_address="league@localhost", data_dir=data, organizers=[]
    )  # type: ignore[call-arg]
    rng = random.Random(2026)
    deadline = T0 + dt.timedelta(days=1)
    start = time.perf_counter()
    with transaction(factory) as s:
        league = svc.create_league(
            s,
            "Big",
            entry_deadline=deadline,
            format="accumulating",
            format_options={"updates": 1},
            now=T0,
        )
        enter_random(s, league, n, rng)
    entries = time.perf_counter() - start
    start = time.perf_counter()
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Big"), now=deadline, mail=LeagueMail.of(settings))
    close = time.perf_counter() - start
    start = time.perf_counter()
    played = svc.run_round(factory, LeagueMail.of(settings), "Big", now=deadline)
    update = time.perf_counter() - start
    assert played == [1], played
    with factory() as s:
        battles = s.scalar(select(func.count()).select_from(Battle)) or 0
        kinds = Counter(key.split(":", 1)[0] for key in s.scalars(select(OutboxMessage.dedupe_key)))
    factory.kw["bind"].dispose()
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "entries_s": entries,
        "close_s": close,
        "update_s": update,
        "total_s": entries + close + update,
        "battles": battles,
        "digests": kinds.get("digest", 0),
        "mails": sum(kinds.values()),
        **{f"mails.{k}": v for k, v in sorted(kinds.items())},
        "peak_rss_kb": me,
        "worker_peak_rss_kb": workers,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--database-url", default=None, help="default: a scratch PostgreSQL database")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        url = args.database_url or stack.enter_context(scratch_postgres())
        figures = run(url, args.entries, Path(tmp))
    print(f"accumulating update, {args.entries} entries, {make_url(url).get_backend_name()}:")
    for key, value in figures.items():
        shown = f"{value:.1f}" if isinstance(value, float) else f"{value:,}"
        print(f"  {key:24} {shown}")


if __name__ == "__main__":
    main()
