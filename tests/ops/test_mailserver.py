"""``amaryllis mailserver``: the embedded mail server as a command, so that ``serve`` on its
defaults has something to talk to on one machine. A real subprocess on free ports: mail to the
server's address lands in the IMAP mailbox, other mail is written to --out, SIGTERM stops it."""

from __future__ import annotations

import imaplib
import os
import signal
import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[str], deadline_s: float = 60.0) -> None:
    end = time.monotonic() + deadline_s  # a bound on waiting, not an assertion on speed
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"mailserver exited: {proc.communicate()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"port {port} never opened")


def test_mailserver_routes_mail_and_stops_on_sigterm(tmp_path: Path) -> None:
    imap_port, smtp_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "AMARYLLIS_IMAP_URL": f"imap://tourney:pw@127.0.0.1:{imap_port}/INBOX",
        "AMARYLLIS_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
        "AMARYLLIS_SERVER_ADDRESS": "tourney@localhost",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }  # this checkout's code
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "mailserver", "--out", str(out)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_port(smtp_port, proc)
        _wait_port(imap_port, proc)
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as smtp:
            smtp.sendmail(
                "alice@example.org",
                ["tourney+spring@localhost"],
                b"From: alice@example.org\r\nTo: tourney+spring@localhost\r\n"
                b"Subject: help\r\n\r\nhello\r\n",
            )
            smtp.sendmail(
                "tourney@localhost",
                ["alice@example.org"],
                b"From: tourney@localhost\r\nTo: alice@example.org\r\n"
                b"Subject: Re: help\r\n\r\nthe reply\r\n",
            )
        imap = imaplib.IMAP4("127.0.0.1", imap_port, timeout=30)
        imap.login("tourney", "pw")
        typ, data = imap.select("INBOX")
        assert (typ, data) == ("OK", [b"1"])
        imap.logout()
        written = sorted(p.name for p in out.iterdir())
        assert written == ["0001-alice@example.org.eml", "0001-alice@example.org.txt"]
        assert "the reply" in (out / "0001-alice@example.org.txt").read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "mail server: IMAP imap://tourney:***@127.0.0.1" in stdout and "pw@" not in stdout
