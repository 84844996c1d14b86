"""What every read model shares: public references to players and entries, finding a league by
name, when its sheets are public, the names of a league, and the per-process cache keyed by a
league's fingerprint.

The models are **public** (``docs/web.md``): a player is a :class:`PlayerRef` whose ``name`` is
:func:`app.league.privacy.public_name` (no dataclass here has an address field), and nothing
carries a unit before the league's sheets are public (:func:`sheets_public`) or a replacement
before it has fought (``app.league.standings.public_units``).
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Entry, League, Player, Round, SheetVersion
from app.league.formats import format_of
from app.league.privacy import public_name
from app.league.standings import public_units


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """A player as others see them: ``id`` (the ``/players/ID`` page) and the public ``name``."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class EntryRef:
    """One side of a pairing or a line of a table: the entry id, its player, and the unit's name
    (``""`` while the league's sheets are secret)."""

    entry_id: int
    player: PlayerRef
    unit: str


def sheets_public(league: League) -> bool:
    """True once the league's sheets may be shown: entries are closed (any state but
    ``open``), or the league's format is always open (its entries fight, and are shown, at
    once)."""
    return league.state != "open" or format_of(league).always_open


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip()).casefold()


def find_league(session: Session, name: str) -> League | None:
    """The league called ``name`` ignoring case (as ``app.league.service.find_league``), or
    ``None``."""
    exact = session.scalar(select(League).where(League.name == name.strip()))
    if exact is not None:
        return exact
    key = _name_key(name)
    for league_id, league_name in session.execute(select(League.id, League.name)):
        if _name_key(league_name) == key:
            return session.get(League, league_id)
    return None


def league_fingerprint(session: Session, league: League) -> tuple[Any, ...]:
    """A cheap value that changes whenever the cached parts of a league's view may change: its
    state, its rounds played (count, last ``done_at``), its entries' statuses and sheets."""
    rounds = session.execute(
        select(func.count(), func.max(Round.done_at)).where(
            Round.league_id == league.id, Round.state == "done"
        )
    ).one()
    statuses = tuple(
        session.execute(
            select(Entry.status, func.count(), func.max(Entry.id))
            .where(Entry.league_id == league.id)
            .group_by(Entry.status)
            .order_by(Entry.status)
        )
    )
    sheets = session.scalar(
        select(func.max(SheetVersion.id))
        .join(Entry, SheetVersion.entry_id == Entry.id)
        .where(Entry.league_id == league.id)
    )
    return (
        league.id,
        league.state,
        int(rounds[0] or 0),
        str(rounds[1]),
        tuple(tuple(r) for r in statuses),
        sheets,
    )


class _Cache:
    """A small thread-safe LRU of computed league parts, keyed by (kind, league id, …) and
    stamped with the fingerprint they were computed under."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._data: OrderedDict[tuple[Any, ...], tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...], stamp: Any) -> Any:
        with self._lock:
            hit = self._data.get(key)
            if hit is None or hit[0] != stamp:
                return None
            self._data.move_to_end(key)
            return hit[1]

    def put(self, key: tuple[Any, ...], stamp: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = (stamp, value)
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


cache = _Cache()
"""The per-process cache of every read model (several processes each keep their own; it stays
right because the key is read from the shared database on every call)."""


def clear_cache() -> None:
    """Forget every cached league part (tests, benchmarks)."""
    cache.clear()


def _players(session: Session, league_id: int) -> dict[int, PlayerRef]:
    """Entry id → public player, for every entry of the league."""
    rows = session.execute(
        select(Entry.id, Player.id, Player.display_name, Player.address)
        .join(Player, Entry.player_id == Player.id)
        .where(Entry.league_id == league_id)
    )
    return {eid: PlayerRef(pid, public_name(dn, addr, pid)) for eid, pid, dn, addr in rows}


def _sheet_units(session: Session, league_id: int) -> dict[int, str]:
    """Sheet version id → unit name, for every sheet of the league's entries."""
    rows = session.execute(
        select(SheetVersion.id, SheetVersion.unit_name)
        .join(Entry, SheetVersion.entry_id == Entry.id)
        .where(Entry.league_id == league_id)
    )
    return {k: v for k, v in rows}


class Names:
    """Builds :class:`EntryRef` values of one league: public names, and units unless the
    league's sheets are secret. A fought board shows the sheets it was fought with; anything
    else shows the entry's public unit (never a replacement that has not fought)."""

    def __init__(self, session: Session, league: League) -> None:
        self.secret = not sheets_public(league)
        self.players = _players(session, league.id)
        self.sheets = {} if self.secret else _sheet_units(session, league.id)
        self.public = {} if self.secret else public_units(session, league.id, set(self.players))

    def entry(
        self, entry_id: int, sheet_id: int | None = None, *, fought: bool = False
    ) -> EntryRef:
        """The reference of ``entry_id``; ``sheet_id`` the sheet of a board, shown only when
        the board was ``fought``."""
        player = self.players.get(entry_id, PlayerRef(0, "?"))
        if self.secret:
            return EntryRef(entry_id, player, "")
        unit = self.sheets.get(sheet_id, "") if sheet_id and fought else ""
        return EntryRef(entry_id, player, unit or self.public.get(entry_id, ""))
