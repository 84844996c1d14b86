"""Atom feeds (RFC 4287) of round results, built with ``feedgen``.

* ``/leagues/NAME/feed.atom``: one entry per round played (its results, board by board), and
  one when the league opened;
* ``/feed.atom``: the same entries for every league, newest first (at most :data:`LIMIT`).

Entry ids are ``tag:`` URIs (RFC 4151) from the server's mail domain and the league's creation
date, so they do not change with the address the feed is read at; links are absolute, under the
``public_url`` setting (or the address of the request). An open league's entry names no unit:
its sheets are secret until entries close.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from feedgen.feed import FeedGenerator
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import League
from app.league import queries as q
from app.league.timeparse import as_utc
from app.reports import i18n, urls
from app.reports.dates import human_time

#: entries in a feed
LIMIT = 50
#: boards listed in one round's entry (the rest are on the round's page)
BOARDS = 60


def _tag(domain: str, league: League, *parts: object) -> str:
    created = as_utc(league.created_at) or dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    tail = "/".join(str(p) for p in parts)
    return f"tag:{domain},{created:%Y-%m-%d}:leagues/{league.id}/{tail}"


def _round_text(rnd: q.RoundLine, lang: str) -> str:
    _ = i18n.gettext(lang)
    lines = []
    for b in rnd.boards or ():
        a = f"{b.a.unit} ({b.a.player.name})"
        if b.b is None:
            lines.append(_("Board %(board)s: %(a)s has the bye") % {"board": b.board, "a": a})
            continue
        other = f"{b.b.unit} ({b.b.player.name})"
        if b.state == "void":
            result = _("void")
        elif b.winner is None:
            result = _("draw")
        else:
            result = _("%(unit)s wins") % {"unit": (b.a if b.winner == 0 else b.b).unit}
        lines.append(
            _("Board %(board)s: %(a)s vs %(b)s: %(result)s")
            % {"board": b.board, "a": a, "b": other, "result": result}
        )
    shown = len(rnd.boards or ())
    total = rnd.battles + sum(1 for b in rnd.boards or () if b.b is None)
    if total > shown:
        lines.append(_("… and %(n)s more boards") % {"n": total - shown})
    return "\n".join(lines)


def _entries(
    session: Session, league: League, web: Any, base: str, lang: str
) -> list[dict[str, Any]]:
    _ = i18n.gettext(lang)
    out: list[dict[str, Any]] = []
    created = as_utc(league.created_at) or dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    out.append(
        {
            "id": _tag(web.feed_domain, league, "opened"),
            "title": _("League %(name)s opened") % {"name": league.name},
            "link": urls.absolute(base, urls.league(league.name)),
            "updated": created,
            "content": _("Entries until %(deadline)s.")
            % {"deadline": human_time(as_utc(league.entry_deadline) or created)},
        }
    )
    if not q.sheets_public(league):
        return out
    for rnd in q.recent_results(session, league.name, rounds=LIMIT, boards_per_round=BOARDS):
        out.append(
            {
                "id": _tag(web.feed_domain, league, "rounds", rnd.number),
                "title": _("League %(name)s: results of round %(n)s")
                % {"name": league.name, "n": rnd.number},
                "link": urls.absolute(base, urls.round_(league.name, rnd.number)),
                "updated": rnd.done_at or created,
                "content": _round_text(rnd, lang),
            }
        )
    return out


def atom(
    session: Session, web: Any, *, base: str, lang: str, league_name: str | None = None
) -> bytes | None:
    """The Atom document of league ``league_name`` (``None``: every league), or ``None`` when
    there is no such league. ``web`` is the :class:`app.web.app.WebApp` (feed domain, server
    name); ``base`` the absolute base URL of links."""
    _ = i18n.gettext(lang)
    if league_name is not None:
        league = q.find_league(session, league_name)
        if league is None:
            return None
        leagues = [league]
        self_path = urls.league_file(league.name, "feed.atom")
        alternate = urls.league(league.name)
        title = _("Amaryllis league %(name)s") % {"name": league.name}
        feed_id = _tag(web.feed_domain, league, "feed")
    else:
        leagues = list(session.scalars(select(League).order_by(League.id)))
        self_path, alternate = urls.feed(), urls.index()
        title = _("Amaryllis leagues")
        feed_id = f"tag:{web.feed_domain},2026-01-01:feed"
    entries = [e for lg in leagues for e in _entries(session, lg, web, base, lang)]
    entries.sort(key=lambda e: e["updated"], reverse=True)
    entries = entries[:LIMIT]
    fg = FeedGenerator()
    fg.id(feed_id)
    fg.title(title)
    fg.author({"name": web.server_name})
    fg.link(href=urls.absolute(base, alternate), rel="alternate", type="text/html")
    fg.link(href=urls.absolute(base, self_path), rel="self", type="application/atom+xml")
    fg.language(lang)
    fg.generator("Amaryllis tournament server")
    fg.updated(
        entries[0]["updated"] if entries else dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    )
    for e in reversed(entries):  # feedgen prepends: the newest ends up first
        fe = fg.add_entry()
        fe.id(e["id"])
        fe.title(e["title"])
        fe.link(href=e["link"], rel="alternate", type="text/html")
        fe.updated(e["updated"])
        fe.content(e["content"] or e["title"], type="text")
    return fg.atom_str(pretty=True)
