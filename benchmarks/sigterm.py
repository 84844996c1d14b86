"""Benchmark: seconds from SIGTERM to the exit of ``amaryllis serve`` (issue 9.6) in three states:
idle (IMAP refused, empty outbox), blocked on a frozen IMAP server and a frozen SMTP relay
(socket timeouts of an hour), and in the middle of a 2,000-mail outbox pass. SQLite, run by hand:

    .venv/bin/python benchmarks/sigterm.py [--runs 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crash_loop import _wait_running  # noqa: E402  (benchmarks/, the script's folder)

from app.db.session import session_factory, transaction  # noqa: E402
from app.mail.compose import build_message  # noqa: E402
from app.mail.outbox import enqueue  # noqa: E402
from tests.servers import FaultySink, FrozenServer  # noqa: E402


def _serve(url: str, data: Path, imap: str, smtp: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        AMARYLLIS_DATABASE_URL=url,
        AMARYLLIS_DATA_DIR=str(data),
        AMARYLLIS_IMAP_URL=imap,
        AMARYLLIS_SMTP_URL=smtp,
        AMARYLLIS_WEB_PORT="0",
        AMARYLLIS_IMAP_TIMEOUT="3600",
        AMARYLLIS_SMTP_TIMEOUT="3600",
        AMARYLLIS_SEND_INTERVAL="0.2",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(proc: subprocess.Popen[bytes]) -> float:
    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(120)
    return time.monotonic() - t


def one(state: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        url = f"sqlite:///{tmp}/db.sqlite3"
        factory = session_factory(url)
        if state == "outbox":
            now = dt.datetime.now(dt.timezone.utc)
            with transaction(factory) as s:
                for i in range(2000):
                    enqueue(
                        s,
                        dedupe_key=f"t:{i}",
                        message=build_message(
                            sender="tourney@localhost",
                            to=f"p{i}@example.org",
                            subject="Re",
                            text="x",
                            now=now,
                        ),
                    )
        factory.kw["bind"].dispose()
        if state == "frozen":
            with FrozenServer("silent") as imap, FrozenServer("smtp") as relay:
                proc = _serve(url, data, f"imap://u:p@127.0.0.1:{imap.port}/INBOX", relay.url)
                _wait_running(data, proc, 600)
                time.sleep(1.5)
                return _stop(proc)
        with FaultySink() as sink:
            proc = _serve(url, data, "imap://u:p@127.0.0.1:9/INBOX", sink.url)
            _wait_running(data, proc, 600)
            if state == "outbox":
                sink.wait_for(50, timeout=120)
            else:
                time.sleep(1.5)
            return _stop(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    for state in ("idle", "frozen", "outbox"):
        times = [one(state) for _ in range(args.runs)]
        print(f"{state}: SIGTERM to exit {min(times):.2f}-{max(times):.2f} s ({args.runs} runs)")


if __name__ == "__main__":
    main()
