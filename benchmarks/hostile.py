"""Benchmark: the worst inputs of issue #8 (and a few more of their kind), each processed by the
real pipeline (decode, grammar, protection chain, command, reply rendered and queued) on SQLite.

Run by hand::

    .venv/bin/python benchmarks/hostile.py            # every case, 3 runs each, the best kept
    .venv/bin/python benchmarks/hostile.py --runs 1 --case colons

Prints, per case, the mail's size, the time of ``pipeline.process_one`` and that time per
100 KB of mail; the goal is well under a second per 100 KB for every case (before the fix: a
~100 KB line of colons took 113 s, 30,000 nested ``<div>`` 70 s). Timings live here, never in
tests (``tests/mail/test_hostile.py`` bounds the work instead).
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import Settings
from app.db.models import InboundMessage
from app.db.session import session_factory, transaction
from app.league.service import create_league
from app.mail.pipeline import process_one

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.timezone.utc)
BOLT = "Bolt: 10/2/2/2/Spark, Spark\r\n- Spark (1): Direct Attack\r\n"


def mail(
    body: bytes | str,
    *,
    subject: str = "entry",
    ctype: str = "text/plain; charset=utf-8",
    headers: str = "",
    sender: str = "p@example.org",
    cte: str = "",
) -> bytes:
    head = (
        f"{headers}From: {sender}\r\nTo: tourney@localhost\r\nSubject: {subject}\r\n"
        f"Message-ID: <{random.random()}@bench>\r\nMIME-Version: 1.0\r\nContent-Type: {ctype}\r\n"
        + (f"Content-Transfer-Encoding: {cte}\r\n" if cte else "")
        + "\r\n"
    )
    return head.encode() + (body if isinstance(body, bytes) else body.encode("utf-8"))


def b64(text: str, ctype: str = "text/plain; charset=utf-8", **kw: str) -> bytes:
    """A body sent base64-encoded, as clients send long lines: the decoder then sees the long
    line whole (a raw 8-bit line is already cut to 8 KB before MIME parsing)."""
    return mail(
        base64.encodebytes(text.encode("utf-8")).decode().replace("\n", "\r\n"),
        ctype=ctype,
        cte="base64",
        **kw,
    )


def cases() -> dict[str, bytes]:
    """name -> a raw mail of about 100 KB (the worst shapes known for each part)."""
    rnd = random.Random(8)
    html = "text/html; charset=utf-8"
    parts = "".join(
        f"--P\r\nContent-Type: text/plain; charset=x-unknown-{i}\r\n\r\n{i}\r\n"
        for i in range(2500)
    )
    return {
        "colons-raw": mail("a" + ":" * 80_000 + "//\r\n"),  # issue #8.2: _UNIT_LINE
        "colons-base64": b64("a" + ":" * 75_000 + "//\r\n"),
        "password-spaces": b64("password: " + " " * 75_000 + "x\r\n" + BOLT),  # _PASSWORD
        "attribution": b64("wrote " * 12_000 + "\r\n> quoted\r\n"),  # _ATTRIBUTION
        "colon-spaces": mail(("x:" + " " * 50 + "\r\n") * 1_900),
        "nested-divs": b64("<div>" * 30_000 + BOLT + "</div>" * 30_000, html),  # 400 KB encoded
        "html-lt": b64("<" * 75_000, html),
        "html-open-comment": b64("<!--" + "-" * 75_000, html),
        "html-attributes": b64("<a " + 'b="c" ' * 12_000 + ">x</a>", html),
        "blank-lines": mail("\r\n" * 50_000 + BOLT),
        "quoted-lines": mail("> q\r\n" * 20_000 + BOLT),
        "reply-prefixes": mail(BOLT, subject="Re: " * 25_000 + "entry"),
        "subject-spaces": mail(BOLT, subject="re" + " " * 100_000 + "x"),
        "long-from": mail(BOLT, sender="(" * 20_000 + "a@b.c" + ")" * 20_000),
        "from-commas": mail(BOLT, sender="a@b.c, " * 14_000),
        "auth-results": mail(
            BOLT,
            headers="Authentication-Results: mx.example.net; dkim=pass "
            + "(" * 30_000
            + ")" * 30_000
            + "\r\n",
        ),
        "undeclared-bytes": mail(
            bytes(rnd.randrange(128, 256) for _ in range(100_000)), ctype="text/plain"
        ),
        "many-parts": mail(parts + "--P--\r\n", ctype='multipart/mixed; boundary="P"'),
        "long-part-headers": mail(
            "".join(
                f'--P\r\nContent-Type: text/plain; x="{"a" * 60_000}"\r\n\r\n{i}\r\n'
                for i in range(2)
            )
            + "--P--\r\n",
            ctype='multipart/mixed; boundary="P"',
        ),
        "nested-divs-raw": mail("<div>" * 30_000 + BOLT + "</div>" * 30_000, ctype=html),
        "bad-sheet-lines": mail(
            "Junk: 10/1/1/1/A\r\n" + "".join(f"- A{i} (1): Nonsense\r\n" for i in range(5_000))
        ),
        "base64-nul": mail(
            base64.encodebytes(("\x00" * 70_000 + BOLT).encode()).decode(), cte="base64"
        ),
    }


def run(runs: int, only: str | None) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="hostilebench"))
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    factory = session_factory(url)
    settings = Settings(
        database_url=url,
        data_dir=tmp,
        server_address="tourney@localhost",
        rate_limit_per_day=100_000,
        unknown_replies_per_hour=100_000,
    )
    with transaction(factory) as s:
        create_league(s, "spring", entry_deadline=NOW + dt.timedelta(days=7), now=NOW)
    worst = 0.0
    print(f"{'case':<20} {'size':>9} {'best s':>9} {'s/100KB':>9}  status")
    for n, (name, raw) in enumerate(cases().items()):
        if only and name != only:
            continue
        raw = raw.replace(b"From: p@example.org", f"From: p{n}@example.org".encode(), 1)
        best = None
        status = ""
        for _ in range(runs):
            with transaction(factory) as s:
                row = InboundMessage(
                    message_key=f"<{random.random()}@bench>",
                    raw=raw,
                    size=len(raw),
                    status="stored",
                    sender="",
                    subject="",
                )
                s.add(row)
                s.flush()
                rid = row.id
            t0 = time.perf_counter()
            status = process_one(settings, factory, rid, now=NOW) or ""
            took = time.perf_counter() - t0
            best = took if best is None else min(best, took)
        assert best is not None
        per = best / (len(raw) / 100_000)
        worst = max(worst, per)
        print(f"{name:<20} {len(raw):>9,} {best:>9.3f} {per:>9.3f}  {status}")
    print(f"worst: {worst:.3f} s per 100 KB (goal: well under 1 s)")
    return 0 if worst < 1.0 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--case", default=None)
    args = ap.parse_args()
    os.environ.setdefault("AMARYLLIS_CONFIG", "")
    return run(args.runs, args.case)


if __name__ == "__main__":
    raise SystemExit(main())
