"""A league's lifecycle: creating it (names and limits), finding it, closing entries (seats and
the schedule) and :func:`tick`, which does whatever is due.

A league moves ``open`` → ``closed`` (entries closed, seats and round 1 fixed) → ``running``
(first round started) → ``finished`` (the format has nothing more to pair); ``docs/league.md``.
Each next round is asked of the league's format when a round is done (``app.league.play``).
A format that is ``always_open`` (the hill) never closes (``app.league.challenge``).
"""

from __future__ import annotations

import datetime as dt
import logging
import unicodedata
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import (
    Entry,
    League,
    Round,
    SheetVersion,
)
from app.db.session import transaction
from app.league.cast import lock_league
from app.league.entries import _check_open, active_sheet, find_league, open_leagues
from app.league.errors import BadState, LeagueError
from app.league.formats import format_of, league_rules, set_format, store_first_rounds
from app.league.notify import Notices
from app.league.play import _play_rounds
from app.league.timeparse import as_utc, format_duration
from app.reports.dates import human_time

_log = logging.getLogger("amaryllis.league")


STATES = ("open", "closed", "running", "finished")


#: the latest entry deadline :func:`create_league` accepts, counted from ``now``
MAX_DEADLINE_AHEAD = dt.timedelta(days=3653)  # 10 years


#: the bounds of ``rounds_every`` in :func:`create_league`
MIN_ROUNDS_EVERY = dt.timedelta(minutes=1)


MAX_ROUNDS_EVERY = dt.timedelta(days=365)


#: the largest number of points :func:`create_league` accepts for a win, draw or loss
MAX_POINTS = 1000


def create_league(
    session: Session,
    name: str,
    *,
    entry_deadline: dt.datetime,
    rounds_every: dt.timedelta | None = None,
    points: tuple[int, int, int] = (3, 1, 0),
    double: bool = False,
    password: str | None = None,
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
    format: str | None = None,
    format_options: dict[str, Any] | None = None,
    now: dt.datetime,
) -> League:
    """Create an open league. ``name``: 1-64 characters, see :func:`check_league_name` (unique
    ignoring case, :func:`find_league`); ``points``: win, draw,
    loss, each in ``0 .. MAX_POINTS`` (1000) with win >= draw >= loss; ``entry_deadline``
    after ``now`` and at most ``MAX_DEADLINE_AHEAD`` (10 years) ahead; ``rounds_every`` (when
    given) from ``MIN_ROUNDS_EVERY`` (1 minute) to ``MAX_ROUNDS_EVERY`` (365 days), so that
    every round of the schedule has a representable time; ``ruleset`` (default: the default
    ruleset) the game it plays, with its league ``options`` validated by the ruleset and stored
    normalized (``Ruleset.options``); ``format`` (default: a round robin) how it is paired, with
    its ``format_options`` validated by the format (``app.league.formats.set_format``; a format
    that is always open gets no deadline).

    Raises :class:`BadState` (codes ``bad-name``, ``league-exists``, ``bad-deadline``,
    ``bad-points``, ``bad-interval``, ``bad-ruleset``, ``bad-option``, ``bad-format``) for a
    taken or bad name, a deadline out of range, bad points, an interval out of range, an
    unknown ruleset or a bad option, an unknown format or a bad format option (the message
    names it)."""
    rs = check_ruleset(ruleset, options)
    name = check_league_name(name)
    existing = find_league(session, name)
    if existing is not None:
        raise BadState(
            f"a league named {existing.name!r} exists already (names ignore case)", "league-exists"
        )
    deadline = as_utc(entry_deadline)
    assert deadline is not None
    if deadline <= now:
        raise BadState(
            f"the entry deadline {human_time(deadline)} is not in the future", "bad-deadline"
        )
    if deadline - now > MAX_DEADLINE_AHEAD:
        raise BadState(
            f"the entry deadline {human_time(deadline)} is more than 10 years ahead", "bad-deadline"
        )
    w, d, l_ = points
    if not all(isinstance(p, int) and 0 <= p <= MAX_POINTS for p in points):
        raise BadState(f"points must each be 0..{MAX_POINTS}, got {w}/{d}/{l_}", "bad-points")
    if not (w >= d >= l_ >= 0):
        raise BadState(
            f"points must satisfy win >= draw >= loss >= 0, got {w}/{d}/{l_}", "bad-points"
        )
    every = None
    if rounds_every is not None:
        if not MIN_ROUNDS_EVERY <= rounds_every <= MAX_ROUNDS_EVERY:
            raise BadState(
                "rounds must be from 1 minute to 365 days apart, got "
                f"{format_duration(rounds_every)}",
                "bad-interval",
            )
        every = int(rounds_every.total_seconds())
    league = League(
        name=name,
        entry_deadline=deadline,
        rounds_every_s=every,
        points_win=w,
        points_draw=d,
        points_loss=l_,
        double=double,
        password=password,
        state="open",
        created_at=now,
        ruleset=rs.name,
        options=rs.options,
    )
    if format is not None or format_options:
        from app.formats import DEFAULT_FORMAT

        try:
            set_format(league, format or DEFAULT_FORMAT, dict(format_options or {}))
        except ValueError as exc:
            raise BadState(str(exc), "bad-format") from exc
    session.add(league)
    session.flush()
    return league


