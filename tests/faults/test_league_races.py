"""League races (issue 9.1): ``league close-entries`` (the real CLI, a subprocess) while entries
arrive from four concurrent writers (threads with their own database connections). The promise:
an entry whose transaction committed as accepted is seated in the league; every other one was
told the entries are closed. Before the league lock: 52 of 406 accepted entries unseated on
PostgreSQL, 7 of 294 on SQLite."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from pathlib import Path

from sqlalchemy import select

from app.db.models import Entry
from app.db.session import transaction
from app.league import service as svc
from app.league.errors import EntriesClosed

ROOT = Path(__file__).resolve().parents[2]
SHEET = "Bolt{n}: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def test_close_entries_racing_entries_seats_every_accepted_entry(db, tmp_path) -> None:
    url, factory = db
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        svc.create_league(s, "race", entry_deadline=now + dt.timedelta(days=1), now=now)
    accepted: list[int] = []
    refused: list[int] = []
    lock = threading.Lock()
    closed = threading.Event()
    enough = threading.Event()

    def writer(k: int) -> None:
        n = k
        while not closed.is_set() and n < 4000:
            try:
                with transaction(factory) as s:
                    league = svc.get_league(s, "race")
                    player = svc.get_or_create_player(s, f"p{n}@example.org")
                    ok = svc.submit_entry(
                        s, league, player, SHEET.format(n=n), now=dt.datetime.now(dt.timezone.utc)
                    ).accepted
                assert ok
                with lock:
                    accepted.append(n)
                    if len(accepted) >= 40:
                        enough.set()
            except EntriesClosed:
                with lock:
                    refused.append(n)
                closed.set()
            n += 4

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    try:
        assert enough.wait(120)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
        env.update(AMARYLLIS_DATABASE_URL=url, AMARYLLIS_DATA_DIR=str(tmp_path / "data"))
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "league", "close-entries", "race"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    finally:
        closed.set()
        for t in threads:
            t.join(60)
    with factory() as s:
        seats = {int(e.player.address[1:].split("@")[0]): e.seat for e in s.scalars(select(Entry))}
    unseated = [n for n in accepted if seats.get(n) is None]
    assert len(accepted) >= 40 and unseated == []  # 0 accepted entries left out
    assert all(n not in seats for n in refused)  # a refused entry was not stored either
    assert sorted(seats) == sorted(accepted)
