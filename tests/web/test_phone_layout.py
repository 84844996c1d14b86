"""Issue 20: the web view on a 390 px phone, in Debian's chromium through Playwright. The
standings and index tables scrolled sideways with no cue, and the HP chart's axis labels were
about 5 px tall. Now a table that scrolls shows a shadow at each edge that has more columns
beyond it (measured in the rendered pixels, before and after scrolling), and the chart's labels
are at least 11 px (measured: font size times the SVG's scale on screen)."""

from __future__ import annotations

import statistics
import struct
import zlib

import pytest

from tests.web.conftest import Site
from tests.web.test_browser import Watched, _context, browser  # noqa: F401 - fixture

pytestmark = pytest.mark.parametrize("site", ["sqlite"], indirect=True)

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 1,
    "is_mobile": True,
    "has_touch": True,
}

LABEL_PX = """() => [...document.querySelectorAll('figure.chart')]
  .filter(f => getComputedStyle(f).display !== 'none')
  .map(f => [...f.querySelectorAll('text.tick, text.axis')].map(t => {
     const m = t.getScreenCTM();
     const r = t.getBoundingClientRect();
     return {px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), left: r.left,
             right: r.right, top: r.top, x: t.classList.contains('tick')};
  }))"""


def _png_rows(png: bytes) -> list[list[tuple[int, int, int]]]:
    """The RGB pixels of an 8-bit RGB/RGBA PNG (as chromium writes screenshots), row by row
    (PNG spec §9: the five scanline filters undone)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and color in (2, 6)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp : x * bpp + 3]) for x in range(width)])
        prev = line
    return rows


def _edges(page, handle) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median brightness (0-255) of the 3 px bands at the left and right edge of ``handle``'s
    table body rows, as rendered."""
    rows = _png_rows(handle.screenshot())
    head = int(page.evaluate("e => e.querySelector('tbody').offsetTop", handle))
    body = rows[head + 2 :] or rows

    def band(xs: range) -> float:
        return statistics.median(sum(row[x]) / 3 for row in body for x in xs)

    width = len(body[0])
    return band(range(0, 3)), band(range(width - 3, width))


def test_tables_that_scroll_show_a_cue_and_chart_labels_are_readable(site: Site, browser) -> None:
    doc = site.get("/leagues/spring.json").json()
    battle = next(b["url"] for r in doc["rounds"] for b in r["boards"] if b["state"] == "done")
    for lang in ("ja", "en"):
        context = _context(browser, lang, **PHONE)
        try:
            w = Watched(context)
            scrolled = 0
            for path, selector in (
                ("/", "section .scroll"),
                ("/leagues/spring", "#standings .scroll"),
            ):
                page = w.open(site.base + path)
                assert w.problems == []
                for handle in page.query_selector_all(selector):
                    over = page.evaluate("e => e.scrollWidth - e.clientWidth", handle)
                    left, right = _edges(page, handle)
                    if over <= 4:  # fits: no cue at all
                        assert abs(left - right) < 8 and right > 230, (path, left, right)
                        continue
                    scrolled += 1
                    assert right < left - 25, (path, "no shadow at the right edge", left, right)
                    page.evaluate("e => { e.scrollLeft = e.scrollWidth; }", handle)
                    left2, right2 = _edges(page, handle)
                    assert left2 < right2 - 25, (path, "no shadow at the left edge", left2, right2)
            assert scrolled >= 2, "the index and standings tables should be wider than a phone"
            page = w.open(site.base + battle)
            [labels] = page.evaluate(LABEL_PX)
            sizes = sorted(t["px"] for t in labels)
            assert sizes and sizes[0] >= 11, sizes[:3]
            ticks = [t for t in labels if t["x"]]
            low = max(t["top"] for t in ticks)  # the x axis' labels: the lowest row of ticks
            ticks = sorted((t for t in ticks if abs(t["top"] - low) < 2), key=lambda t: t["left"])
            assert len(ticks) >= 2
            assert all(
                a["right"] <= b["left"] for a, b in zip(ticks, ticks[1:], strict=False)
            )  # no overlap
            assert (
                page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                <= 0
            )
        finally:
            context.close()
    # on a desktop the wide drawing shows, its labels at least as large
    context = _context(browser, "en", viewport={"width": 1280, "height": 900})
    try:
        page = Watched(context).open(site.base + battle)
        [labels] = page.evaluate(LABEL_PX)
        assert (
            page.evaluate("getComputedStyle(document.querySelector('figure.chart.wide')).display")
            == "block"
        )
        assert min(t["px"] for t in labels) >= 11
    finally:
        context.close()