def check_ruleset(ruleset: str | None, options: dict[str, Any] | None) -> Any:
    """The :class:`~app.rules.base.Ruleset` called ``ruleset`` (``None``: the default) with
    ``options``. Raises :class:`BadState` ``bad-ruleset`` for an unknown name and ``bad-option``
    for options the ruleset refuses (its message names the option)."""
    from app.rules import find_ruleset
    from app.rules import ruleset as door

    try:
        cls = find_ruleset(ruleset) if ruleset else None
    except ValueError as exc:
        raise BadState(str(exc), "bad-ruleset") from exc
    try:
        return door(cls.name if cls else None, options)
    except (ValueError, TypeError) as exc:
        raise BadState(f"{exc}", "bad-option") from exc


def set_options(
    session: Session, league: League, options: dict[str, Any], *, now: dt.datetime
) -> Any:
    """Replace ``league``'s ruleset options with ``options`` (validated as by
    :func:`create_league`) while entries are open; returns the ruleset. Raises
    :class:`EntriesClosed` once entries are closed (the options are fixed then: every battle of
    the league plays under the same ones), :class:`BadState` ``bad-option``, and
    ``options-refuse-sheets`` when a sheet already entered is not valid under the new options
    (nothing changes; the message names the entries' units)."""
    from app.db.models import Entry

    _check_open(league, now)
    rs = check_ruleset(league.ruleset, options)
    refused = []
    for entry in session.scalars(
        select(Entry).where(Entry.league_id == league.id, Entry.status == "active")
    ):
        sheet = active_sheet(session, entry)
        if sheet is not None and not rs.parse_sheet(sheet.text).ok:
            refused.append(sheet.unit_name)
    if refused:
        raise BadState(
            f"the new options refuse {len(refused)} entered sheet(s): {', '.join(refused[:10])}",
            "options-refuse-sheets",
        )
    league.options = rs.options
    return rs


#: punctuation allowed in a league name besides letters and digits
NAME_PUNCTUATION = "_-."


