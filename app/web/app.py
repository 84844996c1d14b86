"""The web view as a Starlette application: pages (ja/en), their JSON twins, CSV files and Atom
feeds, over :mod:`app.league.queries` (``docs/web.md``).

Language: ``?lang=ja|en`` (which also sets the ``lang`` cookie, so the choice sticks), else the
cookie, else the ``Accept-Language`` header, else Japanese. Every response carries a strict
Content-Security-Policy (no script at all, styles only from ``/static/``), ``nosniff``, a
same-origin referrer policy and no framing; the data files (JSON, CSV, Atom) may be read from
any origin (``Access-Control-Allow-Origin: *``: they are public and need no cookie).

Handlers are plain functions, run by Starlette in its thread pool; each opens one read-only
session (:mod:`app.web.db`) and renders with :func:`app.reports.i18n.environment`.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup, escape
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import NAME
from app.league import queries as q
from app.reports import i18n, urls
from app.web import payloads
from app.web.db import read_only_engine, read_sessions, reading

log = logging.getLogger("amaryllis.web")

STATIC = Path(__file__).resolve().parent / "static"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
LANG_COOKIE = "lang"

#: the Content-Security-Policy of every response: nothing runs, styles and images from here only
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
_DATA_TYPES = (
    b"application/json",
    b"text/csv",
    b"application/atom+xml",
    b"application/schema+json",
)


class SecurityHeaders:
    """ASGI middleware: adds :data:`SECURITY_HEADERS` to every HTTP response, and
    ``Access-Control-Allow-Origin: *`` to JSON, CSV and Atom."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                ctype = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if ctype.startswith(_DATA_TYPES):
                    headers.append((b"access-control-allow-origin", b"*"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, wrapped)


# --------------------------------------------------------------------------- helpers


def _zen(value: object) -> str:
    return str(value).translate(str.maketrans("0123456789-", "０１２３４５６７８９－"))


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _duration(seconds: int | None, lang: str = "en") -> str:
    """A league's interval in words in the page's language (``human_span``)."""
    from app.reports.i18n import human_span

    return human_span(seconds or 0, lang)


def cross_cells_html(c: q.CrossTable, prefix: str, letters: dict[str, str]) -> list[Markup]:
    """The ``<td>`` cells of each row of a cross-table block as one markup string per row:
    built here rather than in the template (a 50 x 50 block is 2,450 links, and a Jinja loop
    with a lookup and three escapes per cell costs tens of milliseconds). Only the escaped
    ``prefix`` (the league's battle path), battle ids (integers) and the escaped result
    letters go in; no user-written text."""
    pre = str(escape(prefix))
    letter = {k: str(escape(v)) for k, v in letters.items()}
    rows: list[Markup] = []
    for r in c.rows:
        parts = []
        rid = r.entry_id
        for col in c.cols:
            if col.entry_id == rid:
                parts.append('<td class="self"></td>')
                continue
            links = "".join(
                f'<a class="res {x.result}" href="{pre}{int(x.battle_id)}">{letter[x.result]}</a>'
                for x in c.cells.get((rid, col.entry_id), ())
            )
            parts.append(f"<td>{links}</td>")
        rows.append(Markup("".join(parts)))
    return rows


GLOBALS: dict[str, Any] = {
    "urls": urls,
    "iso": payloads.iso,
    "signed": _signed,
    "duration": _duration,
    "CROSS_BLOCK": q.CROSS_BLOCK,
    "link": lambda path: path,
    "cross_cells_html": cross_cells_html,
}
FILTERS: dict[str, Any] = {"zen": _zen}


def choose_lang(request: Request) -> tuple[str, bool]:
    """The page language and whether ``?lang=`` asked for it (then the cookie is set)."""
    asked = request.query_params.get("lang", "")
    if asked in i18n.LANGS:
        return asked, True
    cookie = request.cookies.get(LANG_COOKIE, "")
    if cookie in i18n.LANGS:
        return cookie, False
    return i18n.negotiate(request.headers.get("accept-language")) or i18n.LANGS[0], False


def _switch_links(request: Request) -> dict[str, str]:
    params = {k: v for k, v in request.query_params.items() if k != "lang"}
    return {
        lang: request.url.path + "?" + urlencode({**params, "lang": lang}) for lang in i18n.LANGS
    }


def _finish(request: Request, response: Response, lang: str, asked: bool) -> Response:
    response.headers["content-language"] = lang
    response.headers["vary"] = "Accept-Language, Cookie"
    response.headers.setdefault("cache-control", "no-cache")
    if asked:
        secure = request.url.scheme == "https"
        response.set_cookie(
            LANG_COOKIE,
            lang,
            max_age=365 * 86400,
            path="/",
            samesite="lax",
            httponly=True,
            secure=secure,
        )
    return response


def _split(value: str, suffixes: tuple[str, ...]) -> tuple[str, str]:
    for suffix in suffixes:
        if value.endswith(suffix) and len(value) > len(suffix):
            return value[: -len(suffix)], suffix
    return value, ""


_ID = re.compile(r"^([0-9]{1,12})(\.json|\.csv)?$")


def _int_arg(request: Request, name: str) -> int:
    try:
        return max(1, min(10**6, int(request.query_params.get(name, "1"))))
    except ValueError:
        return 1


@dataclass(frozen=True, slots=True)
class RulesExample:
    """An example sheet of a ruleset in one notation, normalized, with its cost breakdown."""

    lang: str
    sheet: str
    normalized: str
    costs: str


@dataclass(frozen=True, slots=True)
class RulesPage:
    """The ``/rules/RULESET`` page: the ruleset's name, title (in the page language), aliases,
    engine version, whether sides are parties, its settings in words, an example sheet per
    notation and the sample sheets."""

    name: str
    title: str
    aliases: tuple[str, ...]
    engine_version: str
    party: bool
    description: tuple[str, ...]
    examples: tuple[RulesExample, ...]
    samples: tuple[str, ...]


def rules_page(name: str, lang: str) -> RulesPage | None:
    """The rules page of ruleset ``name`` (or an alias), or ``None`` when there is no such
    ruleset."""
    from app.rules import ruleset

    try:
        rs = ruleset(name)
    except ValueError:
        return None
    examples = []
    for ex_lang in i18n.LANGS:
        text = rs.example_sheet(ex_lang)
        parsed = rs.parse_sheet(text)
        normalized = rs.format_sheet(parsed.entry, ex_lang) if parsed.ok else ""
        costs = rs.format_costs(parsed.entry, lang) if parsed.ok else ""
        examples.append(RulesExample(ex_lang, text, normalized, costs))
    return RulesPage(
        rs.name,
        rs.titles.get(lang, rs.name),
        tuple(rs.aliases),
        str(rs.engine_version),
        bool(rs.party),
        tuple(rs.describe(lang)),
        tuple(examples),
        tuple(rs.sample_sheets()),
    )


def _ruleset_title(name: str, lang: str) -> str:
    from app.rules import find_ruleset

    try:
        return find_ruleset(name).titles.get(lang, name)
    except (ValueError, AttributeError):
        return name


# --------------------------------------------------------------------------- the application


class WebApp:
    """The handlers of the web view over one read-only engine. ``public_url`` (may be empty)
    makes the links of feeds absolute; ``server_name`` names the feeds' author; ``feed_domain``
    is the authority of the feeds' ``tag:`` ids."""

    def __init__(
        self,
        engine: Engine,
        *,
        public_url: str = "",
        server_name: str = NAME,
        feed_domain: str = "localhost",
    ) -> None:
        self.engine = engine
        self.sessions = read_sessions(engine)
        self.public_url = public_url.rstrip("/")
        self.server_name = server_name
        self.feed_domain = feed_domain

    # -- rendering ----------------------------------------------------------------------------

    def render(
        self, request: Request, template: str, status_code: int = 200, **context: Any
    ) -> Response:
        lang, asked = choose_lang(request)
        env = i18n.environment(lang, name="web", globals=GLOBALS, filters=FILTERS)
        html = env.get_template(template).render(
            path=request.url.path,
            switch=_switch_links(request),
            ruleset_title=lambda n: _ruleset_title(n, lang),
            **context,
        )
        return _finish(request, HTMLResponse(html, status_code=status_code), lang, asked)

    def json(self, request: Request, doc: dict[str, Any], status: int = 200) -> Response:
        lang, asked = choose_lang(request)
        body = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str)
        return _finish(
            request, Response(body, status_code=status, media_type="application/json"), lang, asked
        )

    def not_found(self, request: Request, *, as_json: bool = False) -> Response:
        if as_json or request.url.path.endswith(".json"):
            return self.json(request, {"kind": "error", "status": 404, "error": "not found"}, 404)
        return self.render(request, "web/error.html", 404, status=404)

    def base(self, request: Request) -> str:
        """The base of absolute links: ``public_url``, or the scheme and host the request came
        to, which the application's host check (``create_app(allowed_hosts=…)``) has limited to
        the allowed hosts."""
        if self.public_url:
            return self.public_url
        return f"{request.url.scheme}://{request.url.netloc}{request.scope.get('root_path', '')}"

    def csv(
        self, request: Request, filename: str, header: list[str], rows: list[list[Any]]
    ) -> Response:
        buf = io.StringIO()
        buf.write("\ufeff")  # a BOM, so that spreadsheet programs read the UTF-8 (Japanese) right
        writer = csv.writer(buf, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows([[_cell(v) for v in row] for row in rows])
        return Response(
            buf.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={
                "content-disposition": f'inline; filename="{filename}"',
                "cache-control": "no-cache",
            },
        )

    # -- pages --------------------------------------------------------------------------------

    def index(self, request: Request) -> Response:
        with reading(self.sessions) as s:
            leagues = q.list_leagues(s)
        if request.url.path.endswith(".json"):
            return self.json(request, payloads.index(leagues))
        groups = {
            phase: [lg for lg in leagues if lg.phase == phase]
            for phase in ("open", "running", "finished")
        }
        return self.render(request, "web/index.html", leagues=leagues, groups=groups)

    def league(self, request: Request) -> Response:
        raw = request.path_params["name"]
        with reading(self.sessions) as s:
            suffix = ""
            league = q.find_league(s, raw)
            if league is None:
                base, suffix = _split(raw, (".json",))
                league = q.find_league(s, base) if suffix else None
            if league is None:
                return self.not_found(request, as_json=bool(suffix))
            if league.name != (raw[: -len(suffix)] if suffix else raw):
                target = urls.league(league.name, suffix)
                if request.url.query:
                    target += "?" + request.url.query
                return RedirectResponse(target, status_code=301)
            view = q.league_view(
                s, league.name, row_block=_int_arg(request, "xr"), col_block=_int_arg(request, "xc")
            )
        assert view is not None
        if suffix == ".json":
            return self.json(request, payloads.league(view))
        return self.render(
            request,
            "web/league.html",
            v=view,
            s=view.summary,
            cfg=view.settings,
            blocks=range(1, (view.cross.blocks if view.cross else 1) + 1),
        )

    def round(self, request: Request) -> Response:
        m = re.match(r"^([0-9]{1,6})(\.json)?$", request.path_params["number"])
        if m is None:
            return self.not_found(request)
        with reading(self.sessions) as s:
            found = q.round_view(s, request.path_params["name"], int(m.group(1)))
        if found is None:
            return self.not_found(request, as_json=bool(m.group(2)))
        summary, rnd = found
        if m.group(2):
            return self.json(request, payloads.round_page(summary, rnd))
        return self.render(request, "web/round.html", s=summary, r=rnd)

    def battle(self, request: Request) -> Response:
        from app.web import battles, charts

        m = _ID.match(request.path_params["bid"])
        if m is None:
            return self.not_found(request)
        suffix = m.group(2) or ""
        with reading(self.sessions) as s:
            view = q.battle_view(s, request.path_params["name"], int(m.group(1)))
        if view is None:
            return self.not_found(request, as_json=suffix == ".json")
        lang, _ = choose_lang(request)
        try:
            computed = battles.compute(view, lang)
        except ValueError as exc:  # an unknown ruleset: the recorded result is still shown
            log.warning("battle %s not recomputed: %s", view.line.battle_id, exc)
            computed = None
        if suffix == ".json":
            return self.json(request, payloads.battle(view, computed, lang))
        if suffix == ".csv":
            return self.battle_csv(request, view, computed)
        report = computed.report if computed is not None else None
        chart = charts.hp_chart(report) if report is not None else None
        narrow = charts.hp_chart(report, width=charts.PHONE_WIDTH) if report is not None else None
        return self.render(
            request,
            "web/battle.html",
            v=view,
            b=view.line,
            c=computed,
            report=report,
            chart=chart,
            narrow_chart=narrow,
        )

    def battle_csv(self, request: Request, view: q.BattleView, computed: Any) -> Response:
        rows: list[list[Any]] = []
        report = computed.report if computed is not None else None
        for turn in report.turns if report is not None else ():
            for side in (0, 1):
                for fighter in turn.states[side]:
                    rows.append(
                        [
                            turn.turn,
                            "AB"[side],
                            fighter.name,
                            fighter.hp,
                            fighter.max_hp,
                            int(fighter.alive),
                            int(fighter.exited),
                            fighter.text,
                        ]
                    )
        return self.csv(
            request,
            f"battle-{view.line.battle_id}.csv",
            ["turn", "side", "fighter", "hp", "max_hp", "alive", "exited", "state"],
            rows,
        )

    def standings_csv(self, request: Request) -> Response:
        with reading(self.sessions) as s:
            view = q.league_view(
                s, request.path_params["name"], with_cross=False, with_rounds=False
            )
        if view is None or view.secret or view.table is None:
            return self.not_found(request)
        lang, _asked = choose_lang(request)
        table = view.table
        return self.csv(
            request,
            "standings.csv",
            table.csv_header(),
            [table.csv_row(x, lang) for x in table.lines],
        )

    def battles_csv(self, request: Request) -> Response:
        with reading(self.sessions) as s:
            found = q.league_battles(s, request.path_params["name"])
        if found is None:
            return self.not_found(request)
        summary, boards = found
        rows = []
        for b in boards:
            rows.append(
                [
                    b.battle_id,
                    b.round,
                    b.board,
                    b.state,
                    b.a.player.id,
                    b.a.player.name,
                    b.a.unit,
                    b.b.player.id if b.b else "",
                    b.b.player.name if b.b else "",
                    b.b.unit if b.b else "",
                    "" if b.winner is None else "AB"[b.winner],
                    b.reason or "",
                    "" if b.turns is None else b.turns,
                    b.hp[0] if b.hp else "",
                    b.hp[1] if b.hp else "",
                    urls.battle(summary.name, b.battle_id) if b.b else "",
                ]
            )
        return self.csv(
            request,
            "battles.csv",
            [
                "battle",
                "round",
                "board",
                "state",
                "player_a_id",
                "player_a",
                "unit_a",
                "player_b_id",
                "player_b",
                "unit_b",
                "winner",
                "reason",
                "turns",
                "hp_a",
                "hp_b",
                "url",
            ],
            rows,
        )

    def player(self, request: Request) -> Response:
        m = re.match(r"^([0-9]{1,12})(\.json)?$", request.path_params["pid"])
        if m is None:
            return self.not_found(request)
        with reading(self.sessions) as s:
            view = q.player_view(s, int(m.group(1)))
        if view is None:
            return self.not_found(request, as_json=bool(m.group(2)))
        if m.group(2):
            return self.json(request, payloads.player(view))
        return self.render(request, "web/player.html", v=view)

    def rules(self, request: Request) -> Response:
        raw = request.path_params["ruleset"]
        base, suffix = _split(raw, (".json",))
        lang, _ = choose_lang(request)
        page = rules_page(base, lang)
        if page is None:
            return self.not_found(request, as_json=bool(suffix))
        if page.name != base:
            return RedirectResponse(urls.rules(page.name, suffix), status_code=301)
        if suffix:
            return self.json(request, payloads.rules(page))
        env = i18n.environment(lang, name="web", globals=GLOBALS, filters=FILTERS)
        prose = f"web/rules/{page.name}.html"
        has_prose = prose in env.list_templates(filter_func=lambda n: n.startswith("web/rules/"))
        return self.render(request, "web/rules.html", page=page, prose=prose if has_prose else None)

    def feed(self, request: Request) -> Response:
        from app.web import feeds

        lang, asked = choose_lang(request)
        name = request.path_params.get("name")
        with reading(self.sessions) as s:
            xml = feeds.atom(s, self, base=self.base(request), lang=lang, league_name=name)
        if xml is None:
            return self.not_found(request)
        return _finish(
            request, Response(xml, media_type="application/atom+xml; charset=utf-8"), lang, asked
        )

    def schema(self, request: Request) -> Response:
        name = request.path_params["file"]
        path = SCHEMAS / name
        if not re.fullmatch(r"[a-z0-9.]+\.json", name) or not path.is_file():
            return self.not_found(request, as_json=True)
        return FileResponse(path, media_type="application/schema+json")

    def favicon(self, request: Request) -> Response:
        return FileResponse(
            STATIC / "favicon.svg",
            media_type="image/svg+xml",
            headers={"cache-control": "public, max-age=86400"},
        )


def _cell(value: Any) -> Any:
    """A CSV cell: text that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``,
    tab, CR first) gets a leading apostrophe (OWASP, CSV injection); numbers stay numbers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def create_app(
    *,
    database_url: str | None = None,
    engine: Engine | None = None,
    public_url: str = "",
    server_name: str = NAME,
    feed_domain: str = "localhost",
    allowed_hosts: Sequence[str] | None = None,
) -> Starlette:
    """The Starlette application of the web view over ``engine`` (or a new read-only engine on
    ``database_url``). ``allowed_hosts``: the ``Host`` values answered (others get 400;
    ``app.web.server.allowed_hosts`` makes the list from the settings); ``None``: any, for an
    application that is only called directly. Raises ``ValueError`` when neither ``engine`` nor
    ``database_url`` is given."""
    if engine is None:
        if not database_url:
            raise ValueError("create_app needs a database_url or an engine")
        engine = read_only_engine(database_url)
    web = WebApp(engine, public_url=public_url, server_name=server_name, feed_domain=feed_domain)

    async def not_found(request: Request, exc: Exception) -> Response:
        return web.not_found(request)

    async def server_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, OperationalError):
            log.error("web_database_unavailable", exc_info=exc)
        else:
            log.error("web_handler_failed path=%s", request.url.path, exc_info=exc)
        return HTMLResponse(
            "<!DOCTYPE html><title>500</title><p>Internal server error / サーバ内部のエラー</p>",
            status_code=500,
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return web.not_found(request)
        return Response(
            str(exc.detail), status_code=exc.status_code, headers=getattr(exc, "headers", None)
        )

    routes = [
        Route("/", web.index),
        Route("/index.json", web.index),
        Route("/feed.atom", web.feed),
        Route("/favicon.ico", web.favicon),
        Route("/schemas/{file}", web.schema),
        Route("/leagues/{name}", web.league),
        Route("/leagues/{name}/standings.csv", web.standings_csv),
        Route("/leagues/{name}/battles.csv", web.battles_csv),
        Route("/leagues/{name}/feed.atom", web.feed),
        Route("/leagues/{name}/rounds/{number}", web.round),
        Route("/leagues/{name}/battles/{bid}", web.battle),
        Route("/players/{pid}", web.player),
        Route("/rules/{ruleset}", web.rules),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={404: not_found, HTTPException: http_error, 500: server_error},
    )
    app.state.web = web
    if allowed_hosts is not None:
        # before the links: WebApp.base builds feed links from the Host of a request that
        # reached it, so only a Host of this list (RFC 9110 §7.2: the client writes it)
        app.add_middleware(
            TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False
        )
    app.add_middleware(SecurityHeaders)
    return app
