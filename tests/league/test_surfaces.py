"""Every format × every ruleset, played by mail and shown on every surface: the web page, its
JSON twin, ``standings.csv`` and both parts of the standings mail carry the same standings, in
the format's own columns (issue 19: one standings pipeline).

One league per (format, ruleset) is opened, entered by mail through the real IMAP server (five
players each, ``name:`` lines, plus addresses), closed and played to its end (a hill fights each
entry on arrival), and its standings are asked for by mail; the web view runs on the same
database. Each surface is parsed back into rows of text cells (rank, player, primary score,
played, W, D, L, byes, then every column of the format) and the five must agree line by line.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest

from app.db.session import session_factory, transaction
from app.formats import find_format
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import all_rulesets, ruleset
from tests.mail.conftest import NOW, make_settings
from tests.mail.hostile import cycle, mk, text
from tests.servers import dovecot  # noqa: F401 - fixture

#: (league suffix, format, format options)
FORMATS = [
    ("rr", "round-robin", {}),
    ("sw", "swiss", {"rounds": "3"}),
    ("ko", "knockout", {}),
    ("de", "knockout", {"double_elimination": "yes"}),
    ("hi", "hill", {"size": "3"}),
    ("ac", "accumulating", {"updates": "2"}),
]
RULESETS = [cls.name for cls in all_rulesets()]
PLAYERS = 5
LEAGUES = [
    (f"{key}-{i}", fmt, opts, rs) for key, fmt, opts in FORMATS for i, rs in enumerate(RULESETS)
]


@dataclass
class Played:
    """The leagues after play: the database, the web view's base URL, and each league's
    standings mail (text and HTML parts)."""

    db_url: str
    base: str
    mails: dict[str, tuple[str, str]]


def _sheets(name: str) -> list[str]:
    """Five valid sheets of ruleset ``name`` (English notation), units ``U1``…``U5``."""
    rs = ruleset(name)
    rng = random.Random(f"surfaces-{name}")
    out = []
    for k in range(1, PLAYERS + 1):
        entry = rs.random_entry(rng, name=f"U{k}")
        out.append(rs.format_sheet(entry, "en"))
    return out


@pytest.fixture(scope="module")
def played(dovecot: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    from app.db.session import upgrade
    from app.web.server import start_web
    from tests.servers import SmtpSink

    folder = tmp_path_factory.mktemp("surfaces")
    db_url = f"sqlite:///{folder / 'db.sqlite3'}"
    upgrade(db_url)
    user = dovecot.add_user()
    with SmtpSink() as sink:
        settings = make_settings(
            db_url, imap_url=user.imap_url, smtp_url=sink.url, server_address=user.address
        )
        local, _, domain = user.address.partition("@")
        factory = session_factory(db_url, migrate=False)
        with transaction(factory) as s:
            for name, fmt, opts, rs in LEAGUES:
                svc.create_league(
                    s,
                    name,
                    entry_deadline=NOW + dt.timedelta(days=7),
                    now=NOW,
                    ruleset=rs,
                    format=fmt,
                    format_options=opts,
                )
        raws = []
        for name, _fmt, _opts, rs in LEAGUES:
            for k, sheet in enumerate(_sheets(rs), start=1):
                raws.append(
                    mk(
                        f"p{k}.{name}@example.org",
                        "entry",
                        f"name: P{k}-{name}\n{sheet}",
                        f"<{name}-{k}@example.org>",
                        to=f"{local}+{name}@{domain}",
                    )
                )
        cycle(settings, factory, user, raws)
        deadline = NOW + dt.timedelta(days=7)
        for name, fmt, _opts, _rs in LEAGUES:
            if find_format(fmt).always_open:
                continue
            with transaction(factory) as s:
                svc.close_entries(
                    s, svc.get_league(s, name), now=deadline, mail=LeagueMail.of(settings)
                )
            svc.run_round(factory, LeagueMail.of(settings), name, all_rounds=True, now=deadline)
        later = deadline + dt.timedelta(hours=1)
        cycle(
            settings,
            factory,
            user,
            [
                mk(
                    f"p1.{name}@example.org",
                    "standings",
                    "",
                    f"<{name}-standings@example.org>",
                    to=f"{local}+{name}@{domain}",
                )
                for name, *_ in LEAGUES
            ],
            now=later,
        )
        mails: dict[str, tuple[str, str]] = {}
        for m in sink.messages:
            msg = m.parsed()
            reply_to = str(msg.get("In-Reply-To", ""))
            hit = re.match(r"<(.+)-standings@example\.org>", reply_to)
            if hit:
                html = msg.get_body(("html",))
                mails[hit.group(1)] = (text(m), html.get_content() if html is not None else "")
        web_settings = make_settings(db_url, data_dir=folder)
        server = start_web(web_settings, host="127.0.0.1", port=0, access_log=False)
        try:
            yield Played(db_url, server.url, mails)
        finally:
            server.shutdown()
            factory.kw["bind"].dispose()


# --------------------------------------------------------------------------- reading surfaces


class _Tables(HTMLParser):
    """The rows of every ``<table>`` of a page (nested ones apart): each row a list of cell
    texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._open: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "table":
            self._open.append([])
            self.tables.append(self._open[-1])
        elif tag == "tr" and self._open:
            self._open[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._open:
            self._open.pop()
        elif tag in ("td", "th") and self._cell is not None and self._open and self._open[-1]:
            self._open[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _html_standings(html: str, first: str) -> list[list[str]]:
    """The body rows of the standings table: its header cells start ``first`` (``#``),
    ``Player``, ``Unit``."""
    parser = _Tables()
    parser.feed(html)
    for table in parser.tables:
        if table and table[0][:3] == [first, "Player", "Unit"]:
            return [row for row in table[1:] if row]
    raise AssertionError("no standings table")


def _canonical(
    rank: str, player: str, points: str, counts: list[str], cells: list[str]
) -> tuple[str, ...]:
    return (rank, player, points, *counts, *cells)


def _from_json(doc: dict[str, Any], fmt: Any, lang: str) -> list[tuple[str, ...]]:
    cols = fmt.columns()
    assert [c["key"] for c in doc["standings"]["columns"][1:]] == [c.key for c in cols]
    out = []
    for r in doc["standings"]["rows"]:
        rank = f"{r['rank']}=" if r["shared"] else str(r["rank"])
        cells = [c.text(_back(c, r["values"][c.key]), lang) for c in cols]
        out.append(
            _canonical(
                rank,
                r["entry"]["player"]["name"],
                _num(r["points"]),
                [str(r[k]) for k in ("played", "wins", "draws", "losses", "byes")],
                cells,
            )
        )
    return out


def _back(column: Any, value: Any) -> Any:
    from fractions import Fraction

    if value is None or column.kind == "code":
        return value
    if column.kind == "list":
        return [None if v is None else Fraction(str(v)) for v in value]
    return Fraction(str(value))


def _num(value: Any) -> str:
    from fractions import Fraction

    from app.formats.base import fraction_text

    return fraction_text(Fraction(str(value)))


def _from_csv(body: str, fmt: Any, lang: str) -> list[tuple[str, ...]]:
    rows = list(csv.reader(io.StringIO(body.lstrip("\ufeff"))))
    head = rows[0]
    cols = fmt.columns()
    assert head[11:-1] == [c.key for c in cols], head
    out = []
    for r in rows[1:]:
        rank = f"{r[0]}=" if r[1] == "1" else r[0]
        cells = []
        for c, v in zip(cols, r[11:-1], strict=True):
            cells.append(
                v if c.kind in ("code", "list") else c.text(_back(c, v) if v else None, lang)
            )
        out.append(_canonical(rank, r[3], _num(r[5]), r[6:11], cells))
    return out


def _from_page(html: str, fmt: Any) -> list[tuple[str, ...]]:
    out = []
    for r in _html_standings(html, "#"):
        ncol = len(fmt.columns())
        out.append(_canonical(r[0], r[1], r[3], r[4:9], r[9 : 9 + ncol]))
    return out


def _from_text(body: str, fmt: Any, names: set[str]) -> list[tuple[str, ...]]:
    """The rows of the text mail's table (cells two spaces apart; the last is ``unit
    (player)``)."""
    out = []
    ncol = len(fmt.columns())
    for line in body.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 8 or not re.fullmatch(r"\d+=?", cells[0]):
            continue
        hit = re.search(r"\((P\d-[^)]+)\)$", cells[-1])
        if not hit or hit.group(1) not in names:
            continue
        out.append(_canonical(cells[0], hit.group(1), cells[1], cells[2:7], cells[7 : 7 + ncol]))
    return out


@pytest.mark.parametrize(
    "league,fmt_name,opts,rs_name",
    LEAGUES,
    ids=[f"{f}-{r}{'-' + '-'.join(o) if o else ''}" for _n, f, o, r in LEAGUES],
)
def test_every_surface_carries_the_same_standings(
    played: Played, league: str, fmt_name: str, opts: dict[str, str], rs_name: str
) -> None:
    from app.formats.base import SEED_OPTION  # noqa: F401 - the format's own options below

    fmt = find_format(fmt_name)({**opts})
    with httpx.Client(timeout=30) as client:
        doc = client.get(f"{played.base}/leagues/{league}.json?lang=en").json()
        page = client.get(f"{played.base}/leagues/{league}?lang=en").text
        sheet_csv = client.get(f"{played.base}/leagues/{league}/standings.csv?lang=en").text
    rows = _from_json(doc, fmt, "en")
    assert len(rows) >= (min(PLAYERS, int(opts["size"])) if "size" in opts else PLAYERS)
    names = {r[1] for r in rows}
    assert names == {f"P{k}-{league}" for k in range(1, PLAYERS + 1)} or fmt.always_open
    assert doc["standings"]["format"] == fmt.name and doc["standings"]["view"] == fmt.view
    assert _from_csv(sheet_csv, fmt, "en") == rows
    assert _from_page(page, fmt) == rows
    mail_text, mail_html = played.mails[league]
    assert _from_text(mail_text, fmt, names) == rows, mail_text
    assert _from_page(mail_html, fmt) == rows
    for column in fmt.columns():  # every surface names the format's own columns
        for surface in (page, mail_html):
            assert column.title("en") in surface, (column.key, surface[:300])
    if not doc["league"]["always_open"]:
        assert doc["league"]["state"] == "finished"
        assert [w["player"]["name"] for w in doc["league"]["winners"]] == [
            r[1] for r in rows if r[0] in ("1", "1=")
        ]
