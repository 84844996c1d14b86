"""Benchmark: 1,000 sheets appended to the mailbox are stored, processed (parse, validate, enter,
reply rendered, queued) and their replies delivered to the SMTP sink.

Run by hand (root, Dovecot installed; or ``--server pymap``)::

    .venv/bin/python benchmarks/mail.py                  # Dovecot, 1000 mails, SQLite
    .venv/bin/python benchmarks/mail.py --mails 200 --server pymap
    .venv/bin/python benchmarks/mail.py --postgres       # PostgreSQL ($AMARYLLIS_TEST_POSTGRES_URL)

Prints the time of each phase and the total; the goal is under 60 s for 1,000 mails. Servers are
started on free 127.0.0.1 ports by ``tests.servers`` and stopped afterwards.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, select

from app.config import Settings
from app.db.models import InboundMessage, OutboxMessage
from app.db.session import session_factory, transaction
from app.league.service import create_league
from app.mail.inbound import poll_once
from app.mail.send import send_once
from app.rules.amaryllis import format_sheet
from app.rules.amaryllis.generate import random_unit
from tests.servers import Dovecot, Pymap, SmtpSink, imap_append


def sheet_mails(n: int, to: str) -> list[bytes]:
    """``n`` entry mails from ``n`` players, each with a random valid unit (seeded)."""
    rng = random.Random(20261129)
    mails = []
    for i in range(n):
        unit = random_unit(rng, name=f"U{i}", lang="ja" if i % 2 else "en")
        body = format_sheet(unit, unit.lang).replace("\n", "\r\n")
        charset = "ISO-2022-JP" if i % 4 == 1 else "UTF-8"
        payload = body.encode("iso2022_jp_ext" if charset == "ISO-2022-JP" else "utf-8")
        mails.append(
            (
                f"From: player{i}@example.com\r\nTo: {to}\r\nSubject: entry\r\n"
                f"Message-ID: <bench-{i}-{uuid.uuid4().hex[:8]}@example.com>\r\nMIME-Version: 1.0\r\n"
                f"Content-Type: text/plain; charset={charset}\r\n\r\n"
            ).encode()
            + payload
            + b"\r\n"
        )
    return mails


def run(n: int, server: str, db_url: str | None) -> dict[str, float]:
    """Run the benchmark; return the phase times (s): store, process, send, total."""
    tmp = Path(tempfile.mkdtemp(prefix="mailbench"))
    url = db_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
    stack = []
    try:
        if server == "dovecot":
            dc = Dovecot().start()
            stack.append(dc)
            user = dc.add_user()
            imap_url, address = user.imap_url, user.address
        else:
            pm = Pymap().start()
            stack.append(pm)
            imap_url, address = pm.imap_url, "tourney@localhost"
        sink = SmtpSink().start()
        stack.append(sink)
        settings = Settings(
            database_url=url,
            imap_url=imap_url,
            smtp_url=sink.url,
            server_address=address,
            data_dir=tmp,
            rate_limit_per_day=10_000,
        )  # type: ignore[arg-type]
        factory = session_factory(url)
        now = dt.datetime.now(dt.timezone.utc)
        with transaction(factory) as s:
            create_league(s, "bench", entry_deadline=now + dt.timedelta(days=1), now=now)
        mails = sheet_mails(n, address)
        t0 = time.perf_counter()
        imap_append(imap_url, mails)
        t_append = time.perf_counter() - t0

        start = time.perf_counter()
        stored = poll_once(settings, factory, process=False)
        t_store = time.perf_counter() - start
        from app.mail.pipeline import process_pending

        processed = process_pending(settings, factory)
        t_process = time.perf_counter() - start - t_store
        report = send_once(settings, factory)
        sink.wait_for(n, timeout=120)
        total = time.perf_counter() - start
        t_send = total - t_store - t_process
        with factory() as s:
            done = s.scalar(
                select(func.count())
                .select_from(InboundMessage)
                .where(InboundMessage.status == "done")
            )
            sent = s.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.status == "sent")
            )
        print(f"server={server} db={'postgresql' if db_url else 'sqlite'} mails={n}")
        print(f"  APPEND (setup, not timed)   {t_append:7.2f} s")
        print(f"  store + mark (IMAP)         {t_store:7.2f} s   stored={stored}")
        print(
            f"  process (decode..enqueue)   {t_process:7.2f} s   processed={processed} done={done}"
        )
        print(
            f"  send (SMTP to sink)         {t_send:7.2f} s   {report}  sink={len(sink.messages)}"
        )
        print(
            f"  TOTAL mailbox -> sink       {total:7.2f} s   ({n / total:.0f} mails/s)  "
            f"{'OK' if total < 60 and sent == n and done == n else 'FAIL'} (goal < 60 s)"
        )
        factory.kw["bind"].dispose()
        return {"store": t_store, "process": t_process, "send": t_send, "total": total}
    finally:
        for item in reversed(stack):
            item.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mails", type=int, default=1000)
    ap.add_argument("--server", choices=("dovecot", "pymap"), default="dovecot")
    ap.add_argument("--postgres", action="store_true", help="use a scratch PostgreSQL database")
    args = ap.parse_args()
    db_url = None
    if args.postgres:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        base = os.environ.get(
            "AMARYLLIS_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        )
        name = f"mailbench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(make_url(base).set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        db_url = make_url(base).set(database=name).render_as_string(hide_password=False)
        try:
            run(args.mails, args.server, db_url)
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        return
    run(args.mails, args.server, None)


if __name__ == "__main__":
    main()