def check_league_name(name: str) -> str:
    """``name`` stripped and NFC-normalized, when it is a valid league name: 1-64 characters,
    each a Unicode letter (categories L*, with combining marks M*), a decimal digit (Nd), ``_``,
    ``-`` or ``.`` (so ``春`` and ``spring-2026`` are fine). Spaces, ``[]`` (they would break the
    subject tag ``[NAME]``), ``+``, ``@``, ``/`` (the plus address ``tourney+NAME@…``), ``<>`` and
    other punctuation are refused, and so are a name that starts or ends with ``.`` or holds
    ``..`` (``tourney+..@…`` is no valid address, and ``/leagues/..`` no reachable page).
    Raises :class:`BadState` (code ``bad-name``)."""
    clean = unicodedata.normalize("NFC", name.strip())
    bad = sorted(
        {
            c
            for c in clean
            if not (
                unicodedata.category(c)[0] in "LM"
                or unicodedata.category(c) == "Nd"
                or c in NAME_PUNCTUATION
            )
        }
    )
    if not clean or len(clean) > 64 or bad or unicodedata.category(clean[0])[0] == "M":
        shown = f" (not allowed: {' '.join(repr(c) for c in bad)})" if bad else ""
        raise BadState(
            f"bad league name {name!r}: 1-64 letters, digits, '_', '-' or '.'{shown}", "bad-name"
        )
    if clean.startswith(".") or clean.endswith(".") or ".." in clean:
        raise BadState(
            f"bad league name {name!r}: it may not start or end with '.' or hold "
            "'..' (the league's mail address tourney+NAME@… must be valid)",
            "bad-name",
        )
    return clean


def close_entries(
    session: Session, league: League, *, now: dt.datetime, mail: Notices | None = None
) -> None:
    """Close entries: seat the active entries (in order of entry, seat 0 first) and store the
    rounds the league's format pairs now (``app.league.formats``), with each side's active sheet
    version fixed: a round robin's whole Berger table (results never change it, so its rounds
    are known, mailed and shown from the start), round 1 of any other format (the format is
    asked for round k + 1 when round k is done: ``app.league.play``).

    Round k is scheduled at ``now + (k - 1) × rounds_every``, unscheduled without an interval
    (the organizer runs rounds). When the format
    has nothing to pair (fewer than two entries) the league is finished at once.
    With ``mail`` (the mail layer's :class:`~app.league.notify.Notices`), every seated player is
    mailed the pairings of round 1 (the standings "before round 1", round 0),
    so the first round is known before any battle; with fewer than two entries, the seated player
    is mailed (the same way, threaded under their entry) that the league did not take place.
    Raises :class:`BadState` unless the league is open, and for a format that is always open.

    Takes the league lock first (:func:`app.league.entries.lock_league`): entries submitted
    at the same moment either commit before it (and are seated) or wait and find the league
    closed (issue 9.1).
    """
    lock_league(session, league.id)
    if league.state != "open":
        raise BadState(f"league {league.name!r} is {league.state}, not open")
    if format_of(league).always_open:
        raise BadState(
            f"league {league.name!r} is always open: it has no entries to close", "always-open"
        )
    from app.league.ownership import expire_pending

    expire_pending(session, league, now)  # no replacement or withdrawal waits past the close
    entries = session.scalars(
        select(Entry)
        .where(Entry.league_id == league.id, Entry.status == "active")
        .order_by(Entry.id)
    ).all()
    with_sheet = (
        set(
            session.scalars(
                select(SheetVersion.entry_id).where(
                    SheetVersion.entry_id.in_([e.id for e in entries]), SheetVersion.active
                )
            )
        )
        if entries
        else set()
    )
    seated: list[Entry] = [e for e in entries if e.id in with_sheet]
    for seat, e in enumerate(seated):
        e.seat = seat
    session.flush()
    first = store_first_rounds(session, league, [e.id for e in seated], now=now)
    league.state = "finished" if isinstance(first, str) else "closed"
    league.next_round_at = None if isinstance(first, str) else first.scheduled_at
    if mail is not None and seated:
        # the pairings of round 1 or, with fewer than two entries, the news that the league
        # did not take place (the standings templates' "cancelled" text)
        session.flush()
        mail.queue_standings(session, league, 0, now=now)
        if not isinstance(first, str) and league_rules(league).takes_orders:
            mail.queue_pairings(session, league, first, now=now)


