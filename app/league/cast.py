"""A plain, picklable snapshot of a league (entries, players, sheets, thread keys) for playing
rounds and building reports, in this process or in worker processes; and the league row lock.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import (
    Battle,
    Entry,
    InboundMessage,
    League,
    Player,
    SheetVersion,
)
from app.league.errors import BadState
from app.league.privacy import public_name


@dataclass(frozen=True, slots=True)
class _P:
    """A player as the report builders need it (picklable)."""

    address: str
    display_name: str
    lang: str
    charset: str


@dataclass(frozen=True, slots=True)
class _E:
    """An entry: its player and status."""

    player_id: int
    status: str


@dataclass(frozen=True, slots=True)
class _S:
    """A sheet version: the texts to parse and whether it is the entry's active one."""

    id: int
    entry_id: int
    version: int
    normalized: str
    text: str
    active: bool


@dataclass(frozen=True, slots=True)
class _B:
    """A battle's inputs and recorded result (from a row, or just fought)."""

    id: int
    board: int
    entry_a_id: int
    entry_b_id: int
    sheet_a_id: int
    sheet_b_id: int
    winner: int | None = None
    reason: str | None = None
    turns: int | None = None
    hp_a: int | None = None
    hp_b: int | None = None
    engine_version: str | None = None

    @classmethod
    def of(cls, b: Battle) -> _B:
        assert b.entry_b_id is not None and b.sheet_a_id and b.sheet_b_id
        return cls(b.id, b.board, b.entry_a_id, b.entry_b_id, b.sheet_a_id, b.sheet_b_id,
                   b.winner, b.reason, b.turns, b.hp_a, b.hp_b, b.engine_version)


@dataclass
class _Cast:
    """A plain, picklable snapshot of a league for playing rounds and building reports (in this
    process or in worker processes): entries, players, sheets (each parsed once per process)
    and thread keys (sheet id → Message-ID of the mail that entered it)."""

    league_id: int
    league_name: str
    entries: dict[int, _E]
    players: dict[int, _P]
    sheets: dict[int, _S]
    thread: dict[int, str]
    sender: str = ""
    sender_name: str = ""
    units: dict[int, Any] = dataclasses.field(default_factory=dict)
    #: the league's ruleset and its options (``League.ruleset``, ``League.options``)
    ruleset: str = ""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def rules(self) -> Any:
        """The league's :class:`~app.rules.base.Ruleset` (``ruleset`` with ``options``)."""
        from app.rules import ruleset

        return ruleset(self.ruleset, self.options)

    def label(self, sheet_id: int) -> str:
        """The ruleset's standings label of sheet ``sheet_id``'s entry (``Ruleset.label``)."""
        return str(self.rules.label(self.unit(sheet_id)))
    public_url: str = ""  # the web view's base URL: report mails link to their battle's page
    #: the league's ``app.formats.Format`` (reports of a knockout say how a draw was decided)
    fmt: Any = None

    def unit(self, sheet_id: int) -> Any:
        """The parsed entry of sheet ``sheet_id`` (``Sheet.entry`` of the league's ruleset);
        raises :class:`BadState` when it no longer parses (the stored normalized text is tried
        first, then the text as sent)."""
        if sheet_id not in self.units:
            sv = self.sheets[sheet_id]
            rules = self.rules
            res = rules.parse_sheet(sv.normalized)
            if not res.ok or res.entry is None:
                res = rules.parse_sheet(sv.text)
            if not res.ok or res.entry is None:
                raise BadState(
                    f"sheet {sv.id} (entry {sv.entry_id}, version {sv.version}) no longer parses",
                    "sheet-unreadable")
            self.units[sheet_id] = res.entry
        return self.units[sheet_id]

    def name(self, entry_id: int) -> str:
        """The player's public name (never the address: ``app.league.privacy``)."""
        pid = self.entries[entry_id].player_id
        p = self.players[pid]
        return public_name(p.display_name, p.address, pid)

    def player_of(self, entry_id: int) -> _P:
        return self.players[self.entries[entry_id].player_id]


_MSG_ID = re.compile(r"[^<>\s]+@[^<>\s]+")


def thread_id(message_key: str | None) -> str | None:
    """The Message-ID to thread a league mail under, from ``InboundMessage.message_key`` of the
    mail that entered a sheet: the first ``left@right`` id in it with exactly one pair of angle
    brackets (``<abc@example.org>>`` and ``abc@example.org`` both give ``<abc@example.org>``;
    RFC 5322 §3.6.4 msg-id). ``None`` (no threading) for ``None``, a hash key ``sha256:…``
    (the mail had no usable Message-ID) or a key without such an id."""
    if not message_key or message_key.startswith("sha256:"):
        return None
    m = _MSG_ID.search(message_key)
    return f"<{m.group(0)}>" if m else None


def _load_cast(session: Session, league: League, settings: Any = None) -> _Cast:
    entries = {e.id: _E(e.player_id, e.status)
               for e in session.scalars(select(Entry).where(Entry.league_id == league.id))}
    pids = {e.player_id for e in entries.values()}
    players = {p.id: _P(p.address, p.display_name or "", p.lang or "ja", p.charset or "utf-8")
               for p in session.scalars(select(Player).where(Player.id.in_(pids)))} \
        if pids else {}
    rows = list(session.scalars(select(SheetVersion).where(
        SheetVersion.entry_id.in_(list(entries))))) if entries else []
    sheets = {s.id: _S(s.id, s.entry_id, s.version, s.normalized, s.text, bool(s.active))
              for s in rows}
    inbound = {s.id: s.inbound_id for s in rows if s.inbound_id is not None}
    keys: dict[int, str] = {}
    if inbound:
        for iid, key in session.execute(select(InboundMessage.id, InboundMessage.message_key)
                                        .where(InboundMessage.id.in_(set(inbound.values())))):
            keys[iid] = key
    thread: dict[int, str] = {}
    for sid, iid in inbound.items():
        msgid = thread_id(keys.get(iid))
        if msgid:
            thread[sid] = msgid
    from app.league.formats import format_of

    return _Cast(league.id, league.name, entries, players, sheets, thread,
                 sender=getattr(settings, "server_address", ""),
                 sender_name=getattr(settings, "server_name", ""),
                 ruleset=league.ruleset or "", options=dict(league.options or {}),
                 public_url=getattr(settings, "public_url", "") or "", fmt=format_of(league))


def _lock_league(session: Session, league_id: int) -> League:
    """Lock the league row first and load it as committed: serializes concurrent runners
    (:func:`app.league.entries.lock_league`)."""
    from app.league.entries import lock_league_row

    return lock_league_row(session, league_id)

