"""The web view in a real headless browser: Debian's chromium driven by Playwright (no browser
download), against the site of ``conftest.py`` served by uvicorn on 127.0.0.1 (SQLite).

Each page loads in ja and en with no console error (a Content-Security-Policy violation or a
failed sub-request is one), the cross-table links to the right battle, the language switch
sticks, a phone-sized viewport has no horizontal scroll, hostile names stay text, and
screenshots of the league and battle pages are written to ``test-artifacts/web/``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.services import skip_or_fail
from tests.web.conftest import ADDRESSES, HOSTILE_NAMES, HOSTILE_UNITS, Site

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"

pytestmark = pytest.mark.parametrize("site", ["sqlite"], indirect=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        skip_or_fail("Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("the playwright package is not installed")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


class Watched:
    """A page whose console errors, uncaught errors, dialogs and failed requests are recorded."""

    def __init__(self, context: object) -> None:
        self.page = context.new_page()  # type: ignore[attr-defined]
        self.problems: list[str] = []
        self.page.on(
            "console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}")
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))
        self.page.on(
            "dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss())
        )
        # A sub-request the browser cancels because the page navigated on (net::ERR_ABORTED,
        # e.g. the favicon of a page left at once) is not a failure of the server.
        self.page.on(
            "requestfailed",
            lambda r: (
                "ERR_ABORTED" not in (r.failure or "")
                and self.problems.append(f"failed: {r.url} ({r.failure})")
            ),
        )
        self.page.on(
            "response",
            lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"),
        )

    def open(self, url: str) -> object:
        self.problems.clear()
        self.page.goto(url, wait_until="load")
        return self.page


def _context(browser: object, lang: str, **kw: object) -> object:
    locale = {"ja": "ja-JP", "en": "en-US"}[lang]
    return browser.new_context(
        locale=locale,
        extra_http_headers={  # type: ignore[attr-defined]
            "Accept-Language": f"{locale},{lang};q=0.9"
        },
        **kw,
    )


def _pages(site: Site) -> list[str]:
    doc = site.get("/leagues/spring.json").json()
    battle = doc["rounds"][0]["boards"][0]["url"]
    player = doc["standings"]["rows"][0]["entry"]["player"]["url"]
    return [
        "/",
        "/leagues/spring",
        "/leagues/" + quote("春"),
        "/leagues/secret",
        "/leagues/listed",
        doc["rounds"][0]["url"],
        battle,
        player,
        "/rules/amaryllis",
        "/leagues/nothing-here-404",
    ]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_page_loads_without_a_console_error(site: Site, browser: object, lang: str) -> None:
    context = _context(browser, lang)
    try:
        w = Watched(context)
        for path in _pages(site):
            page = w.open(site.base + path)
            assert page.evaluate("document.documentElement.lang") == lang  # type: ignore[attr-defined]
            # the 404 page's own status is the one expected "error" (console and response)
            problems = [p for p in w.problems if not (path.endswith("-404") and "404" in p)]
            assert problems == [], (path, problems)
            assert page.evaluate("document.querySelectorAll('script').length") == 0  # type: ignore[attr-defined]
            # the stylesheet applied (CSP allows /static only)
            assert (
                page.evaluate(  # type: ignore[attr-defined]
                    "getComputedStyle(document.querySelector('header.site')).display"
                )
                == "flex"
            )
    finally:
        context.close()  # type: ignore[attr-defined]


def test_cross_table_cells_link_to_the_right_battle(site: Site, browser: object) -> None:
    doc = site.get("/leagues/spring.json").json()
    units = {s["entry"]["entry"]: s["entry"]["unit"] for s in doc["standings"]["rows"]}
    context = _context(browser, "en")
    try:
        w = Watched(context)
        page = w.open(site.base + "/leagues/spring")
        cells = page.locator("table.cross a.res")  # type: ignore[attr-defined]
        count = cells.count()
        assert count == 20
        for index in (0, 7, count - 1):
            page = w.open(site.base + "/leagues/spring")
            link = page.locator("table.cross a.res").nth(index)  # type: ignore[attr-defined]
            row = link.locator("xpath=ancestor::tr").locator("td.unit").inner_text()
            result = link.inner_text()
            link.click()
            page.wait_for_load_state("load")  # type: ignore[attr-defined]
            battle_id = int(page.url.rsplit("/", 1)[1])  # type: ignore[attr-defined]
            battle = site.get(f"/leagues/spring/battles/{battle_id}.json").json()["battle"]
            sides = {battle["a"]["unit"], battle["b"]["unit"]}
            assert row in sides and sides <= set(units.values())
            me = "A" if battle["a"]["unit"] == row else "B"
            expected = "D" if battle["winner"] is None else ("W" if battle["winner"] == me else "L")
            assert result == expected
            h1 = page.locator("h1").inner_text()  # type: ignore[attr-defined]
            assert battle["a"]["unit"] in h1 and battle["b"]["unit"] in h1
            assert w.problems == []
    finally:
        context.close()  # type: ignore[attr-defined]


def test_the_language_switch_sticks(site: Site, browser: object) -> None:
    context = _context(browser, "ja")
    try:
        w = Watched(context)
        page = w.open(site.base + "/leagues/spring")
        assert page.locator("h2").first.inner_text() == "設定"  # type: ignore[attr-defined]
        page.locator("nav.lang a[hreflang=en]").click()  # type: ignore[attr-defined]
        page.wait_for_load_state("load")  # type: ignore[attr-defined]
        assert page.evaluate("document.documentElement.lang") == "en"  # type: ignore[attr-defined]
        assert page.locator("h2").first.inner_text() == "Settings"  # type: ignore[attr-defined]
        page.locator("a.brand").click()  # type: ignore[attr-defined]
        page.wait_for_load_state("load")  # type: ignore[attr-defined]
        assert page.url == site.base + "/"  # type: ignore[attr-defined]
        assert page.locator("h1").inner_text() == "Leagues"  # type: ignore[attr-defined]
        page.locator("nav.lang a[hreflang=ja]").click()  # type: ignore[attr-defined]
        page.wait_for_load_state("load")  # type: ignore[attr-defined]
        page = w.open(site.base + "/leagues/spring")
        assert page.locator("h2").first.inner_text() == "設定"  # type: ignore[attr-defined]
        assert w.problems == []
    finally:
        context.close()  # type: ignore[attr-defined]


def test_phone_viewport_has_no_horizontal_scroll_and_screenshots(
    site: Site, browser: object
) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    doc = site.get("/leagues/spring.json").json()
    battle = next(b["url"] for r in doc["rounds"] for b in r["boards"] if b["state"] == "done")
    for lang in ("ja", "en"):
        context = _context(
            browser,
            lang,
            viewport={"width": 375, "height": 740},
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
        )
        try:
            w = Watched(context)
            for name, path in (("league", "/leagues/spring"), ("battle", battle), ("index", "/")):
                page = w.open(site.base + path)
                overflow = page.evaluate(  # type: ignore[attr-defined]
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, (path, overflow)
                assert w.problems == []
                if name != "index":
                    page.screenshot(
                        path=str(ARTIFACTS / f"{name}-phone-{lang}.png"),  # type: ignore[attr-defined]
                        full_page=True,
                    )
        finally:
            context.close()  # type: ignore[attr-defined]
        context = _context(browser, lang, viewport={"width": 1280, "height": 900})
        try:
            w = Watched(context)
            for name, path in (("league", "/leagues/spring"), ("battle", battle)):
                page = w.open(site.base + path)
                page.screenshot(
                    path=str(ARTIFACTS / f"{name}-desktop-{lang}.png"),  # type: ignore[attr-defined]
                    full_page=True,
                )
                assert (ARTIFACTS / f"{name}-desktop-{lang}.png").stat().st_size > 10_000
        finally:
            context.close()  # type: ignore[attr-defined]


def test_hostile_names_stay_text_in_the_browser(site: Site, browser: object) -> None:
    doc = site.get("/leagues/spring.json").json()
    hostile = next(
        b["url"]
        for r in doc["rounds"]
        for b in r["boards"]
        if b["url"] and (b["a"]["unit"] in HOSTILE_UNITS or b["b"]["unit"] in HOSTILE_UNITS)
    )
    context = _context(browser, "en")
    try:
        w = Watched(context)
        for path in ("/leagues/spring", hostile, "/leagues/spring/rounds/1"):
            page = w.open(site.base + path)
            assert w.problems == [], (path, w.problems)  # no dialog, no blocked script
            assert page.evaluate("document.querySelectorAll('script, img').length") == 0  # type: ignore[attr-defined]
            text = page.locator("main").inner_text()  # type: ignore[attr-defined]
            if path == "/leagues/spring":
                for name in (*HOSTILE_NAMES, *HOSTILE_UNITS):
                    assert name in text, name
            else:
                assert any(name in text for name in HOSTILE_UNITS)
    finally:
        context.close()  # type: ignore[attr-defined]


def _mail_html_parts(site: Site) -> dict[tuple[str, str], str]:
    """The HTML part of one report and one standings mail per language, from the outbox of the
    test site (spring's players read English, 春's Japanese; spring has the hostile names)."""
    import email
    from email import policy

    from sqlalchemy import select

    from app.db.models import OutboxMessage

    found: dict[tuple[str, str], str] = {}
    with site.factory() as s:  # type: ignore[operator]
        for row in s.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.kind.in_(("report", "standings")))
            .order_by(OutboxMessage.id)
        ):
            kind = row.kind
            msg = email.message_from_bytes(row.raw, policy=policy.default)
            part = msg.get_body(("html",))
            if part is None:
                continue
            html = part.get_content()
            lang = "ja" if '<html lang="ja">' in html else "en"
            found.setdefault((kind, lang), html)
    return found


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_mail_html_parts_render_without_a_console_error(
    site: Site, browser: object, lang: str
) -> None:
    """The HTML part of a report and of a standings mail, as a mail client gets them: no console
    error, no script, image, SVG, stylesheet link or <style> (inline styles only), hostile names
    as text, the winner marked and HP bars drawn, at a phone's width."""
    parts = _mail_html_parts(site)
    context = _context(browser, lang, viewport={"width": 390, "height": 844})
    try:
        w = Watched(context)
        for kind in ("report", "standings"):
            html = parts[(kind, lang)]
            w.problems.clear()
            page = w.page
            page.set_content(html, wait_until="load")  # type: ignore[attr-defined]
            assert w.problems == [], (kind, w.problems)
            assert page.evaluate("document.documentElement.lang") == lang  # type: ignore[attr-defined]
            assert (
                page.evaluate(  # type: ignore[attr-defined]
                    "document.querySelectorAll('script, img, svg, link, style, [class]').length"
                )
                == 0
            )
            text = page.inner_text("body")  # type: ignore[attr-defined]
            assert not [a for a in ADDRESSES if a in text]  # players by public name only
            if kind == "report":
                assert ("★" in text) or ("引き分け" in text) or ("Draw" in text)
                bars = page.evaluate(  # type: ignore[attr-defined]
                    "document.querySelectorAll('table[width=\"120\"]').length"
                )
                assert bars > 0
        # the hostile names of spring (English) stay text in the standings
        if lang == "en":
            page = w.page
            page.set_content(parts[("standings", "en")], wait_until="load")  # type: ignore[attr-defined]
            text = page.inner_text("body")  # type: ignore[attr-defined]
            assert HOSTILE_NAMES[0] in text
        assert w.problems == []
    finally:
        context.close()  # type: ignore[attr-defined]
