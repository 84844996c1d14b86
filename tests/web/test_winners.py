"""Issue 20: a finished league shows its winner (or the shared first places) on the index page
and in its JSON twin, whatever the format: rank 1 of the league's own standings. A real uvicorn
over leagues played to the end by the league service: a round robin with one winner, a round
robin whose first place is shared, a knockout; a running league shows none."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from pathlib import Path

import httpx
import jsonschema

from app.config import load_settings
from app.db.session import session_factory, transaction, upgrade
from app.league import service as svc
from app.league.formats import set_format
from app.mail.league_mail import LeagueMail
from app.web.server import start_web
from tests.league.helpers import DEADLINE, fill_league

SCHEMA = Path(__file__).resolve().parents[2] / "app" / "web" / "schemas" / "web.v2.json"
TWIN = "Twin: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def _build(url: str, settings) -> dict[str, list[int]]:  # type: ignore[no-untyped-def]
    """The leagues; returns each finished league's rank-1 entry ids by its own standings."""
    factory = session_factory(url, migrate=False)
    fill_league(factory, "solo", 4)
    fill_league(factory, "cup", 5)
    fill_league(factory, "going", 4)
    with transaction(factory) as s:  # two identical units: every game a draw, first place shared
        before = DEADLINE - dt.timedelta(days=1)
        twins = svc.create_league(s, "twins", entry_deadline=DEADLINE, now=before)
        for i in range(2):
            p = svc.get_or_create_player(
                s, f"t{i}@example.org", display_name=f"Twin {i}", lang="en"
            )
            assert svc.submit_entry(
                s, twins, p, TWIN.replace("Twin", f"Twin{i}"), now=before
            ).accepted
        set_format(svc.get_league(s, "cup"), "knockout", {})
        for name in ("solo", "cup", "going", "twins"):
            svc.close_entries(s, svc.get_league(s, name), now=DEADLINE)
    for name in ("solo", "cup", "twins"):
        svc.run_round(factory, LeagueMail.of(settings), name, all_rounds=True, now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), "going", now=DEADLINE)
    expected = {}
    with transaction(factory) as s:
        for name in ("solo", "cup", "twins", "going"):
            league = svc.get_league(s, name)
            rows = svc.standings(s, league)
            expected[name] = (
                [r.entry_id for r in rows if r.rank == 1] if league.state == "finished" else []
            )
    factory.kw["bind"].dispose()
    return expected


def test_finished_leagues_show_their_winners_on_the_index_and_its_json(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    upgrade(url)
    settings = load_settings(
        database_url=url, data_dir=tmp_path, server_address="league@example.net"
    )
    expected = _build(url, settings)
    assert len(expected["solo"]) == 1 and len(expected["cup"]) == 1 and len(expected["twins"]) == 2
    assert expected["going"] == []
    server = start_web(settings, host="127.0.0.1", port=0, access_log=False)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            doc = client.get("/index.json").json()
            jsonschema.validate(doc, json.loads(SCHEMA.read_text(encoding="utf-8")))
            by_name = {lg["name"]: lg for lg in doc["leagues"]}
            for name, ids in expected.items():
                assert [w["entry"] for w in by_name[name]["winners"]] == ids, name
            pages = {lang: client.get(f"/?lang={lang}").text for lang in ("en", "ja")}
    finally:
        server.shutdown()
    for lang, page in pages.items():
        finished = page[page.index('<section id="finished">') :]
        finished = finished[: finished.index("</section>")]
        assert ("Winner" if lang == "en" else "優勝") in finished
        rows = {
            re.search(r'href="/leagues/(\w+)"', r).group(1): r  # type: ignore[union-attr]
            for r in finished.split("<tr>")[2:]
        }
        assert set(rows) == {"solo", "cup", "twins"}  # "going" is still running
        for name, row in rows.items():
            winners = by_name[name]["winners"]
            for w in winners:
                shown = f'{html.escape(w["unit"])} (<a href="/players/{w["player"]["id"]}">'
                assert shown + html.escape(w["player"]["name"]) + "</a>)" in row, (name, row)
            assert (("shared first place" if lang == "en" else "同率首位") in row) == (
                len(winners) > 1
            )
