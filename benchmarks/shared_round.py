"""Benchmark: one big round played by two ``amaryllis serve`` processes sharing a PostgreSQL
database (shared rounds, ``docs/league.md``) against one ``serve`` alone, each with
``--workers`` round worker processes (``AMARYLLIS_LEAGUE_WORKERS``, default 1).

Run by hand (not a timed test)::

    .venv/bin/python benchmarks/shared_round.py                  # 70 entries: 2,415 battles
    .venv/bin/python benchmarks/shared_round.py --entries 50 --repeat 3 --workers 0

The league is an accumulating round robin of one update (``n (n - 1) / 2`` battles in one
round, every report and the standings queued), set up identically in a scratch database of
``$AMARYLLIS_TEST_POSTGRES_URL`` for each run. The serves are started and running before the
round is made due; the time is from then until the league is finished (the round's closing step
committed). Prints each run, the ratio two/one (target ≤ 0.6) and the host-speed loop before each
pair of runs (the shared VM's speed swings).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from league import enter_random  # noqa: E402  (benchmarks/league.py)
from sqlalchemy import create_engine, func, select, text, update  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402

from app.db.models import Battle, League, Round  # noqa: E402
from app.db.session import session_factory, transaction  # noqa: E402
from app.league import service as svc  # noqa: E402

PG = os.environ.get(
    "AMARYLLIS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
LATER = dt.datetime(2099, 1, 1, tzinfo=dt.timezone.utc)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def setup(url: str, n: int) -> None:
    """League ``Big`` at ``url``: ``n`` entries, accumulating (one update), entries closed, its
    one round scheduled far ahead (made due by :func:`play`)."""
    factory = session_factory(url)
    rng = random.Random(2026)
    deadline = T0 + dt.timedelta(days=1)
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
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Big"), now=deadline)
        s.execute(update(Round).values(scheduled_at=LATER))
    factory.kw["bind"].dispose()


def _wait_running(data: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            beat = json.loads((data / "serve-status.json").read_text())
            if beat.get("pid") == proc.pid and beat.get("state") == "running":
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"serve did not start (see {data}.log)")


def play(url: str, serves: int, workers: int, tmp: Path) -> tuple[float, int]:
    """Start ``serves`` serve processes on ``url``, make the round due, and return the seconds
    until the league is finished and the number of processes that stored battles."""
    engine = create_engine(url, poolclass=NullPool)
    procs = []
    try:
        for k in range(serves):
            data = tmp / f"serve{k}"
            env = {key: v for key, v in os.environ.items() if not key.startswith("AMARYLLIS_")}
            env |= {
                "AMARYLLIS_DATA_DIR": str(data),
                "AMARYLLIS_DATABASE_URL": url,
                "AMARYLLIS_IMAP_URL": f"imap://u:p@127.0.0.1:{_free_port()}/INBOX",
                "AMARYLLIS_SMTP_URL": f"smtp://127.0.0.1:{_free_port()}",
                "AMARYLLIS_SERVER_ADDRESS": "tourney@localhost",
                "AMARYLLIS_WEB_PORT": "0",
                "AMARYLLIS_POLL_INTERVAL": "3600",
                "AMARYLLIS_SEND_INTERVAL": "3600",
                "AMARYLLIS_TICK_INTERVAL": "0.2",
                "AMARYLLIS_LEAGUE_WORKERS": str(workers),
            }
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "app.cli", "serve"],
                    env=env,
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=open(f"{data}.log", "wb"),
                )
            )
        for k, proc in enumerate(procs):
            _wait_running(tmp / f"serve{k}", proc)
        with engine.begin() as c:
            c.execute(
                update(Round).values(
                    scheduled_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
                )
            )
        start = time.perf_counter()
        while True:
            with engine.connect() as c:
                if c.execute(select(League.state)).scalar_one() == "finished":
                    break
            if any(p.poll() is not None for p in procs):
                raise RuntimeError(f"a serve exited (logs in {tmp})")
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        with engine.connect() as c:
            stamps = c.execute(
                select(func.count(func.distinct(Battle.fought_at))).where(
                    Battle.entry_b_id.is_not(None)
                )
            ).scalar_one()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        engine.dispose()
    return seconds, int(stamps)


def host_speed() -> float:
    """Seconds a fixed single-threaded loop takes now (about 0.18 s at the VM's usual speed)."""
    start = time.perf_counter()
    acc = 0
    for i in range(3_000_000):
        acc += i * i % 7
    return time.perf_counter() - start


def once(n: int, serves: int, workers: int) -> tuple[float, int]:
    """One run on a scratch database: :func:`setup` then :func:`play`."""
    name = f"amaryllis_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(PG).set(database=name).render_as_string(hide_password=False)
        setup(url, n)
        with tempfile.TemporaryDirectory() as tmp:
            return play(url, serves, workers, Path(tmp))
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=70)
    ap.add_argument("--workers", type=int, default=1, help="round workers per serve")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    battles = args.entries * (args.entries - 1) // 2
    print(
        f"one round of {battles} battles ({args.entries} entries, accumulating), "
        f"{args.workers} worker(s) per serve"
    )
    ratios = []
    for r in range(args.repeat):
        print(f"run {r + 1} (host speed: the fixed loop took {host_speed():.2f} s)")
        one, _ = once(args.entries, 1, args.workers)
        two, stamps = once(args.entries, 2, args.workers)
        ratios.append(two / one)
        print(
            f"  one serve {one:.1f} s, two serves {two:.1f} s ({stamps} processes' ticks "
            f"stored battles): ratio {two / one:.2f}"
        )
    ratios.sort()
    mid = ratios[len(ratios) // 2]
    print(
        f"ratio two/one: median {mid:.2f} of {', '.join(f'{x:.2f}' for x in ratios)} "
        f"({'within' if mid <= 0.6 else 'OVER'} the 0.6 target)"
    )


if __name__ == "__main__":
    main()
