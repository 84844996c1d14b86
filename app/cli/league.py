"""CLI commands of the league part (registered by ``app.cli``): ``db upgrade``/``db downgrade``,
``league …`` and ``tick``. Each command parses its arguments and calls ``app.league.service``;
what players are told is queued through the mail layer (``app.mail.league_mail.LeagueMail``).

Exit codes: 0 done, 1 the league refused (unknown league, wrong state, …; the message says why),
2 bad arguments (click's usage error).

The clock is ``AMARYLLIS_NOW`` (ISO 8601) when set — for tests and replays — else the real UTC time.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.cli.rules import key_value, option_flags, read_options
from app.formats import Points
from app.league.privacy import public_name
from app.league.timeparse import format_duration, iso, parse_duration, parse_instant
from app.mail.storable import visible


def echo(text: str, **kwargs: Any) -> None:
    """``click.echo`` of text that may hold players' names: every control, bidi or zero-width
    character is written as ``<U+XXXX>`` (a unit named with an escape sequence cannot drive the
    operator's terminal, issue #8.7)."""
    click.echo(visible(text), **kwargs)


def _mail(settings: Any) -> Any:
    """The league's mails for ``settings`` (:class:`app.mail.league_mail.LeagueMail`)."""
    from app.mail.league_mail import LeagueMail

    return LeagueMail.of(settings)


if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from app.league import service as svc
else:

    class _LazyModule:
        """A module imported on first attribute access: the CLI starts without SQLAlchemy and the
        models (about 0.2 s), so ``serve`` installs its signal handlers sooner."""

        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attr: str) -> Any:
            return getattr(importlib.import_module(self._name), attr)

    svc = _LazyModule("app.league.service")


def now() -> dt.datetime:
    """The command's clock: ``AMARYLLIS_NOW`` if set (ISO 8601), else the current UTC time.
    Raises :class:`click.ClickException` (exit 1, naming the variable) when ``AMARYLLIS_NOW`` is
    not a time."""
    fixed = os.environ.get("AMARYLLIS_NOW")
    if fixed:
        try:
            return parse_instant(fixed, dt.datetime.now(dt.timezone.utc))
        except ValueError as exc:
            raise click.ClickException(f"bad environment variable AMARYLLIS_NOW: {exc}") from exc
    return dt.datetime.now(dt.timezone.utc)


def _settings_and_factory() -> tuple[Any, sessionmaker[Session]]:
    from app.config import load_settings
    from app.db.session import session_factory

    settings = load_settings()
    return settings, session_factory(settings.resolved_database_url)


@contextmanager
def _session() -> Iterator[tuple[Any, sessionmaker[Session], Session]]:
    from app.db.session import transaction

    settings, factory = _settings_and_factory()
    with transaction(factory) as session:
        yield settings, factory, session


def _refusals(fn: Callable[..., None]) -> Callable[..., None]:
    """Turn a :class:`~app.league.service.LeagueError` into exit code 1 with its message."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except svc.LeagueError as exc:
            raise click.ClickException(f"{exc} [{exc.code}]") from exc

    return wrapper


def _instant(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.datetime | None:
    if value is None:
        return None
    clock = now()  # a bad AMARYLLIS_NOW is reported as such, not blamed on the option
    try:
        return parse_instant(value, clock)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def _duration(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> dt.timedelta | None:
    if value is None:
        return None
    try:
        return parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def _points(_ctx: click.Context, _param: click.Parameter, value: str) -> Points:
    try:
        points = Points.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if any(p.denominator != 1 for p in (points.win, points.draw, points.loss)):
        raise click.BadParameter(
            f"whole points only (win/draw/loss), got {value!r}; a format "
            "with fractional points takes --format-option points=…"
        )
    return points


def ruleset_lines(league: Any) -> list[str]:
    """The ruleset record of ``league`` (``Ruleset.describe``), in English."""
    return list(svc.league_ruleset(league).describe("en"))


# --------------------------------------------------------------------------- db


@click.group("db")
def db_group() -> None:
    """Database schema (Alembic migrations)."""


@contextmanager
def _alembic_errors() -> Iterator[None]:
    """Turn Alembic's ``CommandError`` (unknown revision, …) into exit code 1 with its message."""
    from alembic.util import CommandError

    try:
        yield
    except CommandError as exc:
        raise click.ClickException(f"{exc}".splitlines()[0]) from exc


