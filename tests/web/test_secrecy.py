"""Secrecy and privacy over every response of the web view (pages in both languages, JSON
twins, CSV, Atom): an open league's sheets appear nowhere until entries close, no address ever
appears, and hostile names are escaped everywhere."""

from __future__ import annotations

import datetime as dt

import markupsafe

from app.db.models import League
from app.db.session import transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from tests.web.conftest import (
    ADDRESSES,
    HOSTILE_NAMES,
    HOSTILE_UNITS,
    LISTED_SECRET,
    LISTED_UNIT,
    SECRET_WORDS,
    T0,
    Site,
    all_urls,
)


def _everything(site: Site) -> dict[str, str]:
    return {url: site.get(url).text for url in all_urls(site)}


def test_open_leagues_show_no_sheet_anywhere_and_entrants_only_when_allowed(site: Site) -> None:
    bodies = _everything(site)
    assert any("/leagues/secret" in u for u in bodies) and any(
        "/leagues/listed" in u for u in bodies
    )
    for url, body in bodies.items():
        for word in (*SECRET_WORDS, LISTED_SECRET):
            assert word not in body, (url, word)
        if "/leagues/listed" not in url and "/players/" not in url:
            assert LISTED_UNIT not in body, url  # only the listed league and its players name it
    listed = site.get("/leagues/listed?lang=en").text
    assert f"{LISTED_UNIT}0" in listed and "Lister 1" in listed
    doc = site.get("/leagues/listed.json").json()
    assert doc["secret"] and doc["standings"] is None and doc["cross_table"] is None
    assert sorted(e["unit"] for e in doc["entrants"]) == [f"{LISTED_UNIT}0", f"{LISTED_UNIT}1"]
    secret = site.get("/leagues/secret.json").json()
    assert secret["entrants"] == [] and secret["league"]["entries"] == 3
    assert site.get("/leagues/secret/standings.csv").status_code == 404
    assert site.get("/leagues/secret/battles.csv").status_code == 404
    # a player entered only in an unlisted open league has no public page
    with site.factory() as s:  # type: ignore[operator]
        from sqlalchemy import select

        from app.db.models import Player

        pid = s.scalar(select(Player.id).where(Player.address == "s0@secret.example"))
    assert site.get(f"/players/{pid}").status_code == 404


def test_the_sheets_appear_once_entries_close(site: Site) -> None:
    """The same crawl after closing ``secret`` finds its sheets: the check above is not
    vacuous. (Runs after it: the module's site is shared.)"""
    with transaction(site.factory) as s:  # type: ignore[arg-type]
        svc.close_entries(s, svc.get_league(s, "secret"), now=T0 + dt.timedelta(days=31))
    svc.run_round(
        site.factory, LeagueMail.of(site.settings), "secret", now=T0 + dt.timedelta(days=31)
    )
    bodies = _everything(site)
    seen = {word for body in bodies.values() for word in SECRET_WORDS if word in body}
    assert seen == set(SECRET_WORDS)
    doc = site.get("/leagues/secret.json").json()
    assert not doc["secret"] and len(doc["standings"]["rows"]) == 3


def test_no_address_appears_anywhere(site: Site) -> None:
    bodies = _everything(site)
    for url, body in bodies.items():
        lowered = body.lower()
        for address in ADDRESSES:
            local, domain = address.split("@")
            assert address not in lowered, (url, address)
            assert f"{local}%40{domain}" not in lowered, (url, address)
        assert "league@example.net" not in lowered, url  # not even the server's own address
        assert "mailto:" not in lowered, url


def test_hostile_names_render_as_text(site: Site) -> None:
    bodies = _everything(site)
    html_pages = {
        u: b for u, b in bodies.items() if ".json" not in u and ".csv" not in u and ".atom" not in u
    }
    for url, body in html_pages.items():
        assert "<script" not in body.lower(), url
        assert "<img" not in body.lower(), url
    league = site.get("/leagues/spring?lang=en").text
    for name in (*HOSTILE_NAMES, *HOSTILE_UNITS):
        assert str(markupsafe.escape(name)) in league, name
    doc = site.get("/leagues/spring.json").json()
    names = {s["entry"]["player"]["name"] for s in doc["standings"]["rows"]}
    units = {s["entry"]["unit"] for s in doc["standings"]["rows"]}
    assert set(HOSTILE_NAMES) <= names and set(HOSTILE_UNITS) <= units  # JSON keeps the text
    feed = site.get("/leagues/spring/feed.atom").text
    assert "<script>" not in feed and "&lt;script&gt;" in feed


def test_the_web_view_never_writes(site: Site) -> None:
    import pytest
    from sqlalchemy import text

    from app.web.db import ReadOnlyError, read_only_engine, read_sessions, reading

    engine = read_only_engine(site.db_url)
    try:
        factory = read_sessions(engine)
        with reading(factory) as s:
            league = s.query(League).filter_by(name="spring").one()
            league.seed = "changed"
            with pytest.raises(ReadOnlyError):
                s.flush()
        with engine.connect() as conn, pytest.raises(Exception) as err:
            conn.execute(text("UPDATE leagues SET seed = 'x'"))
        assert (
            "readonly" in str(err.value).lower().replace("-", "").replace(" ", "")
            or "read-only" in str(err.value).lower()
            or "read only" in str(err.value).lower()
        )
    finally:
        engine.dispose()
