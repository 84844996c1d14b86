"""The web view over HTTP (a real uvicorn on 127.0.0.1, leagues made by the league service, on
SQLite and PostgreSQL): every page in both languages, the JSON twins against the published
schema, CSV, Atom, languages, headers, URLs."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import jsonschema
import pytest

from tests.web.conftest import Site, all_urls

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "app" / "web" / "schemas" / "web.v2.json"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _kind_validator(validator, kind: str):  # type: ignore[no-untyped-def]
    """A validator of the page kind's own definition (so that the top-level dispatch on
    ``kind`` cannot pass a document vacuously)."""
    name = {"round": "roundPage", "player": "player_page"}.get(kind, kind)
    schema = dict(validator.schema)
    schema = {**schema, "$ref": f"#/$defs/{name}"}
    schema.pop("allOf")
    return type(validator)(schema, format_checker=validator.FORMAT_CHECKER)


def test_every_url_answers_in_both_languages(site: Site) -> None:
    urls = all_urls(site)
    assert len(urls) > 60  # the crawl found the leagues, rounds, battles and players
    for url in urls:
        r = site.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
        lang = url.rsplit("lang=", 1)[1]
        if r.headers["content-type"].startswith("text/html"):
            assert f'<html lang="{lang}">' in r.text, url
            assert r.headers["content-language"] == lang


def test_json_twins_validate_against_the_published_schema(site: Site, validator) -> None:
    docs = [site.get(u).json() for u in all_urls(site, langs=("en",)) if ".json" in u]
    kinds = {d["kind"] for d in docs}
    assert kinds == {"index", "league", "round", "battle", "player", "rules"}
    for doc in docs:
        validator.validate(doc)
        _kind_validator(validator, doc["kind"]).validate(doc)
    served = site.get("/schemas/web.v2.json")
    assert served.headers["content-type"].startswith("application/schema+json")
    assert served.json() == validator.schema


def test_the_schema_rejects_what_it_does_not_describe(site: Site, validator) -> None:
    doc = site.get("/leagues/spring.json").json()
    bad = json.loads(json.dumps(doc))
    bad["standings"]["rows"][0]["entry"]["player"]["address"] = "x@example.org"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)
    bad = json.loads(json.dumps(doc))
    bad["rounds"][0]["boards"][0]["winner"] = "C"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


def test_language_from_accept_language_then_a_switch_that_sticks(site: Site) -> None:
    assert 'lang="ja"' in site.get("/").text  # no preference: Japanese
    assert 'lang="en"' in site.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"}).text
    assert 'lang="ja"' in site.get("/", headers={"Accept-Language": "fr, ja;q=0.5"}).text
    r = site.get("/leagues/spring?lang=en", headers={"Accept-Language": "ja"})
    assert 'lang="en"' in r.text and "Standings" in r.text
    cookie = r.cookies.get("lang")
    assert cookie == "en"
    assert "httponly" in r.headers["set-cookie"].lower()
    again = site.get("/", headers={"Accept-Language": "ja", "Cookie": f"lang={cookie}"})
    assert 'lang="en"' in again.text and "Leagues" in again.text
    assert 'lang="ja"' in site.get("/leagues/spring?lang=ja").text
    # the switch links keep the other parameters
    assert (
        'href="/leagues/spring?xr=1&amp;lang=ja"' in site.get("/leagues/spring?xr=1&lang=en").text
    )


def test_strict_headers_on_every_kind_of_response(site: Site) -> None:
    for path in (
        "/",
        "/leagues/spring",
        "/leagues/spring.json",
        "/leagues/spring/standings.csv",
        "/feed.atom",
        "/static/site.css",
        "/nowhere",
    ):
        r = site.get(path)
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp
        assert "unsafe-inline" not in csp and "style-src 'self'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
    page = site.get("/leagues/spring").text
    assert "<script" not in page and " style=" not in page and "<style" not in page
    assert site.get("/leagues/spring.json").headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-origin" not in site.get("/leagues/spring").headers


def test_urls_are_stable_and_readable(site: Site) -> None:
    r = site.get("/leagues/SPRING", follow_redirects=False)
    assert r.status_code == 301 and r.headers["location"] == "/leagues/spring"
    haru = site.get("/leagues/" + quote("春"))
    assert haru.status_code == 200 and "プレイヤー0" in haru.text
    assert site.get("/leagues/nothing").status_code == 404
    assert site.get("/leagues/nothing.json").json() == {
        "kind": "error",
        "status": 404,
        "error": "not found",
    }
    assert site.get("/leagues/spring/battles/999999").status_code == 404
    assert site.get("/leagues/spring/battles/x1").status_code == 404
    assert site.get("/players/999999").status_code == 404
    assert site.get("/rules/nosuch").status_code == 404
    assert httpx_post(site, "/leagues/spring") == 405


def httpx_post(site: Site, path: str) -> int:
    import httpx

    return httpx.post(site.base + path, timeout=30).status_code


def test_league_page_shows_settings_standings_cross_table_rounds_and_schedule(site: Site) -> None:
    doc = site.get("/leagues/spring.json").json()
    assert doc["league"]["state"] == "finished" and doc["after_round"] == 5
    assert len(doc["standings"]["rows"]) == 5 and len(doc["rounds"]) == 5
    assert all(len(r["boards"]) == 3 for r in doc["rounds"])  # 2 battles and a bye each
    assert sum(s["byes"] for s in doc["standings"]["rows"]) == 5
    page = site.get("/leagues/spring?lang=en").text
    for heading in ("Settings", "Standings", "Cross-table", "Schedule", "Rounds"):
        assert f"<h2>{heading}</h2>" in page
    for column in ("H2H", "SB", "HP", "Byes", "head-to-head", "Sonneborn-Berger", "HP margin"):
        assert column in page
    # the cross-table: every pair met once, both cells link to the same battle
    cells = {(c["row"], c["col"]): c["battles"] for c in doc["cross_table"]["cells"]}
    assert len(cells) == 5 * 4
    for (row, col), battles in cells.items():
        assert [b["battle"] for b in battles] == [b["battle"] for b in cells[(col, row)]]
        mirror = {"W": "L", "L": "W", "D": "D"}
        assert [mirror[b["result"]] for b in battles] == [b["result"] for b in cells[(col, row)]]
        assert f'href="{battles[0]["url"]}"' in page
    # standings points agree with the cross-table
    for s in doc["standings"]["rows"]:
        mine = [b for (row, _), bs in cells.items() if row == s["entry"]["entry"] for b in bs]
        assert s["wins"] == sum(b["result"] == "W" for b in mine)
        assert s["points"] == 3 * s["wins"] + s["draws"]


def test_round_page_and_running_league(site: Site) -> None:
    doc = site.get("/leagues/" + quote("春") + ".json").json()
    assert doc["league"]["state"] == "running" and doc["league"]["next_round"] == 2
    assert doc["league"]["next_round_at"].endswith("Z")
    states = [r["state"] for r in doc["rounds"]]
    assert states == ["done", "scheduled", "scheduled"]
    r2 = site.get(doc["rounds"][1]["url"] + ".json").json()
    assert [b["state"] for b in r2["round"]["boards"]] == ["pending", "pending"]
    assert site.get(doc["rounds"][1]["url"] + "?lang=ja").text.count("未対戦") == 2


def test_csv_files(site: Site) -> None:
    r = site.get("/leagues/spring/standings.csv")
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
    doc = site.get("/leagues/spring.json").json()
    assert [int(x["points"]) for x in rows] == [s["points"] for s in doc["standings"]["rows"]]
    assert {x["player"] for x in rows} >= {"Alice", "<script>alert(1)</script>"}
    battles = list(
        csv.DictReader(
            io.StringIO(site.get("/leagues/spring/battles.csv").content.decode("utf-8-sig"))
        )
    )
    assert len(battles) == 15 and sum(b["state"] == "bye" for b in battles) == 5
    # a name that a spreadsheet would run as a formula is quoted
    assert all((x["player"] or "x")[0] not in "=+-@" for x in rows)
    fought = [b for b in battles if b["state"] == "done"]
    turns = site.get(fought[0]["url"] + ".csv").content.decode("utf-8-sig")
    per_turn = list(csv.DictReader(io.StringIO(turns)))
    assert per_turn and {r["side"] for r in per_turn} == {"A", "B"}
    assert int(per_turn[-1]["turn"]) == int(fought[0]["turns"])


def test_atom_feeds(site: Site) -> None:
    feed = ET.fromstring(site.get("/leagues/spring/feed.atom?lang=en").content)
    entries = feed.findall(f"{ATOM}entry")
    titles = [e.findtext(f"{ATOM}title") for e in entries]
    assert titles[:5] == [f"League spring: results of round {n}" for n in (5, 4, 3, 2, 1)]
    assert titles[-1] == "League spring opened"
    link = entries[0].find(f"{ATOM}link").get("href")  # type: ignore[union-attr]
    assert link == site.base + "/leagues/spring/rounds/5"
    assert all(e.findtext(f"{ATOM}id").startswith("tag:example.net,") for e in entries)
    content = entries[0].findtext(f"{ATOM}content") or ""
    assert "Board 1:" in content and "<script>alert(1)</script>" in content or "bye" in content
    everything = ET.fromstring(site.get("/feed.atom").content)
    ids = [e.findtext(f"{ATOM}id") for e in everything.findall(f"{ATOM}entry")]
    assert len(ids) == len(set(ids)) and len(ids) >= 5 + 1 + 4
    assert everything.findtext(f"{ATOM}title") == "アマリリス リーグ"


def test_public_url_makes_feed_links_absolute(site: Site) -> None:
    import httpx

    from app.config import load_settings
    from app.web.server import start_web

    settings = load_settings(
        database_url=site.db_url,
        server_address="league@example.net",
        public_url="https://example.org/amaryllis/",
    )
    server = start_web(settings, host="127.0.0.1", port=0, access_log=False)
    try:
        feed = ET.fromstring(httpx.get(server.url + "/leagues/spring/feed.atom").content)
    finally:
        server.shutdown()
    links = [x.get("href") for x in feed.iter(f"{ATOM}link")]
    assert links and all(h.startswith("https://example.org/amaryllis/") for h in links)
    assert "https://example.org/amaryllis/leagues/spring" in links


def test_battle_page_shows_both_sheets_the_log_states_and_an_svg_chart(site: Site) -> None:
    doc = site.get("/leagues/spring.json").json()
    board = next(b for r in doc["rounds"] for b in r["boards"] if b["state"] == "done")
    battle = site.get(board["url"] + ".json?lang=en").json()
    assert battle["sheets"]["A"]["text"] and battle["sheets"]["B"]["text"]
    report = battle["report"]
    assert report is not None and report["lang"] == "en"
    assert report["turns"][-1]["turn"] == board["turns"]
    last = report["turns"][-1]["states"]
    assert [s["hp"] for s in last["A"]] == [board["hp"][0]]
    assert [s["hp"] for s in last["B"]] == [board["hp"][1]]
    assert battle["outcome"]["winner"] == {"A": 0, "B": 1, None: None}[board["winner"]]
    page = site.get(board["url"] + "?lang=en").text
    assert (
        "<svg" in page
        and "<polyline" in page
        and page.count('class="turn"') == len(report["turns"])
    )
    for turn in report["turns"]:
        for side in ("A", "B"):
            for state in turn["states"][side]:
                assert _text(state["text"]) in page
    ja = site.get(board["url"] + ".json?lang=ja").json()["report"]
    assert ja["lang"] == "ja" and ja["verdict"] != report["verdict"]


def _text(value: str) -> str:
    import html

    return html.escape(value, quote=True)


def test_player_page_lists_entries_and_results_by_public_name(site: Site) -> None:
    doc = site.get("/leagues/spring.json").json()
    masked = next(
        s
        for s in doc["standings"]["rows"]
        if s["entry"]["player"]["name"].startswith(("Nameless ", "名無しの"))
    )
    assert "#" not in masked["entry"]["player"]["name"]  # a readable default, not an id
    player = site.get(masked["entry"]["player"]["url"] + ".json").json()
    assert player["player"]["name"] == masked["entry"]["player"]["name"]
    (entry,) = player["entries"]
    assert entry["league"] == "spring" and entry["standing"]["points"] == masked["points"]
    assert len(entry["boards"]) == 5  # four battles and a bye
    page = site.get(masked["entry"]["player"]["url"] + "?lang=en").text
    assert page.count('class="res ') == 4
    # the rating across leagues: one rating period per round played (the bye is not a game)
    (rating,) = player["ratings"]  # one game played: one rating
    assert rating["ruleset"] == "amaryllis" and rating["games"] == 4
    assert [h["league"] for h in rating["history"]] == ["spring"] * 4
    assert (
        rating["history"][0]["before"] == 0 and rating["history"][-1]["after"] == rating["ordinal"]
    )
    assert f"{rating['ordinal']:.2f}" in page and "Rating" in page
    ja = site.get(masked["entry"]["player"]["url"] + "?lang=ja").text
    assert "レーティング" in ja


def test_rules_page_has_examples_in_both_notations(site: Site) -> None:
    doc = site.get("/rules/amaryllis.json").json()
    assert {e["lang"] for e in doc["examples"]} == {"ja", "en"}
    assert all(e["normalized"] and e["costs"] for e in doc["examples"])
    page = site.get("/rules/amaryllis?lang=ja").text
    for ex in doc["examples"]:
        assert _text(ex["sheet"].splitlines()[0]) in page
