"""Leagues found by name, players and entries: addresses, entering and replacing a sheet, withdrawing, the active sheet.

The league reaches the rules through the one cached door of ``app.rules``
(:func:`app.rules.league_ruleset`: the league's ruleset with its options); no particular ruleset
is imported.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import (
    Entry,
    League,
    Player,
    SheetVersion,
)
from app.league.errors import BadState, EntriesClosed, NoSuchLeague, NotEntered
from app.league.timeparse import as_utc


def engine_version(league: Any = None) -> str:
    """The current engine version of ``league``'s ruleset (``Ruleset.engine_version``; the
    default ruleset's without a league)."""
    from app.rules import league_ruleset

    return str(league_ruleset(league).engine_version)


def normalize_address(address: str) -> str:
    """Lower-case and strip a mail address. Raises ``ValueError`` unless it looks like
    ``local@domain``."""
    a = address.strip().lower()
    local, at, domain = a.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in a):
        raise ValueError(f"not a mail address: {address!r}")
    return a


def get_or_create_player(
    session: Session, address: str, *, display_name: str = "", lang: str | None = None
) -> Player:
    """The player with ``address`` (lower-cased), created when new. A non-empty ``display_name``
    or a ``lang`` (``ja``/``en``) given updates the stored one. Raises ``ValueError`` for a bad
    address or language."""
    addr = normalize_address(address)
    if lang is not None and lang not in ("ja", "en"):
        raise ValueError(f"unknown language {lang!r}")
    player = session.scalar(select(Player).where(Player.address == addr))
    if player is None:
        player = Player(address=addr, display_name=display_name, lang=lang or "ja")
        session.add(player)
        session.flush()
        return player
    if display_name:
        player.display_name = display_name
    if lang:
        player.lang = lang
    return player


def create_player(
    session: Session,
    address: str,
    *,
    created_at: dt.datetime,
    display_name: str = "",
    charset: str | None = None,
) -> Player:
    """A new player at ``address`` (lower-cased), created at ``created_at``, for a caller that
    looked ``address`` up already in its transaction and found nobody: one ``INSERT``, no second
    look-up unless ``address`` was not in its normal form (then the player at the normal form
    is returned if there is one, unchanged). ``charset`` ``None``: the column's default. Raises
    ``ValueError`` for a bad address."""
    addr = normalize_address(address)
    if addr != address:
        found = session.scalar(select(Player).where(Player.address == addr))
        if found is not None:
            return found
    player = Player(address=addr, display_name=display_name, lang="ja", created_at=created_at)
    if charset is not None:
        player.charset = charset
    session.add(player)
    session.flush()
    return player


def _name_key(name: str) -> str:
    """The key two league names must not share: NFKC (full-width ``ｓｐｒｉｎｇ`` is ``spring``)
    and Unicode case folding."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def find_league(session: Session, name: str) -> League | None:
    """The league called ``name`` ignoring case and width (NFKC and case folding), or ``None``.
    An exact match is looked up first; otherwise every league name is compared (the number of
    leagues is small), since SQL ``lower()`` folds only ASCII on SQLite."""
    exact = session.scalar(select(League).where(League.name == name.strip()))
    if exact is not None:
        return exact
    key = _name_key(name)
    for league_id, league_name in session.execute(
        select(League.id, League.name).order_by(League.id)
    ):
        if _name_key(league_name) == key:
            return session.get(League, league_id)
    return None


def get_league(session: Session, name: str) -> League:
    """The league called ``name`` ignoring case (:func:`find_league`); raises
    :class:`NoSuchLeague`."""
    league = find_league(session, name)
    if league is None:
        raise NoSuchLeague(f"no league named {name!r}")
    return league


def open_leagues(session: Session) -> list[League]:
    """Leagues taking entries (state ``open``), by name."""
    return list(session.scalars(select(League).where(League.state == "open").order_by(League.name)))


def all_leagues(session: Session) -> list[League]:
    """Every league, by creation order."""
    return list(session.scalars(select(League).order_by(League.id)))


@dataclass(frozen=True)
class SubmitOutcome:
    """What :func:`submit_entry` did.

    Attributes:
        accepted: the sheet is valid and is now the entry's active sheet.
        sheet: the league ruleset's ``Sheet`` (``Ruleset.parse_sheet``: problems to report either way).
        replaced: an earlier active sheet was replaced.
        version: the new sheet version number (1-based), ``None`` when rejected.
        entry: the player's entry in the league when the sheet was accepted (new or not).
    """

    accepted: bool
    sheet: Any
    replaced: bool
    version: int | None
    entry: Entry | None = None


def lock_league(session: Session, league: League) -> League:
    """Take the league lock for the caller's transaction and return the league as committed
    (:func:`lock_league_row`). ``close-entries`` takes the same lock, so an entry either
    commits before the close (and is seated) or sees the league closed (and its reply says
    so; issue 9.1)."""
    return lock_league_row(session, league.id)


def lock_league_row(session: Session, league_id: int) -> League:
    """Lock league ``league_id``'s row until the caller's transaction ends and load it as
    committed: ``SELECT ... FOR UPDATE`` on PostgreSQL (the row lock an ``UPDATE`` takes, in
    one statement); on SQLite the transaction's ``BEGIN IMMEDIATE`` has taken the database's
    write lock already (``app.db.session.make_engine``). Raises ``NoSuchLeague`` when the row
    is gone."""
    league = session.get(League, league_id, with_for_update=True, populate_existing=True)
    if league is None:
        raise NoSuchLeague(f"league {league_id} no longer exists")
    return league


def _replacing_between_updates(league: League) -> bool:
    """A format that ``replaces_between_rounds`` (an accumulating round robin) takes
    replacement sheets of seated entries after entries close (the next round fights the active
    sheets of when it is played: ``app.league.play``)."""
    from app.league.formats import format_of

    return league.state in ("closed", "running") and format_of(league).replaces_between_rounds


def _check_open(league: League, now: dt.datetime) -> None:
    if _replacing_between_updates(league):
        return
    deadline = as_utc(league.entry_deadline)
    if league.state != "open" or (deadline is not None and now >= deadline):
        raise EntriesClosed(f"entries to league {league.name!r} are closed")


def check_open(league: League, now: dt.datetime) -> None:
    """Raise :class:`EntriesClosed` unless ``league`` takes entries, replacements and
    withdrawals at ``now`` (state ``open`` and before the deadline); the mail layer asks before
    it keeps a change for its owner's confirmation (``app.league.ownership``)."""
    _check_open(league, now)


