"""Issue 20: the web view answers only the hosts it knows (feed links never follow a forged Host
header) and bounds how long a request may take to arrive, how long an idle connection stays and
how many are open. A real uvicorn on 127.0.0.1 (``start_web``), raw sockets and httpx; every wait
is for a condition."""

from __future__ import annotations

import datetime as dt
import socket
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import load_settings
from app.db.session import session_factory, transaction, upgrade
from app.web.server import start_web

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    from app.league import service

    url = f"sqlite:///{tmp_path_factory.mktemp('hosts') / 'web.sqlite3'}"
    upgrade(url)
    factory = session_factory(url, migrate=False)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    with transaction(factory) as s:
        service.create_league(s, "spring", entry_deadline=now + dt.timedelta(days=7), now=now)
    factory.kw["bind"].dispose()
    return url


def _serve(db_url: str, tmp_path: Path, **settings: object) -> Iterator[str]:
    server = start_web(
        load_settings(database_url=db_url, data_dir=tmp_path, **settings),
        host="127.0.0.1",
        port=0,
        access_log=False,
    )
    try:
        yield server.url
    finally:
        server.shutdown()


def _feed_links(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [x.get("href") or "" for x in ET.fromstring(response.content).iter(f"{ATOM}link")]


@pytest.mark.parametrize(
    ("settings", "good", "bad", "base"),
    [
        (
            {"web_allowed_hosts": ["leagues.example.org"]},
            "leagues.example.org",
            "evil.test",
            "http://leagues.example.org/",
        ),
        (
            {"web_allowed_hosts": ["*.example.org"]},
            "a.example.org:8080",
            "example.org",
            "http://a.example.org:8080/",
        ),
        (
            {"public_url": "https://example.org/amaryllis"},
            "example.org",
            "evil.test",
            "https://example.org/amaryllis/",
        ),
        ({}, "localhost:1234", "evil.test", "http://localhost:1234/"),
    ],
)
def test_feed_links_follow_only_allowed_hosts(
    settings: dict, good: str, bad: str, base: str, db_url: str, tmp_path: Path
) -> None:
    for url in _serve(db_url, tmp_path, **settings):
        links = _feed_links(httpx.get(url + "/leagues/spring/feed.atom", headers={"Host": good}))
        assert links and all(link.startswith(base) for link in links)
        forged = httpx.get(url + "/feed.atom", headers={"Host": bad})
        assert forged.status_code == 400 and bad.encode() not in forged.content
        assert httpx.get(url + "/", headers={"Host": bad}).status_code == 400  # every page
        assert forged.headers["x-content-type-options"] == "nosniff"  # still our headers
        # the loopback address the view listens on is always answered
        assert httpx.get(url + "/").status_code == 200


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def _closed_by_server(sock: socket.socket, *, trickle: bytes = b"", within: float = 60.0) -> bytes:
    """Read until the server closes ``sock`` (sending ``trickle`` every 0.2 s meanwhile);
    return what it sent. Fails when it is still open after ``within`` seconds (generous)."""
    sock.settimeout(0.2)
    got = b""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
            if not data:
                return got
            got += data
        except TimeoutError:
            pass
        except ConnectionResetError:
            return got
        if trickle:
            try:
                sock.sendall(trickle)
            except (BrokenPipeError, ConnectionResetError):
                return got
    raise AssertionError(f"still open after {within} s; got {got[:200]!r}")


REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def test_requests_and_idle_connections_are_bounded(db_url: str, tmp_path: Path) -> None:
    for url in _serve(
        db_url, tmp_path, web_header_timeout=1, web_keepalive_timeout=1, web_max_connections=5
    ):
        # an idle keep-alive connection is closed after its response
        with _connect(url) as sock:
            sock.sendall(REQUEST)
            assert _closed_by_server(sock).startswith(b"HTTP/1.1 200 ")
        # a second request trickling in after a first one is dropped, though every byte
        # reset uvicorn's own keep-alive timer
        with _connect(url) as sock:
            sock.sendall(REQUEST + b"GET / HTTP/1.1\r\n")
            got = _closed_by_server(sock, trickle=b"X-Slow: 1\r\n")
            assert got.count(b"HTTP/1.1 ") == 1 and got.startswith(b"HTTP/1.1 200 ")
        # a connection that sends nothing is dropped too
        with _connect(url) as sock:
            assert _closed_by_server(sock) == b""
        # at most 5 open: the sixth is told 503 and closed, and the five are dropped in time
        held = [_connect(url) for _ in range(5)]
        try:
            time.sleep(0.2)  # let the server accept them (a wait, not an assertion)
            with _connect(url) as sixth:
                busy = _closed_by_server(sixth)
            assert busy.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
            assert all(_closed_by_server(s) == b"" for s in held)
        finally:
            for s in held:
                s.close()
        # and the view answers again
        assert httpx.get(url + "/").status_code == 200
