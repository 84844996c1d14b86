"""A plain, picklable snapshot of a league (entries, players, sheets, thread keys) for playing
rounds and building reports, in this process or in worker processes; and the league row lock.
"""

from __future__ import annotations

import dataclasses
import functools
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
class CastPlayer:
    """A player as the report builders need it (picklable)."""

    address: str
    display_name: str
    lang: str
    charset: str
    #: ``Player.mail_pref``: ``all``, ``own`` (only their own battles) or ``none``
    mail_pref: str = "all"
    #: ``Player.digest_logs``: a digest carries the full logs of their own battles
    digest_logs: bool = False


@dataclass(frozen=True, slots=True)
class CastEntry:
    """An entry: its player and status, and its entry key (``Entry.owner_key``: mailed to its
    owner only, in a stopped battle's mail)."""

    player_id: int
    status: str
    key: str = ""


@dataclass(frozen=True, slots=True)
class CastSheet:
    """A sheet version: the texts to parse and whether it is the entry's active one."""

    id: int
    entry_id: int
    version: int
    normalized: str
    text: str
    active: bool


@dataclass(frozen=True, slots=True)
class Board:
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
    #: side A's tiebreak margin (``Outcome.margin``), once fought
    margin: int | None = None
    #: a ruleset with orders: ``battles.inputs`` (``app.league.orders.BoardInputs``; private)
    inputs: dict[str, Any] | None = None
    #: a paused battle's checkpoint turn (``battles.stop_turn``); ``None`` before its first fight
    stop_turn: int | None = None

    @classmethod
    def of(cls, b: Battle) -> Board:
        """The board of a stored battle with two sides and both sheets."""
        assert b.entry_b_id is not None and b.sheet_a_id and b.sheet_b_id
        return cls(
            b.id,
            b.board,
            b.entry_a_id,
            b.entry_b_id,
            b.sheet_a_id,
            b.sheet_b_id,
            b.winner,
            b.reason,
            b.turns,
            b.hp_a,
            b.hp_b,
            b.engine_version,
            b.margin,
            b.inputs,
            b.stop_turn,
        )


#: a battle's columns in :class:`Board`'s field order: ``Board(*row)`` of a row selected with
#: them (no ORM object, and not the stored outcome: a big round has half a million battles)
BOARD_COLUMNS = (
    Battle.id,
    Battle.board,
    Battle.entry_a_id,
    Battle.entry_b_id,
    Battle.sheet_a_id,
    Battle.sheet_b_id,
    Battle.winner,
    Battle.reason,
    Battle.turns,
    Battle.hp_a,
    Battle.hp_b,
    Battle.engine_version,
    Battle.margin,
    Battle.inputs,
    Battle.stop_turn,
)


#: seconds a battle stopped at a checkpoint waits for both players' READY when the league has no
#: round interval (``rules/margaret-magicalized.md`` §3.2: "three weeks at 24 h")
CHECKPOINT_WAIT_S = 24 * 3600


@dataclass
class Cast:
    """A plain, picklable snapshot of a league for playing rounds and building reports (in this
    process or in worker processes): entries, players, sheets (each parsed once per process)
    and thread keys (sheet id → Message-ID of the mail that entered it)."""

    league_id: int
    league_name: str
    entries: dict[int, CastEntry]
    players: dict[int, CastPlayer]
    sheets: dict[int, CastSheet]
    thread: dict[int, str]
    units: dict[int, Any] = dataclasses.field(default_factory=dict)
    #: the league's ruleset and its options (``League.ruleset``, ``League.options``)
    ruleset: str = ""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @functools.cached_property  # built once: a digest round asks it for every label
    def rules(self) -> Any:
        """The league's :class:`~app.rules.base.Ruleset` (``ruleset`` with ``options``) as its
        format plays it (``app.league.formats.rules_for``)."""
        from app.league.formats import rules_for
        from app.rules import ruleset

        rs = ruleset(self.ruleset, self.options)
        return rs if self.fmt is None else rules_for(rs, self.fmt)

    def label(self, sheet_id: int) -> str:
        """The ruleset's standings label of sheet ``sheet_id``'s entry (``Ruleset.label``)."""
        return str(self.rules.label(self.unit(sheet_id)))

    #: the league's ``app.formats.Format`` (a report of a format that decides drawn battles
    #: says how the draw was decided)
    fmt: Any = None
    #: the league's published seed (``League.seed``: a ruleset's lead draw)
    seed: str = ""
    #: seconds a battle stopped at a checkpoint waits for its players (``League.rounds_every_s``,
    #: else :data:`CHECKPOINT_WAIT_S`)
    checkpoint_wait_s: int = 0

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
                    "sheet-unreadable",
                )
            self.units[sheet_id] = res.entry
        return self.units[sheet_id]

    def name(self, entry_id: int) -> str:
        """The player's public name (never the address: ``app.league.privacy``)."""
        pid = self.entries[entry_id].player_id
        p = self.players[pid]
        return public_name(p.display_name, p.address, pid)

    def player_of(self, entry_id: int) -> CastPlayer:
        """The player of entry ``entry_id``."""
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


def load_cast(session: Session, league: League) -> Cast:
    """The :class:`Cast` of ``league`` now: every entry, its player and every sheet version,
    and the Message-ID each sheet came in (to thread the league's mails under it)."""
    entries = {
        e.id: CastEntry(e.player_id, e.status, e.owner_key or "")
        for e in session.scalars(select(Entry).where(Entry.league_id == league.id))
    }
    pids = {e.player_id for e in entries.values()}
    players = (
        {
            p.id: CastPlayer(
                p.address,
                p.display_name or "",
                p.lang or "ja",
                p.charset or "utf-8",
                p.mail_pref or "all",
                bool(p.digest_logs),
            )
            for p in session.scalars(select(Player).where(Player.id.in_(pids)))
        }
        if pids
        else {}
    )
    rows = (
        list(session.scalars(select(SheetVersion).where(SheetVersion.entry_id.in_(list(entries)))))
        if entries
        else []
    )
    sheets = {
        s.id: CastSheet(s.id, s.entry_id, s.version, s.normalized, s.text, bool(s.active))
        for s in rows
    }
    inbound = {s.id: s.inbound_id for s in rows if s.inbound_id is not None}
    keys: dict[int, str] = {}
    if inbound:
        for iid, key in session.execute(
            select(InboundMessage.id, InboundMessage.message_key).where(
                InboundMessage.id.in_(set(inbound.values()))
            )
        ):
            keys[iid] = key
    thread: dict[int, str] = {}
    for sid, iid in inbound.items():
        msgid = thread_id(keys.get(iid))
        if msgid:
            thread[sid] = msgid
    from app.league.formats import format_of

    return Cast(
        league.id,
        league.name,
        entries,
        players,
        sheets,
        thread,
        ruleset=league.ruleset or "",
        options=dict(league.options or {}),
        fmt=format_of(league),
        seed=league.seed or "",
        checkpoint_wait_s=int(league.rounds_every_s or CHECKPOINT_WAIT_S),
    )


def lock_league(session: Session, league_id: int) -> League:
    """Lock the league row first and load it as committed: serializes concurrent runners
    (:func:`app.league.entries.lock_league`)."""
    from app.league.entries import lock_league_row

    return lock_league_row(session, league_id)
