"""Benchmark: a Margaret Magicalized round robin with standing orders, from the close to the final
standings, every report, pairing and checkpoint mail queued, on SQLite (issue 21).

Run by hand (not a timed test)::

    .venv/bin/python benchmarks/magicalized_league.py                      # 40 entries, no checkpoints
    .venv/bin/python benchmarks/magicalized_league.py --checkpoints 5,10   # stops after turns 5 and 10
    .venv/bin/python benchmarks/magicalized_league.py --entries 100 --workers 2

Every entry has standing orders (the demo's three texts, in turn). Checkpoints are played the
way an organizer's ``league run-round`` plays them (each run goes on to the next stop). Prints the
time of the close (pairing mails), of the rounds, the battles fought per second (each battle
fought once per stop it reaches) and the outbox size.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, select

from app.db.models import Battle, OutboxMessage, Player
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import ruleset

RULESET = "margaret-magicalized"
T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=40)
    ap.add_argument("--checkpoints", default="none", help="none, every, or turns: 5,10")
    ap.add_argument("--workers", type=int, default=0, help="AMARYLLIS_LEAGUE_WORKERS")
    args = ap.parse_args()
    os.environ["AMARYLLIS_LEAGUE_WORKERS"] = str(args.workers)
    from app.rules.magicalized.ruleset import DEMO_ORDERS

    options = {"checkpoints": args.checkpoints}
    rs = ruleset(RULESET, options)
    folder = Path(tempfile.mkdtemp())
    factory = session_factory(f"sqlite:///{folder / 'bench.sqlite3'}")
    mail = LeagueMail(sender="league@example.net")
    deadline = T0 + dt.timedelta(days=1)
    rng = random.Random(2026)
    with transaction(factory) as s:
        league = svc.create_league(
            s, "MgBench", entry_deadline=deadline, now=T0, ruleset=RULESET, options=options
        )
        for i in range(args.entries):
            player = svc.get_or_create_player(s, f"p{i}@example.org", display_name=f"P{i}")
            sheet = rs.format_sheet(rs.random_entry(rng, name=f"M{i}"), "en")
            assert svc.submit_entry(s, league, player, sheet, now=T0).accepted
            assert svc.submit_orders(
                s, league, player, DEMO_ORDERS[i % len(DEMO_ORDERS)], rs, now=T0
            ).accepted
    t = time.perf_counter()
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "MgBench"), now=deadline, mail=mail)
    close_s = time.perf_counter() - t
    t = time.perf_counter()
    runs = 0
    while True:
        runs += 1
        svc.run_round(factory, mail, "MgBench", all_rounds=True, now=deadline)
        with factory() as s:
            left = (
                s.scalar(
                    select(func.count())
                    .select_from(Battle)
                    .where(Battle.state.in_(("pending", "paused")))
                )
                or 0
            )
        if not left:
            break
    play_s = time.perf_counter() - t
    with factory() as s:
        battles = (
            s.scalar(select(func.count()).select_from(Battle).where(Battle.entry_b_id.is_not(None)))
            or 0
        )
        stops = (
            s.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.dedupe_key.like("stop:%"))
            )
            or 0
        )
        mails = s.scalar(select(func.count()).select_from(OutboxMessage)) or 0
        players = s.scalar(select(func.count()).select_from(Player)) or 0
    fights = battles + stops // 2
    print(
        f"{args.entries} entries ({players} players), checkpoints {args.checkpoints}, "
        f"workers {args.workers}"
    )
    print(f"  close (pairing mails): {close_s:.2f} s")
    print(
        f"  rounds: {play_s:.2f} s in {runs} run(s): {battles} battles, {fights} fights "
        f"({fights / play_s:.0f} fights/s)"
    )
    print(f"  outbox: {mails} mails ({stops} checkpoint mails)")


if __name__ == "__main__":
    main()
