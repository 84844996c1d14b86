"""A hill league by mail at scale: a hill of ``--members`` (200) filled by mail, then taking
``--challenges`` (1,000) more entries by mail, each fought at once against every member
(199 battles each), each answered with its results and the table, the lowest pushed off and
mailed.

Each mail goes the pipeline's whole way after the IMAP step: the raw message is stored as an
inbound row (as the poller stores it), then ``app.mail.pipeline.process_one`` decodes it, reads
the sheet, enters it, fights the challenge, renders the reply and queues it (outbox) in the
message's transaction. SQLite in a temporary folder (or ``--database-url``). Prints the time per
mail (mean, median, 95th percentile, worst) for the filling and the challenges; asserts
nothing.

Usage: .venv/bin/python benchmarks/hill.py [--members 200] [--challenges 1000]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from app.config import Settings  # noqa: E402
from app.db.models import Battle, InboundMessage, League, OutboxMessage  # noqa: E402
from app.db.session import session_factory, transaction  # noqa: E402
from app.league import service as svc  # noqa: E402
from app.league.formats import set_format  # noqa: E402
from app.mail.pipeline import process_one  # noqa: E402
from app.rules.amaryllis import format_sheet  # noqa: E402
from app.rules.amaryllis.generate import random_unit  # noqa: E402


def _mail(i: int, sheet: str) -> bytes:
    return (
        f"From: Player {i} <p{i}@example.org>\r\nTo: hill@localhost\r\nSubject: entry\r\n"
        f"Message-ID: <bench-{i}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"\r\nleague: kingofthehill\r\n{sheet}\r\n"
    ).encode()


def _one(settings: Settings, factory, i: int, sheet: str, now: dt.datetime) -> float:  # type: ignore[no-untyped-def]
    raw = _mail(i, sheet)
    start = time.perf_counter()
    with transaction(factory) as s:
        row = InboundMessage(
            message_key=f"<bench-{i}@example.org>",
            sender=f"p{i}@example.org",
            subject="entry",
            raw=raw,
            size=len(raw),
            status="stored",
            received_at=now,
        )
        s.add(row)
        s.flush()
        rid = row.id
    process_one(settings, factory, rid, now=now)
    return time.perf_counter() - start


def _summary(label: str, times: list[float]) -> str:
    t = sorted(times)
    p95 = t[int(0.95 * (len(t) - 1))]
    return (
        f"{label}: {len(t)} mails in {sum(t):.1f} s; per mail mean {statistics.mean(t) * 1000:.0f}"
        f" ms, median {statistics.median(t) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, worst "
        f"{t[-1] * 1000:.0f} ms"
    )


def measure(
    members: int, challenges: int, seed: int, url: str | None
) -> tuple[list[float], list[float]]:
    """Fill a hill of ``members`` by mail, then send ``challenges`` challenges; return the
    per-mail times (s) of the filling and of the challenges. ``url`` ``None``: a temporary
    SQLite file."""
    rng = random.Random(seed)
    total = members + challenges
    sheets = [format_sheet(random_unit(rng, f"U{i:04d}"), "ja") for i in range(total)]
    with tempfile.TemporaryDirectory() as tmp:
        url = url or f"sqlite:///{Path(tmp) / 'hill.sqlite3'}"
        factory = session_factory(url)
        settings = Settings(
            database_url=url, server_address="hill@localhost", data_dir=Path(tmp), organizers=[]
        )  # type: ignore[call-arg]
        now = dt.datetime.now(dt.timezone.utc)
        with transaction(factory) as s:
            league = svc.create_league(
                s, "kingofthehill", entry_deadline=now + dt.timedelta(days=1), now=now
            )
            set_format(league, "hill", {"size": members})
        fill = [_one(settings, factory, i, sheets[i], now) for i in range(members)]
        print(_summary(f"filling the hill (0 to {members - 1} battles each)", fill))
        wall = time.perf_counter()
        chal = [_one(settings, factory, i, sheets[i], now) for i in range(members, total)]
        wall = time.perf_counter() - wall
        print(_summary(f"challenges ({members - 1} battles each)", chal))
        with transaction(factory) as s:
            lg = s.scalar(select(League).where(League.name == "kingofthehill"))
            assert lg is not None
            battles = s.scalar(select(func.count()).select_from(Battle)) or 0
            offs = (
                s.scalar(
                    select(func.count())
                    .select_from(OutboxMessage)
                    .where(OutboxMessage.dedupe_key.like("hill-off:%"))
                )
                or 0
            )
            replies = (
                s.scalar(
                    select(func.count())
                    .select_from(OutboxMessage)
                    .where(OutboxMessage.kind == "reply")
                )
                or 0
            )
            hill_members = len(lg.format_state["members"]) if lg.format_state else 0
        print(
            f"{battles:,} battles stored; {replies:,} replies and {offs:,} push-off mails "
            f"queued; {hill_members} members on the hill; challenges: "
            f"{challenges * (members - 1) / wall:,.0f} battles/s through the mail path"
        )
        factory.kw["bind"].dispose()
    return fill, chal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--challenges", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    measure(args.members, args.challenges, args.seed, args.database_url)


if __name__ == "__main__":
    main()