@db_group.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="target revision")
def db_upgrade(revision: str) -> None:
    """Migrate the database to REVISION (the server also does this on start)."""
    from app.config import load_settings
    from app.db.session import upgrade

    url = load_settings().resolved_database_url
    with _alembic_errors():
        upgrade(url, revision)
    click.echo(f"database at revision {revision}")


@db_group.command("downgrade")
@click.argument("revision")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
def db_downgrade(revision: str, yes: bool) -> None:
    """Migrate the database down to REVISION (``base``: empty). This drops tables and their data
    (``base``: everything), so it asks first unless ``--yes`` is given."""
    from app.config import load_settings
    from app.db.session import downgrade

    if not yes:
        click.confirm(
            f"Downgrade the database to {revision}? Tables dropped lose their data "
            "(base: everything)",
            abort=True,
        )
    with _alembic_errors():
        downgrade(load_settings().resolved_database_url, revision)
    click.echo(f"database at revision {revision}")


# --------------------------------------------------------------------------- league


@click.group("league")
def league_group() -> None:
    """Organize leagues: create, close entries, run rounds, standings, fixes."""


@league_group.command("create")
@click.argument("name")
@click.option(
    "--entry-deadline",
    required=True,
    callback=_instant,
    help="ISO 8601 (2026-12-01T12:00Z) or relative (+2d, 48h)",
)
@click.option(
    "--rounds-every",
    callback=_duration,
    default=None,
    help="interval between rounds (48h, 2d); without it rounds run only by hand",
)
@click.option(
    "--points",
    callback=_points,
    default="3/1/0",
    show_default=True,
    help="points per win/draw/loss",
)
@click.option("--double", is_flag=True, help="double round-robin (everyone meets twice)")
@click.option("--password", default=None, help="entry password line required on sheets")
@click.option(
    "--show-entrants",
    is_flag=True,
    help="the web view lists entrants (names only, never sheets) while entries are open",
)
@click.option(
    "--ruleset",
    default=None,
    metavar="NAME",
    help="the game, by name or alias (default: the default ruleset; docs/sheets.md)",
)
@option_flags
@click.option(
    "--format",
    "fmt_name",
    default=None,
    metavar="NAME",
    help="how the league is paired: round-robin (default), swiss, knockout, hill, "
    "accumulating, … (docs/formats.md)",
)
@click.option(
    "--format-option",
    "format_option",
    multiple=True,
    metavar="KEY=VALUE",
    help="an option of the format: rounds=7 (swiss), size=20 (hill), updates=3 "
    "(accumulating), reseed-every-round=yes, double-elimination=yes (knockout)",
)
@click.option("--rounds", type=int, default=None, help="= --format-option rounds=R")
@click.option("--size", type=int, default=None, help="= --format-option size=N")
@click.option("--updates", type=int, default=None, help="= --format-option updates=K")
@click.option("--seed", default=None, help="the published seed of the format's draws")
@_refusals
def league_create(
    name: str,
    entry_deadline: dt.datetime,
    rounds_every: dt.timedelta | None,
    points: Points,
    double: bool,
    password: str | None,
    show_entrants: bool,
    fmt_name: str | None,
    format_option: tuple[str, ...],
    rounds: int | None,
    size: int | None,
    updates: int | None,
    seed: str | None,
    ruleset: str | None,
    option_pairs: tuple[str, ...],
    options_file: str | None,
) -> None:
    """Create league NAME, open for entries until the deadline (a format that is always open,
    such as the hill, ignores it), playing RULESET with its league options
    (``--option``/``--options``, validated by the ruleset; fixed once entries close). The format
    and its options are checked by the format itself; ``--points`` and ``--double`` become the
    format's options when it takes them."""
    from app.formats import find_format

    options = read_options(option_pairs, options_file)
    opts: dict[str, Any] = {}
    for flag, number in (("rounds", rounds), ("size", size), ("updates", updates)):
        if number is not None:
            opts[flag] = str(number)
    opts.update(key_value(item, "--format-option") for item in format_option)
    try:
        cls = find_format(fmt_name) if fmt_name else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--format") from exc
    takes = {o.name for o in cls.option_specs} if cls is not None else {"points", "double"}
    if "points" in takes and "points" not in opts and str(points) != "3/1/0":
        opts["points"] = str(points)
    if double:
        if "double" not in takes:
            raise click.BadParameter(
                f"format {cls.name if cls else ''} has no double form", param_hint="--double"
            )
        opts.setdefault("double", "yes")
    with _session() as (_s, _f, session):
        try:
            league = svc.create_league(
                session,
                name,
                entry_deadline=entry_deadline,
                rounds_every=rounds_every,
                points=(int(points.win), int(points.draw), int(points.loss)),
                double=double,
                password=password,
                ruleset=ruleset,
                options=options,
                now=now(),
                format=cls.name if cls is not None else None,
                format_options=opts or None,
            )
        except svc.BadState as exc:
            if exc.code == "bad-format":
                raise click.UsageError(str(exc)) from exc
            raise
        league.show_entrants = show_entrants
        if seed is not None:
            league.seed = seed[:64]
        from app.league.formats import format_of

        fmt = format_of(league)
        settings = "".join(f" {k}={v}" for k, v in sorted((league.format_options or {}).items()))
        until = (
            "always open"
            if league.entry_deadline is None
            else f"entries until {iso(league.entry_deadline)}"
        )
        lines = [
            f"created league {league.name}: {until}, format {fmt.name}{settings}"
            f"{', rounds every ' + format_duration(rounds_every) if rounds_every else ''}"
            f", ruleset {league.ruleset}"
        ]
        lines += [f"  {line}" for line in fmt.describe("en")]
        if league.options:
            lines += [f"  {line}" for line in ruleset_lines(league)[1:]]
    # printed once the league is committed: a reader that stops reading (`| head -1`) can no
    # longer undo what the line says was done
    for line in lines:
        echo(line)


