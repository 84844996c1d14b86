"""Issue 20: one date form on every page (``2026-12-04 01:35 UTC``, ``app.reports.dates``), the
machine forms kept where machines read (``<time datetime>``, JSON, Atom ``<updated>``). A real
uvicorn over a league built by the league service: open (a deadline), running (rounds due and
played)."""

from __future__ import annotations

import datetime as dt
import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx

from app.config import load_settings
from app.db.session import session_factory, transaction, upgrade
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.web.server import start_web
from tests.league.helpers import sheet_text

HUMAN = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MACHINE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d{2}:\d{2}(:\d{2})?Z\b")
T0 = dt.datetime(2026, 12, 1, 12, 0, 17, tzinfo=dt.timezone.utc)  # seconds, as a real clock has


def _visible(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", " ", page))


def _only_human(text: str, where: str) -> int:
    assert not MACHINE.search(text), (where, MACHINE.search(text))
    for found in DATE.finditer(text):
        assert HUMAN.match(text, found.start()), (where, text[found.start() : found.start() + 30])
    return len(DATE.findall(text))


def test_pages_and_feeds_show_times_in_one_human_form(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    upgrade(url)
    factory = session_factory(url, migrate=False)
    settings = load_settings(
        database_url=url, data_dir=tmp_path, server_address="league@example.net"
    )
    with transaction(factory) as s:
        run = svc.create_league(
            s,
            "run",
            entry_deadline=T0 + dt.timedelta(days=1),
            rounds_every=dt.timedelta(days=2),
            now=T0,
        )
        svc.create_league(s, "later", entry_deadline=T0 + dt.timedelta(days=9, seconds=42), now=T0)
        for i in range(3):
            p = svc.get_or_create_player(s, f"p{i}@example.org", display_name=f"P{i}", lang="en")
            assert svc.submit_entry(s, run, p, sheet_text(i, "en"), now=T0).accepted
        svc.close_entries(s, run, now=T0 + dt.timedelta(days=1, seconds=5))
    svc.run_round(
        factory, LeagueMail.of(settings), "run", now=T0 + dt.timedelta(days=1, minutes=3, seconds=9)
    )
    factory.kw["bind"].dispose()
    server = start_web(settings, host="127.0.0.1", port=0, access_log=False)
    seen = 0
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for lang in ("en", "ja"):
                for path in (
                    "/",
                    "/leagues/run",
                    "/leagues/later",
                    "/leagues/run/rounds/1",
                    "/leagues/run/rounds/2",
                    "/players/1",
                ):
                    page = client.get(f"{path}?lang={lang}")
                    assert page.status_code == 200, path
                    seen += _only_human(_visible(page.text), f"{path} {lang}")
                    # the machine form stays in <time datetime>, ISO 8601
                    for stamp in re.findall(r'<time datetime="([^"]+)"', page.text):
                        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", stamp), stamp
                for path in ("/feed.atom", "/leagues/later/feed.atom"):
                    feed = ET.fromstring(client.get(f"{path}?lang={lang}").content)
                    for node in feed.iter():
                        tag = node.tag.rsplit("}", 1)[-1]
                        if tag in ("title", "content", "subtitle", "summary") and node.text:
                            seen += _only_human(node.text, f"{path} {tag}")
                        elif tag in ("updated", "published"):
                            assert MACHINE.search(node.text or ""), node.text  # RFC 3339 stays
            deadlines = [lg["entry_deadline"] for lg in client.get("/index.json").json()["leagues"]]
            assert len(deadlines) == 2 and all(  # JSON stays ISO 8601
                re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", d) for d in deadlines
            )
    finally:
        server.shutdown()
    assert seen >= 10