def _entry(session: Session, league: League, player: Player) -> Entry | None:
    return session.scalar(
        select(Entry).where(Entry.league_id == league.id, Entry.player_id == player.id)
    )


def submit_entry(
    session: Session,
    league: League,
    player: Player,
    sheet_text: str,
    *,
    inbound_id: int | None = None,
    now: dt.datetime,
    name_default: bool = True,
) -> SubmitOutcome:
    """Enter (or replace) ``player``'s sheet in ``league``.

    A valid sheet becomes a new :class:`SheetVersion` (version n+1, active; the previous one is
    kept, inactive) with the normalized notation; a player without a display name gets a default
    one in the sheet's language (``app.league.names``) unless ``name_default`` is false (the
    mail layer, which settles the name the mail asks for right after: one naming, not two). An invalid sheet stores nothing and comes back
    with ``accepted=False`` and the problems. Raises :class:`EntriesClosed` after the deadline or
    once entries are closed, and :class:`BadState` (code ``disqualified``) for a disqualified
    player.
    """
    lock_league(session, league)
    _check_open(league, now)
    from app.league.formats import league_rules

    rules = league_rules(league)
    result = rules.parse_sheet(sheet_text)
    if not result.ok or result.entry is None:
        return SubmitOutcome(False, result, False, None)
    entry = _entry(session, league, player)
    if entry is not None and entry.status == "disqualified":
        raise BadState(f"{player.address} is disqualified from {league.name!r}", "disqualified")
    if _replacing_between_updates(league) and (
        entry is None or entry.seat is None or entry.status != "active"
    ):
        raise EntriesClosed(
            f"entries to league {league.name!r} are closed: between updates "
            "only seated entries replace their unit"
        )
    prev: Sequence[SheetVersion] = ()  # a new entry has no sheet versions yet
    if entry is None:
        from app.league.ownership import new_key

        entry = Entry(
            league_id=league.id,
            player_id=player.id,
            status="active",
            created_at=now,
            owner_key=new_key(),
        )  # the entry key (app.league.ownership)
        session.add(entry)
        session.flush()
    else:
        prev = session.scalars(select(SheetVersion).where(SheetVersion.entry_id == entry.id)).all()
    replaced = False
    if entry.status == "withdrawn":
        entry.status = "active"
    for sv in prev:
        if sv.active:
            replaced = replaced or entry.status == "active"
            sv.active = False
    version = 1 + max((sv.version for sv in prev), default=0)
    unit = result.entry
    sheet = SheetVersion(
        entry_id=entry.id,
        version=version,
        text=sheet_text,
        normalized=rules.format_sheet(unit, result.lang),
        unit_name=rules.label(unit)[:200],
        lang=result.lang,
        active=True,
        inbound_id=inbound_id,
        created_at=now,
    )
    session.add(sheet)
    session.flush()
    if name_default and not player.display_name:  # others see this player: a readable name
        from app.league.names import settle

        settle(session, player, "", result.lang or player.lang, may_change=False)
    return SubmitOutcome(True, result, replaced and version > 1, version, entry)


def withdraw(session: Session, league: League, player: Player, *, now: dt.datetime) -> None:
    """Withdraw ``player``'s entry (its sheets are kept). Raises :class:`EntriesClosed` once
    entries are closed and :class:`NotEntered` when there is no active entry."""
    lock_league(session, league)
    _check_open(league, now)
    entry = _entry(session, league, player)
    if entry is None or entry.status != "active":
        raise NotEntered(f"{player.address} has no entry in {league.name!r}")
    entry.status = "withdrawn"
    from app.league.formats import leave

    leave(league, entry)  # a kept format state (the hill) stops counting it at once


def active_sheet(session: Session, entry: Entry) -> SheetVersion | None:
    """The entry's active sheet version, or ``None``."""
    return session.scalar(
        select(SheetVersion).where(SheetVersion.entry_id == entry.id, SheetVersion.active)
    )


def entries_of(
    session: Session, league: League
) -> Iterable[tuple[Entry, Player, SheetVersion | None]]:
    """Every entry of ``league`` with its player and active sheet, by seat then entry order."""
    rows = list(
        session.execute(
            select(Entry, Player)
            .join(Player, Entry.player_id == Player.id)
            .where(Entry.league_id == league.id)
        ).all()
    )
    rows.sort(key=lambda r: (r[0].seat if r[0].seat is not None else 10**9, r[0].id))
    for e, p in rows:
        yield e, p, active_sheet(session, e)