@league_group.command("set")
@click.argument("name")
@click.option(
    "--show-entrants/--hide-entrants",
    default=None,
    help="whether the web view lists entrants (names only) while entries are open",
)
@option_flags
@_refusals
def league_set(
    name: str, show_entrants: bool | None, option_pairs: tuple[str, ...], options_file: str | None
) -> None:
    """Change a setting of league NAME. ``--option``/``--options`` replace the ruleset's league
    options (merged over the current ones) while entries are open; refused once they close."""
    with _session() as (_s, _f, session):
        league = svc.get_league(session, name)
        if option_pairs or options_file:
            merged = {**dict(league.options or {}), **read_options(option_pairs, options_file)}
            svc.set_options(session, league, merged, now=now())
            for line in ruleset_lines(league):
                echo(f"  {line}")
        if show_entrants is not None:
            league.show_entrants = show_entrants
        click.echo(
            f"league {league.name}: entrants "
            f"{'listed' if league.show_entrants else 'not listed'} on the web while open"
        )


@league_group.command("list")
def league_list() -> None:
    """List every league with its state and number of entries."""
    from sqlalchemy import func, select

    from app.db.models import Entry

    with _session() as (_s, _f, session):
        leagues = svc.all_leagues(session)
        if not leagues:
            click.echo("no leagues")
        for lg in leagues:
            n = session.scalar(
                select(func.count())
                .select_from(Entry)
                .where(Entry.league_id == lg.id, Entry.status == "active")
            )
            echo(f"{lg.name}\t{lg.state}\t{n} entries\tdeadline {iso(lg.entry_deadline)}")