def tick(
    factory: sessionmaker[Session], mail: Notices | None, *, now: dt.datetime, stop: Any = None
) -> list[str]:
    """Do whatever is due at ``now``: close entries of open leagues past their deadline and play
    every scheduled round whose time has come (in order). In a league whose ruleset takes
    orders, its first open round also goes before its time when every paired player has sent
    orders, and its battles stopped at a checkpoint go on once both players are READY or the
    wait is over (``app.league.orders.due_early``). Idempotent: a second call at the same
    ``now`` does nothing. Returns one line per thing done.

    ``mail`` (the mail layer's :class:`~app.league.notify.Notices`) queues what players are
    told. Each league is handled on its own (its own transactions): an error in one league (a
    :class:`LeagueError` or anything unexpected, e.g. a schedule out of the date range) rolls
    back that league's step, is logged at ERROR (logger ``amaryllis.league``, with the league
    name) and comes back as a line ``error in league <name>: …``; the other leagues still
    proceed. The next tick tries the failed league again.

    A league's rounds are played by one worker at a time: the play lease
    (:func:`app.league.play.claim_play`); a league another live ``serve`` plays is skipped, or,
    where rounds are shared (PostgreSQL), helped: this process claims and fights chunks of the
    round that worker opened (:func:`app.league.play.help_rounds`).
    ``stop`` (a ``threading.Event``) ends the work between two stored chunks (``serve``'s
    SIGTERM); the round is resumed by the next tick."""
    from app.league.orders import due_early
    from app.league.play import claim_play, help_rounds, release_play

    done: list[str] = []
    with transaction(factory) as session:
        due = [
            (lg.id, lg.name)
            for lg in open_leagues(session)
            if (deadline := as_utc(lg.entry_deadline)) is not None and deadline <= now
        ]
    for lid, lname in due:
        try:
            with transaction(factory) as session:
                league = lock_league(session, lid)
                if league.state == "open":
                    close_entries(session, league, now=now, mail=mail)
                    done.append(f"closed entries of {league.name}")
        except Exception as exc:
            done.append(_tick_error(lname, "closing entries", exc))
    failed: set[int] = set()
    while not (stop is not None and stop.is_set()):  # each round done may bring the next one,
        with transaction(factory) as session:  # due already (the format pairs it)
            work: dict[int, list[tuple[int, str, int, int]]] = {}
            for league in session.scalars(
                select(League).where(League.state.in_(("closed", "running"))).order_by(League.id)
            ):
                if league.id in failed:
                    continue
                early = league_rules(league).takes_orders
                for rnd in session.scalars(
                    select(Round)
                    .where(Round.league_id == league.id, Round.state != "done")
                    .order_by(Round.number)
                ):
                    at = as_utc(rnd.scheduled_at)
                    if (at is None or at > now) and not (
                        early and due_early(session, league, rnd, now)
                    ):
                        break
                    early = False  # only the first open round may go before its time
                    work.setdefault(league.id, []).append(
                        (league.id, league.name, rnd.id, rnd.number)
                    )
        if not work:
            break
        for lid, rounds in work.items():
            if stop is not None and stop.is_set():
                break
            if not claim_play(factory, lid):
                failed.add(lid)  # another worker plays this league's rounds: help it (shared)
                try:
                    for number in help_rounds(factory, mail, lid, now=now, stop=stop):
                        done.append(f"played round {number} of {rounds[0][1]}")
                except Exception as exc:
                    done.append(_tick_error(rounds[0][1], "playing rounds", exc))
                continue
            try:
                played = _play_rounds(factory, mail, rounds, now, stop)
                for _, name, number in played:
                    done.append(f"played round {number} of {name}")
                if not played:
                    failed.add(lid)  # nothing to do after all: do not ask again this tick
            except Exception as exc:
                failed.add(lid)
                done.append(_tick_error(rounds[0][1], "playing rounds", exc))
            finally:
                release_play(factory, lid)
    return done


def _tick_error(league: str, step: str, exc: BaseException) -> str:
    """Log a league's failed tick step at ERROR (with the traceback unless it is a
    :class:`LeagueError`) and return the line :func:`tick` reports."""
    text = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    _log.error(
        "tick failed in league %s (%s): %s",
        league,
        step,
        text,
        exc_info=not isinstance(exc, LeagueError),
    )
    return f"error in league {league}: {step} failed: {text}"
