"""Crash loop: ``amaryllis serve`` killed with SIGKILL every 0.5–3 s and restarted until every mail
is answered; then count lost and duplicated replies (issue 9).

Three runs in four are killed 0.5–3 s after ``serve`` reported ``running`` in its heartbeat (on
the busy 2-CPU development machine start-up alone takes 1–6 s, so a kill timed from the process
start would rarely let it work); every fourth is killed 0.1–1.5 s after the process started,
inside its start-up.

N players each mail an entry sheet to the embedded mail stack (pymap IMAP + aiosmtpd, in this
process); ``serve`` runs as a real subprocess on SQLite or PostgreSQL and is killed at random
instants (``kill -9``: no handler runs) and started again, until every player has a reply in the
sink and the database has nothing left to do. The promise checked: **0 replies lost, every
duplicate has the Message-ID of the first copy** (at least once; docs/mail.md), every inbound mail
processed once (``done``, one entry per player).

    .venv/bin/python benchmarks/crash_loop.py                 # 300 mails, SQLite and PostgreSQL
    .venv/bin/python benchmarks/crash_loop.py --mails 50 --only sqlite

``tests/faults/test_crash_loop.py`` runs a smaller, bounded version of :func:`crash_loop`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import signal
import smtplib
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG = os.environ.get(
    "AMARYLLIS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
SHEET = "Bolt{n}: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def _entry(n: int, to: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"p{n}@example.org"
    msg["To"] = to
    msg["Subject"] = "[spring] entry"
    msg["Message-ID"] = f"<crashloop-{n}@example.org>"
    msg.set_content(SHEET.format(n=n))
    return msg


def _env(url: str, data: Path, stack: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        {
            "AMARYLLIS_DATA_DIR": str(data),
            "AMARYLLIS_DATABASE_URL": url,
            "AMARYLLIS_IMAP_URL": stack.imap_url,
            "AMARYLLIS_SMTP_URL": stack.smtp_url,
            "AMARYLLIS_SERVER_ADDRESS": "tourney@localhost",
            "AMARYLLIS_WEB_PORT": "0",
            "AMARYLLIS_POLL_INTERVAL": "1",
            "AMARYLLIS_SEND_INTERVAL": "0.5",
            "AMARYLLIS_TICK_INTERVAL": "5",
            "AMARYLLIS_RATE_LIMIT_PER_DAY": "1000",
        }
    )
    return env


def _wait_running(data: Path, proc: subprocess.Popen[Any], timeout: float) -> bool:
    """Wait until ``serve`` (``proc``) reports running in its heartbeat file
    (``data/serve-status.json``); False when it exited first or ``timeout`` seconds passed."""
    import json

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            beat = json.loads((data / "serve-status.json").read_text())
            if beat.get("pid") == proc.pid and beat.get("state") == "running":
                return True
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    return False


def _work_left(factory: Any) -> int:
    from sqlalchemy import func, select

    from app.db.models import InboundMessage, OutboxMessage

    with factory() as s:
        inbound = (
            s.scalar(
                select(func.count())
                .select_from(InboundMessage)
                .where(InboundMessage.status == "stored")
            )
            or 0
        )
        outbox = (
            s.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.status.in_(("queued", "sending")))
            )
            or 0
        )
    return inbound + outbox


def crash_loop(
    url: str,
    workdir: Path,
    *,
    mails: int = 300,
    kill_after: tuple[float, float] = (0.5, 3.0),
    seed: int = 9,
    max_runs: int = 400,
    log: Any = None,
) -> dict[str, Any]:
    """Run the crash loop on database ``url`` (empty) in ``workdir``. Returns the counts:
    ``mails``, ``runs`` (serve starts), ``kills``, ``received`` (replies in the sink), ``lost``
    (players without a reply), ``duplicates`` (copies beyond the first), ``dup_ids_differ``
    (players whose copies carry more than one Message-ID), ``inbound`` (status -> count),
    ``entries``, ``replies`` (reply rows), ``outbox`` (status -> count), ``seconds``."""
    from sqlalchemy import func, select

    from app.db.models import Entry, InboundMessage, OutboxMessage
    from app.db.session import session_factory, transaction
    from app.league import service
    from app.ops.embedded import EmbeddedMailStack

    rng = random.Random(seed)
    started = time.monotonic()
    factory = session_factory(url)
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        service.create_league(s, "spring", entry_deadline=now + dt.timedelta(days=1), now=now)
    runs = kills = 0
    with EmbeddedMailStack(workdir / "sink") as stack:
        with smtplib.SMTP("127.0.0.1", stack.smtp_port, timeout=30) as smtp:
            for n in range(mails):
                smtp.send_message(_entry(n, stack.server_address))
        env = _env(url, workdir / "data", stack)
        expected = {f"p{n}@example.org" for n in range(mails)}
        while runs < max_runs:
            runs += 1
            logs = workdir / "logs"
            logs.mkdir(exist_ok=True)
            with open(logs / f"serve-{runs:04d}.log", "wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "app.cli", "serve"],
                    env=env,
                    cwd=ROOT,
                    stdout=err,
                    stderr=err,
                )
            if runs % 4 == 0:  # every 4th run dies during start-up (imports, migration check)
                time.sleep(rng.uniform(0.1, 1.5))
            else:  # the others 0.5-3 s after serving began
                _wait_running(workdir / "data", proc, 60)
                time.sleep(rng.uniform(*kill_after))
            answered = {m.recipient for m in stack.sink} >= expected
            if answered and _work_left(factory) == 0:
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)
                break
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            kills += 1
            if log:
                log(
                    f"  run {runs}: killed; {len({m.recipient for m in stack.sink} & expected)}"
                    f"/{mails} players answered"
                )
        sink = stack.sink
    ids: dict[str, list[str]] = defaultdict(list)
    for m in sink:
        if m.recipient in expected:
            ids[m.recipient].append(str(m.message["Message-ID"]))
    with factory() as s:
        inbound = dict(
            s.execute(
                select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
            ).all()
        )
        outbox = dict(
            s.execute(
                select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
            ).all()
        )
        entries = s.scalar(select(func.count()).select_from(Entry)) or 0
        replies = (
            s.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.kind == "reply")
            )
            or 0
        )
    factory.kw["bind"].dispose()
    return {
        "mails": mails,
        "runs": runs,
        "kills": kills,
        "received": sum(len(v) for v in ids.values()),
        "lost": len(expected - set(ids)),
        "duplicates": sum(len(v) - 1 for v in ids.values()),
        "dup_ids_differ": sum(1 for v in ids.values() if len(set(v)) > 1),
        "inbound": inbound,
        "entries": entries,
        "replies": replies,
        "outbox": outbox,
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=300)
    ap.add_argument("--only", choices=["sqlite", "postgres"])
    ap.add_argument("--seed", type=int, default=9)
    args = ap.parse_args()
    for target in ["sqlite", "postgres"] if args.only is None else [args.only]:
        print(f"{target}: {args.mails} mails, serve killed every 0.5-3 s")
        with tempfile.TemporaryDirectory() as tmp:
            if target == "sqlite":
                result = crash_loop(
                    f"sqlite:///{tmp}/data/db.sqlite3",
                    Path(tmp),
                    mails=args.mails,
                    seed=args.seed,
                    log=print,
                )
            else:
                from sqlalchemy import create_engine, text
                from sqlalchemy.engine import make_url

                name = f"amaryllis_crash_{uuid.uuid4().hex[:8]}"
                admin = create_engine(PG, isolation_level="AUTOCOMMIT")
                with admin.connect() as c:
                    c.execute(text(f'CREATE DATABASE "{name}"'))
                try:
                    url = make_url(PG).set(database=name).render_as_string(hide_password=False)
                    result = crash_loop(url, Path(tmp), mails=args.mails, seed=args.seed, log=print)
                finally:
                    with admin.connect() as c:
                        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                    admin.dispose()
        print("  " + ", ".join(f"{k} {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
