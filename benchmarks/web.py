"""Web view speed: a league page of 100 and of 1,000 entries, a battle page, the feeds.

Run by hand (never a test: timings on a shared machine mean nothing in CI)::

    .venv/bin/python benchmarks/web.py            # 100 and 1000 entries, SQLite in a temp folder
    .venv/bin/python benchmarks/web.py --sizes 100 --database-url postgresql+psycopg://…/db

Leagues are made through the league service (``create_league``, ``submit_entry``,
``close_entries``: every sheet, seat and battle row is real). The 100-entry league is played by
``run_round`` (4,950 battles, with their report mails). The 1,000-entry league's 499,500
battles are **not** fought (that is ``benchmarks/league.py``'s job and takes minutes): their
result columns are filled with deterministic synthetic results by one UPDATE per round and the
rounds marked done, which is all the web view reads. Times are medians over ``--repeat`` requests
to a real uvicorn on 127.0.0.1 (httpx, one kept-alive connection), *cold* being the first
request after a change (standings computed) and *warm* the following ones (standings from the
per-process cache, names and rounds read again).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from sqlalchemy import select, update

from app.config import load_settings
from app.db.models import Battle, Round
from app.db.session import session_factory, transaction
from app.league import queries
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import find_ruleset
from app.web import battles
from app.web.server import start_web

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def sheets(n: int) -> list[str]:
    """``n`` valid sheets: the ruleset's samples, renamed ``U<i>`` (names differ, builds vary)."""
    rs = find_ruleset("amaryllis")()
    samples = rs.sample_sheets() + [rs.example_sheet("en"), rs.example_sheet("ja")]
    out = []
    for i in range(n):
        text = samples[i % len(samples)]
        first, _, rest = text.partition("\n")
        sep = "：" if "：" in first else ":"
        out.append(f"U{i}{sep}{first.split(sep, 1)[1]}\n{rest}")
    return out


def build(factory, settings, name: str, n: int, *, play: bool) -> None:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    with transaction(factory) as s:
        league = svc.create_league(s, name, entry_deadline=T0 + dt.timedelta(days=1), now=T0)
        for i, text in enumerate(sheets(n)):
            p = svc.get_or_create_player(s, f"p{i}@{name}.example", display_name=f"Player {i}")
            out = svc.submit_entry(s, league, p, text, now=T0)
            assert out.accepted, out.sheet.problems
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, name), now=T0 + dt.timedelta(days=2))
    if play:
        svc.run_round(
            factory, LeagueMail.of(settings), name, all_rounds=True, now=T0 + dt.timedelta(days=2)
        )
    else:
        rng = random.Random(n)
        with transaction(factory) as s:
            lid = svc.get_league(s, name).id
            rounds = list(s.execute(select(Round.id, Round.number).where(Round.league_id == lid)))
            for rid, _number in rounds:
                w = rng.choice([0, 1, None])
                s.execute(
                    update(Battle)
                    .where(Battle.round_id == rid, Battle.entry_b_id.is_not(None))
                    .values(
                        state="done",
                        winner=w,
                        reason="hp" if w is not None else "draw",
                        turns=20,
                        hp_a=rng.randint(-5, 40),
                        hp_b=rng.randint(-5, 40),
                        engine_version="1",
                        fought_at=T0,
                    )
                )
            s.execute(
                update(Round)
                .where(Round.league_id == lid)
                .values(state="done", done_at=T0 + dt.timedelta(days=2))
            )
            league = svc.get_league(s, name)
            league.state = "finished"
    print(f"  built {name}: {n} entries in {time.perf_counter() - t:.1f} s", flush=True)


def measure(client: httpx.Client, url: str, repeat: int) -> tuple[float, float, int]:
    """(cold ms, warm median ms, bytes)."""
    queries.clear_cache()
    battles.clear_cache()
    t = time.perf_counter()
    r = client.get(url)
    cold = (time.perf_counter() - t) * 1000
    assert r.status_code == 200, (url, r.status_code)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = client.get(url)
        times.append((time.perf_counter() - t) * 1000)
    return cold, statistics.median(times), len(r.content)


def in_app(app, url: str, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Median ms of the application's own work for ``url`` (warm): the ASGI app called
    directly, no socket, no HTTP parsing."""
    import asyncio
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": parts.path,
        "raw_path": parts.path.encode(),
        "query_string": parts.query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def once() -> None:
        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(_message: dict) -> None:
            return None

        await app(scope, receive, send)

    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        asyncio.run(once())
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument(
        "--database-url",
        default=None,
        help="default: SQLite in a temporary folder; leagues already there are reused",
    )
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    url = args.database_url or f"sqlite:///{Path(tmp.name) / 'web-bench.sqlite3'}"
    settings = load_settings(database_url=url, data_dir=Path(tmp.name))
    factory = session_factory(url)
    print(f"database: {url.split('@')[-1]}")
    for n in args.sizes:
        with factory() as s:
            exists = svc.find_league(s, f"bench{n}") is not None
        if not exists:
            build(factory, settings, f"bench{n}", n, play=n <= 200)
    server = start_web(settings, host="127.0.0.1", port=0, access_log=False)
    print(f"\n{'page':<44} {'cold ms':>9} {'warm ms':>9} {'app ms':>8} {'KiB':>8}")
    try:
        with httpx.Client(base_url=server.url, timeout=600) as client:
            for n in args.sizes:
                name = f"bench{n}"
                doc = client.get(f"/leagues/{name}.json").json()
                board = next(
                    b for r in doc["rounds"] if r["boards"] for b in r["boards"] if b["url"]
                )
                rows = [
                    (f"/leagues/{name}", f"league page, {n} entries"),
                    (f"/leagues/{name}.json", f"league JSON, {n} entries"),
                    (f"/leagues/{name}?xr=3&xc=2", "league page, cross-table block (3, 2)")
                    if n > queries.CROSS_FULL
                    else None,
                    (f"/leagues/{name}/rounds/1", f"round page ({n // 2} boards)"),
                    (board["url"], "battle page (log recomputed, then cached)"),
                    (f"/leagues/{name}/feed.atom", "league feed"),
                    (f"/leagues/{name}/standings.csv", "standings CSV"),
                    ("/", "league list"),
                ]
                for row in rows:
                    if row is None:
                        continue
                    cold, warm, size = measure(client, row[0], args.repeat)
                    inner = in_app(server.app, row[0], args.repeat)
                    print(
                        f"{row[1]:<44} {cold:9.1f} {warm:9.1f} {inner:8.1f} {size / 1024:8.1f}",
                        flush=True,
                    )
    finally:
        server.shutdown()
        factory.kw["bind"].dispose()
        tmp.cleanup()


if __name__ == "__main__":
    main()
