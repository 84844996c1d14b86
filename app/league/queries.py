"""Read models of leagues, rounds, battles and players: typed, public, and shared.

Every function takes an open SQLAlchemy :class:`~sqlalchemy.orm.Session`, only reads, and returns
frozen dataclasses of plain values, so that the web view (``app.web``), the CLI and the mails can
render the same facts. The models are **public**: they follow the two rules of everything others
can read (``docs/web.md``):

* **no address**: a player is a :class:`PlayerRef` whose ``name`` is
  :func:`app.league.privacy.public_name` (the display name, else a masked address with the id);
  no dataclass here has an address field;
* **sheets are secret while entries are open** (:func:`sheets_public`): before a league closes
  entries, nothing here carries a unit's name, stats or actions; the entrants' names
  (:attr:`LeagueView.entrants`: player and unit name) are listed only when the organizer set
  ``show_entrants``.

Standings are those after the last round played (as in the standings mail); the tiebreaks and
their order are ``app.league.standings``. The expensive part of a league (its standings and
the set of played battles) is cached per process, keyed by :func:`league_fingerprint`, a
cheap query that changes whenever a round is finished, an entry changes status or the league
changes state; several processes each keep their own cache, which stays right because the
key is read from the shared database on every call.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Player, Round, SheetVersion
from app.league import standings as st
from app.league.privacy import public_name
from app.league.timeparse import as_utc

#: the tiebreak columns of the standings, in the order they break ties (``app.league.standings``)
TIEBREAKS: tuple[str, ...] = ("head_to_head", "sonneborn_berger", "hp_margin")
#: the cross-table is cut into blocks of this many rows and columns above :data:`CROSS_FULL`
CROSS_BLOCK = 50
#: up to this many entries the cross-table is shown whole
CROSS_FULL = 60
#: up to this many boards in all, a league's rounds are listed with every board
INLINE_BOARDS = 400


# --------------------------------------------------------------------------- values


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


@dataclass(frozen=True, slots=True)
class LeagueSummary:
    """A league in the list of leagues.

    Attributes:
        name: the league's name (``/leagues/NAME``).
        ruleset: the ruleset's stored name (``amaryllis``, …).
        format: the format's name (``round-robin``, ``double-round-robin``, …).
        state: ``open``, ``closed``, ``running`` or ``finished``.
        entries: entries with a valid sheet (while open) or seated entries (after closing),
            disqualified ones excluded.
        rounds_total, rounds_done: rounds of the schedule, and those played.
        next_round: the number of the next round to play, ``None`` when none is left.
        next_round_at: when it is due (UTC), ``None`` when the organizer runs rounds by hand.
        entry_deadline: the entry deadline (UTC).
        created_at: when the league was opened (UTC).
        winners: a finished league's entries at rank 1 of its standings (several when the
            first place is shared), whatever its format; ``()`` for a league not finished, and
            from :func:`list_leagues` only.
    """

    name: str
    ruleset: str
    format: str
    state: str
    entries: int
    rounds_total: int
    rounds_done: int
    next_round: int | None
    next_round_at: dt.datetime | None
    entry_deadline: dt.datetime | None
    created_at: dt.datetime | None
    winners: tuple[EntryRef, ...] = ()

    @property
    def phase(self) -> str:
        """``open`` (taking entries), ``running`` (closed or running) or ``finished``."""
        return {"closed": "running"}.get(self.state, self.state)


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    """A league's public settings (never its password, only whether it needs one).

    ``points`` is (win, draw, loss); ``rounds_every_s`` the seconds between rounds (``None``: run
    by the organizer); ``seed`` the published seed; ``options`` the ruleset's options."""

    ruleset: str
    format: str
    points: tuple[int, int, int]
    double: bool
    rounds_every_s: int | None
    entry_deadline: dt.datetime | None
    seed: str
    password_required: bool
    show_entrants: bool
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StandingLine:
    """A line of the standings: rank (``shared`` when tied on every criterion), the entry, games
    played, wins, draws, losses, byes, points and the tiebreaks (:data:`TIEBREAKS`:
    head-to-head points, Sonneborn-Berger, HP margin in HP)."""

    rank: int
    shared: bool
    entry: EntryRef
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: int
    head_to_head: int
    sonneborn_berger: Fraction
    hp_margin: int

    @property
    def rank_text(self) -> str:
        """``3`` or ``3=`` when the rank is shared."""
        return f"{self.rank}=" if self.shared else str(self.rank)

    @property
    def sb_text(self) -> str:
        """Sonneborn-Berger as text: ``12`` or ``12.5``."""
        v = self.sonneborn_berger
        return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One board of a round.

    Attributes:
        battle_id: the battle (``/leagues/NAME/battles/ID``).
        round, board: the round number and the board number in it (1-based).
        a, b: the two sides; ``b`` is ``None`` for a bye.
        state: ``pending``, ``done``, ``void`` (a disqualified entry's game, never fought) or
            ``bye``.
        winner: 0 (A), 1 (B) or ``None`` (a draw, or not fought).
        reason: the termination (``death``, ``overkill``, ``hp``, ``draw``, …) or ``None``.
        turns: the last turn played, ``None`` before the battle.
        hp: the final HP of A and B (HP), ``None`` before the battle.
    """

    battle_id: int
    round: int
    board: int
    a: EntryRef
    b: EntryRef | None
    state: str
    winner: int | None
    reason: str | None
    turns: int | None
    hp: tuple[int, int] | None

    def result_for(self, entry_id: int) -> str | None:
        """``W``, ``D`` or ``L`` for the side of ``entry_id`` in a fought battle, else ``None``."""
        if self.state != "done" or self.b is None:
            return None
        if self.winner is None:
            return "D"
        mine = 0 if self.a.entry_id == entry_id else 1
        return "W" if self.winner == mine else "L"


@dataclass(frozen=True, slots=True)
class RoundLine:
    """A round: its number, ``scheduled``/``done``, when it is due and when it was played (UTC),
    its counts of battles (byes excluded), and its boards (``None`` when not loaded: see the
    round's own page)."""

    number: int
    state: str
    scheduled_at: dt.datetime | None
    done_at: dt.datetime | None
    battles: int
    battles_done: int
    boards: tuple[BoardLine, ...] | None


@dataclass(frozen=True, slots=True)
class CrossCell:
    """One battle in a cross-table cell, from the row entry's side: ``result`` ``W``/``D``/``L``."""

    battle_id: int
    round: int
    result: str


@dataclass(frozen=True, slots=True)
class CrossTable:
    """A block of the cross-table in standings order.

    ``rows``/``cols`` are entries; ``cells[(row entry id, col entry id)]`` lists the battles
    between them (two in a double round-robin; none on the diagonal or before they met).
    ``row_block``/``col_block`` are 1-based block numbers out of ``blocks`` (1 when the table is
    whole), ``size`` the number of entries in the table."""

    rows: tuple[EntryRef, ...]
    cols: tuple[EntryRef, ...]
    cells: dict[tuple[int, int], tuple[CrossCell, ...]]
    row_block: int
    col_block: int
    blocks: int
    size: int

    @property
    def row_offset(self) -> int:
        """The standings index (0-based) of the first row."""
        return (self.row_block - 1) * CROSS_BLOCK if self.blocks > 1 else 0

    @property
    def col_offset(self) -> int:
        """The standings index (0-based) of the first column."""
        return (self.col_block - 1) * CROSS_BLOCK if self.blocks > 1 else 0


@dataclass(frozen=True, slots=True)
class LeagueView:
    """Everything a league page shows.

    Attributes:
        summary, settings: see :class:`LeagueSummary`, :class:`LeagueSettings`.
        secret: True while sheets are secret (entries open): no unit names, no standings.
        entrants: while open and allowed (``show_entrants``): the entrants; else empty.
        after_round: the standings are those after this round (0 before the first).
        standings: the standings, best first (empty while open).
        rounds: every round, with boards when the schedule is small (:data:`INLINE_BOARDS`).
        disqualified: disqualified players (their games do not count).
        cross: the cross-table block asked for, ``None`` while open.
    """

    summary: LeagueSummary
    settings: LeagueSettings
    secret: bool
    entrants: tuple[EntryRef, ...]
    after_round: int
    standings: tuple[StandingLine, ...]
    rounds: tuple[RoundLine, ...]
    disqualified: tuple[PlayerRef, ...]
    cross: CrossTable | None


@dataclass(frozen=True, slots=True)
class SheetRef:
    """A sheet version used in a battle: id, version number, the normalized notation, its
    language (``ja``/``en``) and the unit's name."""

    id: int
    version: int
    text: str
    lang: str
    unit: str


@dataclass(frozen=True, slots=True)
class BattleView:
    """One battle with its inputs and its recorded result (the log is recomputed from
    ``sheet_a``/``sheet_b`` through the league's ruleset).

    ``options`` are the ruleset's league options; ``engine_version`` is the version that decided
    the recorded result; ``final`` the recorded final state (JSON, as stored)."""

    league: str
    ruleset: str
    options: dict[str, Any]
    line: BoardLine
    sheet_a: SheetRef | None
    sheet_b: SheetRef | None
    engine_version: str | None
    fought_at: dt.datetime | None
    final: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """A player's entry in one league: the league, its state, the entry's status
    (``active``/``withdrawn``/``disqualified``), the unit (``""`` while secret), its standing
    (``None`` while open or when not ranked) and its boards (empty while open)."""

    league: str
    league_state: str
    status: str
    unit: str
    standing: StandingLine | None
    boards: tuple[BoardLine, ...]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A player's page: their public name and their entries, newest league first. Entries of
    open leagues that do not show entrants are left out (so the page does not tell them)."""

    player: PlayerRef
    entries: tuple[PlayerEntry, ...]
    rating: PlayerRatingView | None = None


@dataclass(frozen=True, slots=True)
class RatingLine:
    """One rating period of a player's history: league and round, the rating (ordinal,
    ``mu − 3σ``) before and after, and the games of the period."""

    league: str
    round: int
    before: float
    after: float
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class PlayerRatingView:
    """A player's rating across leagues (OpenSkill, ``app.league.ratings``): the ordinal shown,
    ``mu``, ``sigma``, the rated games and the history, oldest first."""

    ordinal: float
    mu: float
    sigma: float
    games: int
    history: tuple[RatingLine, ...]


def player_rating(session: Session, player_id: int) -> PlayerRatingView | None:
    """The player's rating and history, ``None`` before their first rated game."""
    from app.league import ratings

    now = ratings.current(session, [player_id]).get(player_id)
    if now is None:
        return None
    hist = tuple(RatingLine(h.league, h.round, h.ordinal_before, h.ordinal, h.wins, h.draws,
                            h.losses) for h in ratings.history(session, player_id))
    return PlayerRatingView(now.ordinal, now.mu, now.sigma, now.games, hist)


# --------------------------------------------------------------------------- helpers


def sheets_public(league: League) -> bool:
    """True once the league's sheets may be shown: entries are closed (any state but ``open``)."""
    return league.state != "open"


def league_format(league: League) -> str:
    """The league's format name: its ``format`` column when the schema has one, else
    ``double-round-robin`` or ``round-robin``."""
    explicit = getattr(league, "format", None)
    if explicit:
        return str(explicit)
    return "double-round-robin" if league.double else "round-robin"


def _options(league: League) -> dict[str, Any]:
    opts = getattr(league, "options", None)
    return dict(opts) if isinstance(opts, dict) else {}


def _name_key(name: str) -> str:
    import unicodedata

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
    state, its rounds played (count, last ``done_at``), and its entries' statuses."""
    rounds = session.execute(
        select(func.count(), func.max(Round.done_at))
        .where(Round.league_id == league.id, Round.state == "done")).one()
    statuses = tuple(session.execute(
        select(Entry.status, func.count(), func.max(Entry.id))
        .where(Entry.league_id == league.id).group_by(Entry.status).order_by(Entry.status)))
    return (league.id, league.state, int(rounds[0] or 0), str(rounds[1]),
            tuple(tuple(r) for r in statuses))


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


_cache = _Cache()


def clear_cache() -> None:
    """Forget every cached league part (tests, benchmarks)."""
    _cache.clear()


def _players(session: Session, league_id: int) -> dict[int, PlayerRef]:
    """Entry id → public player, for every entry of the league."""
    rows = session.execute(
        select(Entry.id, Player.id, Player.display_name, Player.address)
        .join(Player, Entry.player_id == Player.id).where(Entry.league_id == league_id))
    return {eid: PlayerRef(pid, public_name(dn, addr, pid)) for eid, pid, dn, addr in rows}


def _sheet_units(session: Session, league_id: int) -> dict[int, str]:
    """Sheet version id → unit name, for every sheet of the league's entries."""
    rows = session.execute(
        select(SheetVersion.id, SheetVersion.unit_name)
        .join(Entry, SheetVersion.entry_id == Entry.id).where(Entry.league_id == league_id))
    return {k: v for k, v in rows}


def _active_units(session: Session, league_id: int) -> dict[int, str]:
    """Entry id → the unit name of its active sheet."""
    rows = session.execute(
        select(SheetVersion.entry_id, SheetVersion.unit_name)
        .join(Entry, SheetVersion.entry_id == Entry.id)
        .where(Entry.league_id == league_id, SheetVersion.active))
    return {k: v for k, v in rows}


class _Names:
    """Builds :class:`EntryRef` values of one league (public names, unit names unless secret)."""

    def __init__(self, session: Session, league: League) -> None:
        self.secret = not sheets_public(league)
        self.players = _players(session, league.id)
        self.sheets = {} if self.secret else _sheet_units(session, league.id)
        self.active = {} if self.secret else _active_units(session, league.id)

    def entry(self, entry_id: int, sheet_id: int | None = None) -> EntryRef:
        player = self.players.get(entry_id, PlayerRef(0, "?"))
        if self.secret:
            return EntryRef(entry_id, player, "")
        unit = self.sheets.get(sheet_id, "") if sheet_id else ""
        return EntryRef(entry_id, player, unit or self.active.get(entry_id, ""))


# --------------------------------------------------------------------------- league list


def _counts(session: Session, league_id: int | None = None) -> tuple[
        dict[int, int], dict[int, int], dict[int, tuple[int, int]]]:
    """Per league (only ``league_id`` when given): entries with an active sheet (while open),
    seated active entries, and (rounds, rounds done)."""
    one = (lambda q, col: q.where(col == league_id)) if league_id is not None else \
        (lambda q, col: q)
    with_sheet: dict[int, int] = {lid: n for lid, n in session.execute(one(
        select(Entry.league_id, func.count(func.distinct(Entry.id)))
        .join(SheetVersion, SheetVersion.entry_id == Entry.id)
        .where(Entry.status == "active", SheetVersion.active), Entry.league_id)
        .group_by(Entry.league_id))}
    seated: dict[int, int] = {lid: n for lid, n in session.execute(one(
        select(Entry.league_id, func.count())
        .where(Entry.status == "active", Entry.seat.is_not(None)), Entry.league_id)
        .group_by(Entry.league_id))}
    rounds: dict[int, tuple[int, int]] = {}
    for lid, state, n in session.execute(one(select(Round.league_id, Round.state, func.count()),
                                             Round.league_id)
                                         .group_by(Round.league_id, Round.state)):
        total, done = rounds.get(lid, (0, 0))
        rounds[lid] = (total + n, done + (n if state == "done" else 0))
    return with_sheet, seated, rounds


def _next_rounds(session: Session, league_ids: Iterable[int] | None = None) -> dict[int, tuple[
        int, dt.datetime | None]]:
    """Per league: the number and due time of the first round not played."""
    q = (select(Round.league_id, func.min(Round.number))
         .where(Round.state != "done").group_by(Round.league_id))
    if league_ids is not None:
        q = q.where(Round.league_id.in_(list(league_ids)))
    firsts: dict[int, int] = {lid: n for lid, n in session.execute(q)}
    out: dict[int, tuple[int, dt.datetime | None]] = {}
    if firsts:
        for lid, number, at in session.execute(
                select(Round.league_id, Round.number, Round.scheduled_at)
                .where(Round.league_id.in_(list(firsts)))):
            if firsts.get(lid) == number:
                out[lid] = (number, as_utc(at))
    return out


def _summary(league: League, with_sheet: dict[int, int], seated: dict[int, int],
             rounds: dict[int, tuple[int, int]],
             nexts: dict[int, tuple[int, dt.datetime | None]]) -> LeagueSummary:
    total, done = rounds.get(league.id, (0, 0))
    nxt = nexts.get(league.id)
    entries = with_sheet.get(league.id, 0) if league.state == "open" else seated.get(league.id, 0)
    return LeagueSummary(
        name=league.name, ruleset=league.ruleset, format=league_format(league),
        state=league.state, entries=entries, rounds_total=total, rounds_done=done,
        next_round=nxt[0] if nxt else None, next_round_at=nxt[1] if nxt else None,
        entry_deadline=as_utc(league.entry_deadline), created_at=as_utc(league.created_at))


def _winners(session: Session, league: League) -> tuple[EntryRef, ...]:
    """The entries at rank 1 of finished ``league``'s standings (the table its format keeps, the
    same as on its page: :func:`_scores`, cached), shared first places included, in the
    standings' order; ``()`` when the league is not finished or has no standings."""
    if league.state != "finished" or not sheets_public(league):
        return ()
    _after, scores = _scores(session, league, league_fingerprint(session, league))
    top = [s.entry for s in scores if s.rank == 1]
    if not top:
        return ()
    rows = session.execute(
        select(Entry.id, Player.id, Player.display_name, Player.address, SheetVersion.unit_name)
        .join(Player, Entry.player_id == Player.id)
        .outerjoin(SheetVersion, (SheetVersion.entry_id == Entry.id) & SheetVersion.active)
        .where(Entry.id.in_(top)))
    found = {eid: EntryRef(eid, PlayerRef(pid, public_name(dn, addr, pid)), unit or "")
             for eid, pid, dn, addr, unit in rows}
    return tuple(found[eid] for eid in top if eid in found)


def list_leagues(session: Session) -> list[LeagueSummary]:
    """Every league: open ones by deadline, then running, then finished (newest first); a
    finished one with its :func:`_winners`."""
    leagues = list(session.scalars(select(League).order_by(League.id)))
    with_sheet, seated, rounds = _counts(session)
    nexts = _next_rounds(session)
    out = [dataclasses.replace(s, winners=_winners(session, lg)) if lg.state == "finished" else s
           for lg, s in ((lg, _summary(lg, with_sheet, seated, rounds, nexts)) for lg in leagues)]
    order = {"open": 0, "running": 1, "finished": 2}
    far = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
    out.sort(key=lambda s: (order.get(s.phase, 3),
                            (s.entry_deadline or far).timestamp() if s.phase == "open"
                            else -(s.created_at or far).timestamp(),
                            s.name))
    return out


# --------------------------------------------------------------------------- a league


def _settings(league: League) -> LeagueSettings:
    return LeagueSettings(
        ruleset=league.ruleset, format=league_format(league),
        points=(league.points_win, league.points_draw, league.points_loss),
        double=bool(league.double), rounds_every_s=league.rounds_every_s,
        entry_deadline=as_utc(league.entry_deadline), seed=league.seed or "",
        password_required=bool(league.password), show_entrants=bool(league.show_entrants),
        options=_options(league))


def _after_round(session: Session, league: League) -> int:
    return int(session.scalar(select(func.max(Round.number)).where(
        Round.league_id == league.id, Round.state == "done")) or 0)


def _scores(session: Session, league: League, stamp: Any) -> tuple[int, list[st.Score]]:
    """The standings scores after the last round played (cached under ``stamp``)."""
    key = ("scores", league.id)
    hit = _cache.get(key, stamp)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    after = _after_round(session, league)
    if (league.format or "round-robin") != "round-robin":
        # Swiss, knockout, accumulating, the hill: the format's own table (app.league.results)
        from app.league.results import _format_scores

        value = (after, _format_scores(session, league,
                                       None if league.format == "hill" else after))
        _cache.put(key, stamp, value)
        return value
    entries = [eid for eid, _seat in session.execute(
        select(Entry.id, Entry.seat).where(Entry.league_id == league.id,
                                           Entry.status == "active", Entry.seat.is_not(None))
        .order_by(Entry.seat, Entry.id))]
    games: list[st.GameResult] = []
    byes: dict[int, int] = {}
    q = (select(Battle.entry_a_id, Battle.entry_b_id, Battle.winner, Battle.hp_a, Battle.hp_b,
                Battle.margin)
         .join(Round, Battle.round_id == Round.id)
         .where(Round.league_id == league.id, Battle.state == "done", Round.number <= after))
    for a, b, w, ha, hb, margin in session.execute(q):
        if b is None:
            byes[a] = byes.get(a, 0) + 1
        else:
            games.append(st.GameResult(a, b, w, int(ha or 0), int(hb or 0),
                                       None if margin is None else int(margin)))
    scores = st.compute(entries, games,
                        st.Points(league.points_win, league.points_draw, league.points_loss), byes)
    value = (after, scores)
    _cache.put(key, stamp, value)
    return value


def _standing_lines(scores: Sequence[st.Score], names: _Names) -> tuple[StandingLine, ...]:
    return tuple(StandingLine(
        rank=s.rank, shared=s.shared, entry=names.entry(s.entry), played=s.played, wins=s.wins,
        draws=s.draws, losses=s.losses, byes=s.byes, points=s.points,
        head_to_head=s.head_to_head, sonneborn_berger=s.sonneborn_berger, hp_margin=s.hp_margin)
        for s in scores)


def _board(row: Any, names: _Names) -> BoardLine:
    (bid, number, board, ea, eb, sa, sb, state, winner, reason, turns, ha, hb) = row
    if eb is None:
        state = "bye"
    fought = state == "done" and eb is not None
    return BoardLine(
        battle_id=bid, round=number, board=board, a=names.entry(ea, sa),
        b=names.entry(eb, sb) if eb is not None else None, state=state,
        winner=winner if fought else None, reason=reason if fought else None,
        turns=turns if fought else None,
        hp=(int(ha or 0), int(hb or 0)) if fought else None)


_BOARD_COLUMNS = (Battle.id, Round.number, Battle.board, Battle.entry_a_id, Battle.entry_b_id,
                  Battle.sheet_a_id, Battle.sheet_b_id, Battle.state, Battle.winner,
                  Battle.reason, Battle.turns, Battle.hp_a, Battle.hp_b)


def _boards(session: Session, league: League, names: _Names,
            round_numbers: Sequence[int] | None = None) -> dict[int, list[BoardLine]]:
    """Round number → its boards in board order (only ``round_numbers`` when given)."""
    q = (select(*_BOARD_COLUMNS).join(Round, Battle.round_id == Round.id)
         .where(Round.league_id == league.id).order_by(Round.number, Battle.board))
    if round_numbers is not None:
        if not round_numbers:
            return {}
        q = q.where(Round.number.in_(list(round_numbers)))
    out: dict[int, list[BoardLine]] = {}
    for row in session.execute(q):
        out.setdefault(row[1], []).append(_board(row, names))
    return out


def _round_counts(session: Session, league: League, stamp: Any) -> dict[int, tuple[int, int]]:
    """Round id → (battles, battles fought), byes excluded; cached under ``stamp``, so the count
    of a round being played catches up when it is finished (its boards are always read live)."""
    key = ("round-counts", league.id)
    hit = _cache.get(key, stamp)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    counts: dict[int, tuple[int, int]] = {}
    for rid, state, n in session.execute(
            select(Battle.round_id, Battle.state, func.count())
            .join(Round, Battle.round_id == Round.id)
            .where(Round.league_id == league.id, Battle.entry_b_id.is_not(None))
            .group_by(Battle.round_id, Battle.state)):
        total, done = counts.get(rid, (0, 0))
        counts[rid] = (total + n, done + (n if state == "done" else 0))
    _cache.put(key, stamp, counts)
    return counts


def _rounds(session: Session, league: League, names: _Names,
            inline: bool | None = None, stamp: Any = None) -> tuple[RoundLine, ...]:
    counts = _round_counts(session, league,
                           stamp if stamp is not None else league_fingerprint(session, league))
    rounds = list(session.execute(
        select(Round.id, Round.number, Round.state, Round.scheduled_at, Round.done_at)
        .where(Round.league_id == league.id).order_by(Round.number)))
    total_boards = sum(t for t, _ in counts.values())
    if inline is None:
        inline = total_boards <= INLINE_BOARDS
    if inline:
        wanted = None
    else:  # the last round played and the next one
        done = [r.number for r in rounds if r.state == "done"]
        todo = [r.number for r in rounds if r.state != "done"]
        wanted = ([max(done)] if done else []) + ([min(todo)] if todo else [])
    boards = _boards(session, league, names, wanted)
    return tuple(RoundLine(
        number=r.number, state=r.state, scheduled_at=as_utc(r.scheduled_at),
        done_at=as_utc(r.done_at), battles=counts.get(r.id, (0, 0))[0],
        battles_done=counts.get(r.id, (0, 0))[1],
        boards=tuple(boards.get(r.number, ())) if wanted is None or r.number in wanted else None)
        for r in rounds)


def cross_blocks(size: int) -> int:
    """How many blocks of :data:`CROSS_BLOCK` entries a cross-table of ``size`` entries has per
    side (1 up to :data:`CROSS_FULL`)."""
    return 1 if size <= CROSS_FULL else -(-size // CROSS_BLOCK)


def _cross(session: Session, league: League, standings: Sequence[StandingLine], after: int,
           row_block: int, col_block: int, stamp: Any) -> CrossTable:
    """A block of the cross-table; the cells are cached under ``stamp``."""
    size = len(standings)
    blocks = cross_blocks(size)
    row_block = min(max(1, row_block), blocks)
    col_block = min(max(1, col_block), blocks)
    if blocks == 1:
        rows = cols = tuple(s.entry for s in standings)
    else:
        r0, c0 = (row_block - 1) * CROSS_BLOCK, (col_block - 1) * CROSS_BLOCK
        rows = tuple(s.entry for s in standings[r0:r0 + CROSS_BLOCK])
        cols = tuple(s.entry for s in standings[c0:c0 + CROSS_BLOCK])
    key = ("cross", league.id, row_block, col_block)
    cells = _cache.get(key, stamp)
    if cells is None:
        cells = _cross_cells(session, league, after, {e.entry_id for e in rows},
                             {e.entry_id for e in cols}, blocks > 1)
        _cache.put(key, stamp, cells)
    return CrossTable(rows, cols, cells, row_block, col_block, blocks, size)


def _cross_cells(session: Session, league: League, after: int, row_ids: set[int],
                 col_ids: set[int], partial: bool) -> dict[tuple[int, int], tuple[CrossCell, ...]]:
    q = (select(Battle.id, Round.number, Battle.entry_a_id, Battle.entry_b_id, Battle.winner)
         .join(Round, Battle.round_id == Round.id)
         .where(Round.league_id == league.id, Battle.state == "done",
                Battle.entry_b_id.is_not(None), Round.number <= after)
         .order_by(Round.number, Battle.board))
    if partial:
        ids = list(row_ids | col_ids)
        q = q.where(or_(Battle.entry_a_id.in_(ids), Battle.entry_b_id.in_(ids)))
    cells: dict[tuple[int, int], tuple[CrossCell, ...]] = {}
    for bid, number, a, b, w in session.execute(q):
        for me, opp, side in ((a, b, 0), (b, a, 1)):
            if me in row_ids and opp in col_ids:
                result = "D" if w is None else ("W" if w == side else "L")
                cells[(me, opp)] = (*cells.get((me, opp), ()), CrossCell(bid, number, result))
    return cells


def league_view(session: Session, name: str, *, row_block: int = 1, col_block: int = 1,
                inline_boards: bool | None = None, with_cross: bool = True,
                with_rounds: bool = True) -> LeagueView | None:
    """The page of league ``name`` (ignoring case), or ``None`` when there is none.

    ``row_block``/``col_block`` pick the cross-table block (1-based, clamped) when the league has
    more than :data:`CROSS_FULL` entries; ``inline_boards`` forces (or suppresses) the boards of
    every round (default: when the schedule has at most :data:`INLINE_BOARDS` boards);
    ``with_cross``/``with_rounds`` False leave the cross-table (``None``) and the rounds (empty)
    out, for callers that need the standings only."""
    league = find_league(session, name)
    if league is None:
        return None
    with_sheet, seated, rounds_count = _counts(session, league.id)
    summary = _summary(league, with_sheet, seated, rounds_count, _next_rounds(session, [league.id]))
    names = _Names(session, league)
    disq = tuple(sorted({names.players[eid] for eid, in session.execute(
        select(Entry.id).where(Entry.league_id == league.id, Entry.status == "disqualified"))
        if eid in names.players}, key=lambda p: p.id))
    if names.secret:
        entrants: tuple[EntryRef, ...] = ()
        if league.show_entrants:
            units = _active_units(session, league.id)
            ids = [eid for eid, in session.execute(
                select(Entry.id).where(Entry.league_id == league.id, Entry.status == "active")
                .order_by(Entry.id)) if eid in units]
            entrants = tuple(EntryRef(eid, names.players[eid], units[eid]) for eid in ids)
        return LeagueView(summary, _settings(league), True, entrants, 0, (), (), disq, None)
    stamp = league_fingerprint(session, league)
    after, scores = _scores(session, league, stamp)
    standings = _standing_lines(scores, names)
    cross = (_cross(session, league, standings, after, row_block, col_block, stamp)
             if with_cross else None)
    rounds = _rounds(session, league, names, inline_boards, stamp) if with_rounds else ()
    return LeagueView(summary, _settings(league), False, (), after, standings, rounds, disq, cross)


def round_view(session: Session, name: str, number: int) -> tuple[LeagueSummary, RoundLine] | None:
    """League ``name``'s round ``number`` with every board, or ``None`` (no such league or round,
    or the league's sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    names = _Names(session, league)
    row = session.execute(select(Round.id, Round.number, Round.state, Round.scheduled_at,
                                 Round.done_at)
                          .where(Round.league_id == league.id, Round.number == number)).first()
    if row is None:
        return None
    boards = tuple(_boards(session, league, names, [number]).get(number, ()))
    fought = [b for b in boards if b.b is not None]
    with_sheet, seated, rounds_count = _counts(session, league.id)
    summary = _summary(league, with_sheet, seated, rounds_count, _next_rounds(session, [league.id]))
    return summary, RoundLine(row.number, row.state, as_utc(row.scheduled_at), as_utc(row.done_at),
                              len(fought), sum(1 for b in fought if b.state == "done"), boards)


def league_battles(session: Session, name: str) -> tuple[LeagueSummary, list[BoardLine]] | None:
    """Every board of league ``name`` in round and board order (byes included), or ``None``
    (no such league, or its sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    names = _Names(session, league)
    boards = [b for bs in _boards(session, league, names).values() for b in bs]
    with_sheet, seated, rounds_count = _counts(session, league.id)
    summary = _summary(league, with_sheet, seated, rounds_count, _next_rounds(session, [league.id]))
    return summary, boards


def recent_results(session: Session, name: str, *, rounds: int = 50,
                   boards: int = 60) -> list[RoundLine]:
    """The last ``rounds`` rounds played of league ``name``, newest first, each with its first
    ``boards`` boards (``battles``/``battles_done`` count them all); ``[]`` when there is no such
    league or its sheets are still secret. For feeds: a few queries whatever the league's size."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return []
    played = list(session.execute(
        select(Round.id, Round.number, Round.scheduled_at, Round.done_at)
        .where(Round.league_id == league.id, Round.state == "done")
        .order_by(Round.number.desc()).limit(rounds)))
    if not played:
        return []
    names = _Names(session, league)
    counts: dict[int, int] = {rid: n for rid, n in session.execute(
        select(Battle.round_id, func.count()).where(
            Battle.round_id.in_([r.id for r in played]), Battle.entry_b_id.is_not(None))
        .group_by(Battle.round_id))}
    q = (select(*_BOARD_COLUMNS).join(Round, Battle.round_id == Round.id)
         .where(Round.id.in_([r.id for r in played]), Battle.board <= boards)
         .order_by(Round.number, Battle.board))
    by_round: dict[int, list[BoardLine]] = {}
    for row in session.execute(q):
        by_round.setdefault(row[1], []).append(_board(row, names))
    return [RoundLine(r.number, "done", as_utc(r.scheduled_at), as_utc(r.done_at),
                      counts.get(r.id, 0), counts.get(r.id, 0),
                      tuple(by_round.get(r.number, ()))) for r in played]


# --------------------------------------------------------------------------- a battle


def battle_view(session: Session, name: str, battle_id: int) -> BattleView | None:
    """Battle ``battle_id`` of league ``name``, or ``None`` (no such league or battle in it, a
    bye, or the league's sheets are still secret)."""
    league = find_league(session, name)
    if league is None or not sheets_public(league):
        return None
    row = session.execute(
        select(*_BOARD_COLUMNS, Battle.engine_version, Battle.fought_at, Battle.final)
        .join(Round, Battle.round_id == Round.id)
        .where(Round.league_id == league.id, Battle.id == battle_id)).first()
    if row is None or row.entry_b_id is None:
        return None
    names = _Names(session, league)
    line = _board(tuple(row)[:13], names)
    sheets = {s.id: SheetRef(s.id, s.version, s.normalized, s.lang, s.unit_name)
              for s in session.scalars(select(SheetVersion).where(
                  SheetVersion.id.in_([i for i in (row.sheet_a_id, row.sheet_b_id) if i])))}
    return BattleView(
        league=league.name, ruleset=league.ruleset, options=_options(league), line=line,
        sheet_a=sheets.get(row.sheet_a_id), sheet_b=sheets.get(row.sheet_b_id),
        engine_version=row.engine_version, fought_at=as_utc(row.fought_at),
        final=row.final if isinstance(row.final, dict) else None)


# --------------------------------------------------------------------------- a player


def player_view(session: Session, player_id: int) -> PlayerView | None:
    """Player ``player_id``'s page, or ``None`` when there is no such player or nothing of theirs
    is public (no entry in a league that shows it)."""
    player = session.get(Player, player_id)
    if player is None:
        return None
    ref = PlayerRef(player.id, public_name(player.display_name, player.address, player.id))
    rows = session.execute(select(Entry, League).join(League, Entry.league_id == League.id)
                           .where(Entry.player_id == player.id)
                           .order_by(League.id.desc())).all()
    entries: list[PlayerEntry] = []
    for entry, league in rows:
        if not sheets_public(league):
            if not league.show_entrants or entry.status != "active":
                continue
            unit = session.scalar(select(SheetVersion.unit_name).where(
                SheetVersion.entry_id == entry.id, SheetVersion.active))
            if unit is None:
                continue
            entries.append(PlayerEntry(league.name, league.state, entry.status, unit, None, ()))
            continue
        if entry.seat is None:  # withdrew (or had no valid sheet) before entries closed
            continue
        names = _Names(session, league)
        stamp = league_fingerprint(session, league)
        _after, scores = _scores(session, league, stamp)
        standing = next((line for line in _standing_lines(
            [s for s in scores if s.entry == entry.id], names)), None)
        q = (select(*_BOARD_COLUMNS).join(Round, Battle.round_id == Round.id)
             .where(Round.league_id == league.id,
                    or_(Battle.entry_a_id == entry.id, Battle.entry_b_id == entry.id))
             .order_by(Round.number, Battle.board))
        boards = tuple(_board(r, names) for r in session.execute(q))
        entries.append(PlayerEntry(league.name, league.state, entry.status,
                                   names.active.get(entry.id, ""), standing, boards))
    if not entries:
        return None
    return PlayerView(ref, tuple(entries), player_rating(session, player.id))
