"""Issue 20, item 3: in a league whose format takes replacements between rounds (the
accumulating round robin), a replacement made after an update shows nowhere on the web — league
page, its JSON, ``standings.csv``, ``battles.csv``, rounds, battles, the player page, the feed,
in both languages — until the next update has fought it; then it shows. Pages through the real
web server."""

from __future__ import annotations

import datetime as dt

from app.db.session import transaction
from app.league import service as svc
from app.league.formats import set_format
from app.mail.league_mail import LeagueMail
from tests.web.conftest import T0, Site, all_urls, sheet

#: words only the replacement contains
NEW_WORDS = ("Vortexnova", "Glimmerspike")
OLD_UNIT = "Oldguard"


def _bodies(site: Site) -> dict[str, str]:
    return {
        url: site.get(url).text
        for url in all_urls(site)
        if "/leagues/acc" in url or "/players/" in url or url.startswith(("/?", "/index", "/feed"))
    }


def test_a_replacement_shows_nowhere_before_the_next_update_fights_it(site: Site) -> None:
    settings = LeagueMail.of(site.settings)
    t1 = T0 + dt.timedelta(days=3)
    with transaction(site.factory) as s:  # type: ignore[arg-type]
        league = svc.create_league(s, "acc", entry_deadline=T0 + dt.timedelta(days=2), now=T0)
        set_format(league, "accumulating", {"updates": 3})
        for i in range(3):
            p = svc.get_or_create_player(
                s, f"acc{i}@example.org", display_name=f"Acc {i}", lang="en"
            )
            unit = OLD_UNIT if i == 0 else f"Accunit{i}"
            assert svc.submit_entry(s, league, p, sheet(unit, i), now=T0).accepted
        svc.close_entries(s, league, now=t1)
    assert svc.run_round(site.factory, settings, "acc", now=t1) == [1]
    with transaction(site.factory) as s:  # type: ignore[arg-type]
        p0 = svc.get_or_create_player(s, "acc0@example.org")
        out = svc.submit_entry(
            s, svc.get_league(s, "acc"), p0, sheet(NEW_WORDS[0], 2, a1=NEW_WORDS[1]), now=t1
        )
        assert out.accepted and out.replaced
    bodies = _bodies(site)
    assert any("standings.csv" in u for u in bodies) and any("/players/" in u for u in bodies)
    for url, body in bodies.items():
        for word in NEW_WORDS:
            assert word not in body, (url, word)
    assert any(OLD_UNIT in body for url, body in bodies.items() if "/leagues/acc?" in url)
    doc = site.get("/leagues/acc.json").json()
    assert {r["entry"]["unit"] for r in doc["standings"]["rows"]} >= {OLD_UNIT}
    # the next update fights it: now it is public (the check above is not vacuous)
    assert svc.run_round(site.factory, settings, "acc", now=t1) == [2]
    seen = {word for body in _bodies(site).values() for word in NEW_WORDS if word in body}
    assert NEW_WORDS[0] in seen
