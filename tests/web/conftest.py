"""Fixtures of the web tests: leagues built through the league service on SQLite and on
PostgreSQL, and the web view served by a real uvicorn on 127.0.0.1 (``app.web.server``).

The site (module scope, once per database):

* ``spring`` (finished, 5 entries, so every round has a bye): players with hostile display names
  and units with hostile names (``HOSTILE_UNITS``), one player without a display name;
* ``春`` (running: round 1 of 3 played), a league name that must be percent-encoded;
* ``secret`` (open, entrants not listed) and ``listed`` (open, entrants listed): their sheets use
  action and unit names that appear nowhere else (``SECRET_WORDS``), for the secrecy tests.

Every player's address is in ``ADDRESSES``: none may appear in any response.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from app.config import load_settings
from app.db.models import League
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from tests.db.pgutil import fresh_postgres

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)

#: unit names that must render as text (the parser refuses "(" in a unit name, so the
#: parenthesised forms are tested as display names)
HOSTILE_UNITS = ("<script>alert&#40;1&#41;</script>", '"><img src=x onerror=alert&#40;2&#41;>')
HOSTILE_NAMES = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')
#: words only the sheets of the open leagues contain
SECRET_WORDS = ("Zephyrblade", "Quillstorm", "Nimbusguard", "Hiddenunit")
LISTED_UNIT = "Listedunit"
LISTED_SECRET = "Quasarfang"


def sheet(
    name: str, variant: int, *, a1: str = "Shield", a2: str = "Spear", a3: str = "Boost"
) -> str:
    """A valid Amaryllis sheet (English notation) of unit ``name``; ``variant`` 0-4 picks the
    build, so that battles have winners, losers and draws."""
    builds = (
        f"{name}: 10/1/1/2/{a1}, {a2}, {a2}, {a3}\n- {a1}: DEF+2 <Limited>\n"
        f"- {a2}: Direct Attack <Delay 4> <Effect x2>\n- {a3}: ATK+1\n",
        f"{name}: 10/3/1/1/{a1}, {a2}, {a3}\n- {a1}: Life <Limited>\n"
        f"- {a2}: HP Halving <Limited> <Delay 2>\n- {a3}: Piercing Attack <Delay 3>\n",
        f"{name}: 15/2/3/1/{a1}\n- {a1}: Direct Attack\n",
        f"{name}: 20/1/1/1/{a1}, {a2}, {a2}\n- {a1}: Full Heal <Limited> <Delay 5>\n"
        f"- {a2}: Direct Attack\n",
        f"{name}: 5/2/0/4/{a1}, {a1}, {a1}\n- {a1}: Direct Attack\n",
    )
    return builds[variant % len(builds)]


@dataclass
class Site:
    """The web view under test: its base URL, the database URL and the settings."""

    base: str
    db_url: str
    settings: object
    factory: object
    client: httpx.Client

    def get(self, path: str, **kw: object) -> httpx.Response:
        """GET ``path`` with no cookie kept between calls."""
        self.client.cookies.clear()
        return self.client.get(self.base + path, **kw)  # type: ignore[arg-type]


#: every address used by the site
ADDRESSES = (
    [f"p{i}@example.org" for i in range(5)]
    + [f"q{i}@example.net" for i in range(4)]
    + [f"s{i}@secret.example" for i in range(3)]
    + [f"l{i}@listed.example" for i in range(2)]
)


def build_site(db_url: str) -> None:
    """Create the leagues of the module docstring in the database at ``db_url``."""
    factory = session_factory(db_url)
    settings = load_settings(database_url=db_url, server_address="league@example.net")
    names = ["Alice", HOSTILE_NAMES[0], "", HOSTILE_NAMES[1], "Ève 山田"]
    units = ["Grisk", HOSTILE_UNITS[0], "Nut", HOSTILE_UNITS[1], "Iron Wall"]
    with transaction(factory) as s:
        spring = svc.create_league(s, "spring", entry_deadline=T0 + dt.timedelta(days=1), now=T0)
        for i in range(5):
            p = svc.get_or_create_player(s, f"p{i}@example.org", display_name=names[i], lang="en")
            assert svc.submit_entry(s, spring, p, sheet(units[i], i), now=T0).accepted
        haru = svc.create_league(
            s,
            "春",
            entry_deadline=T0 + dt.timedelta(days=1),
            rounds_every=dt.timedelta(days=1),
            now=T0,
        )
        for i in range(4):
            p = svc.get_or_create_player(
                s, f"q{i}@example.net", display_name=f"プレイヤー{i}", lang="ja"
            )
            assert svc.submit_entry(s, haru, p, sheet(f"ユニット{i}", i + 1), now=T0).accepted
        secret = svc.create_league(s, "secret", entry_deadline=T0 + dt.timedelta(days=30), now=T0)
        for i in range(3):
            p = svc.get_or_create_player(s, f"s{i}@secret.example", display_name=f"Secretive {i}")
            assert svc.submit_entry(
                s,
                secret,
                p,
                sheet(f"Hiddenunit{i}", i, a1="Zephyrblade", a2="Quillstorm", a3="Nimbusguard"),
                now=T0,
            ).accepted
        listed = svc.create_league(s, "listed", entry_deadline=T0 + dt.timedelta(days=30), now=T0)
        listed.show_entrants = True
        for i in range(2):
            p = svc.get_or_create_player(s, f"l{i}@listed.example", display_name=f"Lister {i}")
            assert svc.submit_entry(
                s, listed, p, sheet(f"{LISTED_UNIT}{i}", i, a1=LISTED_SECRET), now=T0
            ).accepted
    t1 = T0 + dt.timedelta(days=2)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "spring"), now=t1)
        svc.close_entries(s, svc.get_league(s, "春"), now=t1)
    svc.run_round(factory, LeagueMail.of(settings), "spring", all_rounds=True, now=t1)
    svc.run_round(factory, LeagueMail.of(settings), "春", now=t1)
    factory.kw["bind"].dispose()  # type: ignore[attr-defined]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The site of the module docstring, served on a free port of 127.0.0.1."""
    from app.web.server import start_web

    def serve(db_url: str) -> Iterator[Site]:
        build_site(db_url)
        settings = load_settings(
            database_url=db_url,
            server_address="league@example.net",
            data_dir=tmp_path_factory.mktemp("data"),
        )
        server = start_web(settings, host="127.0.0.1", port=0, access_log=False)
        factory = session_factory(db_url, migrate=False)
        try:
            with httpx.Client(timeout=30) as client:
                yield Site(server.url, db_url, settings, factory, client)
        finally:
            server.shutdown()
            factory.kw["bind"].dispose()

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'web.sqlite3'}"
        yield from serve(url)
    else:
        with fresh_postgres("amaryllis_web") as url:
            yield from serve(url)