@league_group.command("show")
@click.argument("name")
@click.option(
    "--show-addresses",
    is_flag=True,
    help="list the players' mail addresses (default: their public names only)",
)
@_refusals
def league_show(name: str, show_addresses: bool) -> None:
    """Show league NAME: settings, entries (with seats) and the schedule with results (a
    played round shows when it was played, the others when they are scheduled). Players appear
    by their public names (display name, else a masked address); ``--show-addresses`` adds
    the addresses."""
    from sqlalchemy import select

    from app.db.models import Battle, Round

    with _session() as (_s, _f, session):
        lg = svc.get_league(session, name)
        echo(f"league {lg.name} ({lg.state})")
        echo(f"  ruleset: {lg.ruleset}{' (options fixed)' if lg.state != 'open' else ''}")
        for line in ruleset_lines(lg):
            echo(f"    {line}")
        echo(f"  entry deadline: {iso(lg.entry_deadline)}")
        every = format_duration(lg.rounds_every_s) if lg.rounds_every_s else "by hand"
        echo(f"  rounds every: {every}; next round: {iso(lg.next_round_at) or '-'}")
        echo(
            f"  points: {lg.points_win}/{lg.points_draw}/{lg.points_loss}"
            f"{'; double round-robin' if lg.double else ''}"
        )
        from app.league.formats import describe

        for line in describe(lg, "en"):
            echo(f"  format: {line}")
        names: dict[int, str] = {}
        echo("entries:")
        for e, p, sheet in svc.entries_of(session, lg):
            unit = sheet.unit_name if sheet else "-"
            who = public_name(p.display_name, p.address, p.id)
            names[e.id] = f"{who} ({unit})"
            seat = f"seat {e.seat + 1}" if e.seat is not None else "unseated"
            ver = f"v{sheet.version}" if sheet else "no sheet"
            shown = f"{who} <{p.address}>" if show_addresses else who
            echo(f"  {shown}\t{e.status}\t{seat}\t{unit} {ver}")
        for rnd in session.scalars(
            select(Round).where(Round.league_id == lg.id).order_by(Round.number)
        ):
            if rnd.state == "done" and rnd.done_at is not None:
                at = f"played {iso(rnd.done_at)}"  # not the schedule: it may have run early
            else:
                at = iso(rnd.scheduled_at) or "by hand"
            echo(f"round {rnd.number} ({rnd.state}, {at}):")
            for b in session.scalars(
                select(Battle).where(Battle.round_id == rnd.id).order_by(Battle.board)
            ):
                a = names.get(b.entry_a_id, "?")
                if b.entry_b_id is None:
                    echo(f"  {b.board}. {a}: bye")
                    continue
                vs = f"{a} vs {names.get(b.entry_b_id, '?')}"
                if b.state == "done":
                    res = {0: "A wins", 1: "B wins", None: "draw"}[b.winner]
                    echo(
                        f"  {b.board}. {vs}: {res} ({b.reason}, turn {b.turns}, "
                        f"HP {b.hp_a}/{b.hp_b})"
                    )
                else:
                    echo(f"  {b.board}. {vs}: {b.state}")


@league_group.command("close-entries")
@click.argument("name")
@_refusals
def league_close(name: str) -> None:
    """Close entries of NAME now: seat the entries, store the rounds the format pairs now (the
    whole schedule of a format that pairs at close, a round robin's Berger tables; else round 1)
    and mail every player the pairings of round 1."""
    from sqlalchemy import func, select

    from app.db.models import Round

    with _session() as (settings, _f, session):
        lg = svc.get_league(session, name)
        svc.close_entries(session, lg, now=now(), mail=_mail(settings))
        n = session.scalar(select(func.count()).select_from(Round).where(Round.league_id == lg.id))
        from app.league.formats import format_of

        fmt = format_of(lg)
        later = (
            ""
            if fmt.pairs_at_close or lg.state == "finished"
            else f"; {fmt.name}: each next round is paired after the results of the one before"
        )
        rounds = f"{n} round scheduled" if n == 1 else f"{n} rounds scheduled"
        click.echo(f"closed entries of {lg.name}: {rounds} ({lg.state}){later}")


@league_group.command("run-round")
@click.argument("name")
@click.option("--all", "all_rounds", is_flag=True, help="play every remaining round")
@click.option(
    "--round",
    "round_number",
    type=int,
    default=None,
    help="play only this round (a no-op when it is done already)",
)
@_refusals
def league_run_round(name: str, all_rounds: bool, round_number: int | None) -> None:
    """Play the next round of NAME (or all rounds), queuing every report."""
    settings, factory = _settings_and_factory()
    played = svc.run_round(
        factory, _mail(settings), name, all_rounds=all_rounds, round_number=round_number, now=now()
    )
    if played:
        click.echo(
            f"played round{'s' if len(played) > 1 else ''} {', '.join(map(str, played))} of {name}"
        )
    else:
        click.echo(f"nothing to play in {name}")


@league_group.command("standings")
@click.argument("name")
@click.option("--lang", type=click.Choice(["ja", "en"]), default="en", show_default=True)
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="also write the standings as HTML to this file",
)
@_refusals
def league_standings(name: str, lang: str, html_file: Path | None) -> None:
    """Print the standings of NAME (and write HTML with --html FILE)."""
    if html_file is not None:
        folder = html_file.parent if str(html_file.parent) else Path(".")
        if not folder.is_dir():
            raise click.BadParameter(f"folder {str(folder)!r} does not exist", param_hint="--html")
        if not os.access(folder, os.W_OK) or (
            html_file.exists() and not os.access(html_file, os.W_OK)
        ):
            raise click.BadParameter(f"{str(html_file)!r} is not writable", param_hint="--html")
    with _session() as (_s, _f, session):
        lg = svc.get_league(session, name)
        text = svc.render_standings(session, lg, lang=lang, fmt="text")
        html = svc.render_standings(session, lg, lang=lang, fmt="html") if html_file else None
    if html_file is not None and html is not None:
        try:
            html_file.write_text(html, encoding="utf-8")
        except OSError as exc:
            raise click.ClickException(f"cannot write {html_file}: {exc.strerror or exc}") from exc
    echo(text, nl=False)
    if html_file is not None:
        click.echo(f"wrote {html_file}")


@league_group.command("disqualify")
@click.argument("name")
@click.argument("player")
@_refusals
def league_disqualify(name: str, player: str) -> None:
    """Disqualify PLAYER (mail address) from NAME: pending games are voided, games played no
    longer count."""
    with _session() as (_s, _f, session):
        lg = svc.get_league(session, name)
        try:
            svc.disqualify(session, lg, player, now=now())
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="PLAYER") from exc
        click.echo(f"disqualified {player} from {lg.name}")


@league_group.command("resend")
@click.argument("name")
@click.argument("round_number", metavar="ROUND", type=int)
@_refusals
def league_resend(name: str, round_number: int) -> None:
    """Queue the battle reports and standings of ROUND of NAME again."""
    settings, factory = _settings_and_factory()
    n = svc.resend(factory, _mail(settings), name, round_number, now=now())
    click.echo(f"queued {n} mails for round {round_number} of {name}")


@click.command("tick")
def tick_command() -> None:
    """Do whatever is due now (close entries, play rounds, organizer requests by mail); safe to
    run every minute.

    A league that fails is reported (``error in league NAME: …`` on stderr) without stopping the
    others; the command then exits 1."""
    settings, factory = _settings_and_factory()
    done = svc.tick(factory, _mail(settings), now=now())
    from app.mail import requests  # organizer run/resend by mail (issue 9.5)

    done += requests.run_pending(factory, settings, now=now())
    failed = False
    for line in done:
        is_error = line.startswith("error in league ")
        failed = failed or is_error
        click.echo(line, err=is_error)
    if not done:
        click.echo("nothing due")
    if failed:
        raise SystemExit(1)


def register(group: click.Group) -> None:
    """Add ``db``, ``league`` and ``tick`` to ``group``."""
    group.add_command(db_group)
    group.add_command(league_group)
    group.add_command(tick_command)