def all_urls(site: Site, *, langs: tuple[str, ...] = ("ja", "en")) -> list[str]:
    """Every page, JSON twin, CSV and feed of the site (found by following the JSON documents),
    in both languages where it matters."""
    index = site.get("/index.json").json()
    paths = {"/", "/index.json", "/feed.atom", "/rules/amaryllis", "/rules/amaryllis.json"}
    for lg in index["leagues"]:
        doc = site.get(lg["url"] + ".json").json()
        paths |= {lg["url"], lg["url"] + ".json", doc["links"]["feed"]}
        if not doc["secret"]:
            paths |= {doc["links"]["standings_csv"], doc["links"]["battles_csv"]}
        for r in doc["rounds"]:
            paths |= {r["url"], r["url"] + ".json"}
            for b in r["boards"] or ():
                if b["url"]:
                    paths |= {b["url"], b["url"] + ".json", b["url"] + ".csv"}
        for e in doc["entrants"]:
            paths |= {e["player"]["url"], e["player"]["url"] + ".json"}
        for s in (doc["standings"] or {"rows": []})["rows"]:
            paths |= {s["entry"]["player"]["url"], s["entry"]["player"]["url"] + ".json"}
    data = (".json", ".csv", ".atom")
    return [
        f"{p}{'&' if '?' in p else '?'}lang={lang}"
        for p in sorted(paths)
        for lang in (langs[:1] if p.endswith(data) else langs)
    ]


def league_id(site: Site, name: str) -> int:
    with site.factory() as s:  # type: ignore[operator]
        return s.query(League).filter_by(name=name).one().id
