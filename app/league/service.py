"""League services over the database: entries, closing, rounds, standings, reports.

The contract is ``docs/contracts.md`` (section League); the lifecycle and the choices are in
``docs/league.md``. A league moves ``open`` → ``closed`` (entries closed, seats and the whole
Berger schedule fixed) → ``running`` (first round started) → ``finished`` (last round done).

Crash safety: a round is played in batches; each batch fights its pending battles, stores the
results and queues both battle reports (outbox, dedupe keys ``report:<battle id>:<side>``) in one
transaction. A killed process leaves whole batches done and the rest pending; running the round
again fights only what is pending, and the round's closing step (standings mails, dedupe keys
``standings:<league id>:<round>:<player id>``) runs once. Every batch first writes the league row,
which serializes concurrent runners (row lock on PostgreSQL, the write lock on SQLite).
"""

from __future__ import annotations

import dataclasses
import logging
import datetime as dt
import os
import re
import signal
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import (
    Battle,
    Entry,
    InboundMessage,
    League,
    OutboxMessage,
    Player,
    Round,
    SheetVersion,
)
from app.db.session import transaction
from app.league import standings as st
from app.league.privacy import public_name
from app.league.schedule import berger_schedule
from app.league.timeparse import as_utc, format_duration, iso

#: battles per transaction in :func:`run_round` (``AMARYLLIS_LEAGUE_BATCH`` overrides it)
BATCH = 100
#: test hook: SIGKILL the process after this many battles fought (``docs/league.md``)
KILL_ENV = "AMARYLLIS_LEAGUE_KILL_AFTER_BATTLES"

STATES = ("open", "closed", "running", "finished")

_log = logging.getLogger("amaryllis.league")


# --------------------------------------------------------------------------- errors


class LeagueError(Exception):
    """A league operation that cannot be done; ``code`` is a stable identifier, the message says
    why in English."""

    code = "league-error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class NoSuchLeague(LeagueError):
    """No league has that name."""

    code = "no-such-league"


class EntriesClosed(LeagueError):
    """The league no longer takes entries, replacements or withdrawals."""

    code = "entries-closed"


class NotEntered(LeagueError):
    """The player has no (active) entry in the league."""

    code = "not-entered"


class NotOwner(LeagueError):
    """The entry belongs to someone else."""

    code = "not-owner"


class BadState(LeagueError):
    """The league is not in a state that allows the operation (or the input is invalid)."""

    code = "bad-state"


# --------------------------------------------------------------------------- rules adapter


def _rules() -> Any:
    """The rules API (``docs/contracts.md``), imported late so that importing this module stays
    cheap."""
    import app.rules.amaryllis as rules

    return rules


def engine_version() -> str:
    """The current ``ENGINE_VERSION`` of the rules engine."""
    return str(_rules().ENGINE_VERSION)


# --------------------------------------------------------------------------- players and leagues


def normalize_address(address: str) -> str:
    """Lower-case and strip a mail address. Raises ``ValueError`` unless it looks like
    ``local@domain``."""
    a = address.strip().lower()
    local, at, domain = a.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in a):
        raise ValueError(f"not a mail address: {address!r}")
    return a


def get_or_create_player(session: Session, address: str, *, display_name: str = "",
                         lang: str | None = None) -> Player:
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


#: the latest entry deadline :func:`create_league` accepts, counted from ``now``
MAX_DEADLINE_AHEAD = dt.timedelta(days=3653)  # 10 years
#: the bounds of ``rounds_every`` in :func:`create_league`
MIN_ROUNDS_EVERY = dt.timedelta(minutes=1)
MAX_ROUNDS_EVERY = dt.timedelta(days=365)
#: the largest number of points :func:`create_league` accepts for a win, draw or loss
MAX_POINTS = 1000


def create_league(session: Session, name: str, *, entry_deadline: dt.datetime,
                  rounds_every: dt.timedelta | None = None,
                  points: tuple[int, int, int] = (3, 1, 0), double: bool = False,
                  password: str | None = None, now: dt.datetime) -> League:
    """Create an open league. ``name``: 1-64 characters, see :func:`check_league_name` (unique
    ignoring case, :func:`find_league`); ``points``: win, draw,
    loss, each in ``0 .. MAX_POINTS`` (1000) with win >= draw >= loss; ``entry_deadline``
    after ``now`` and at most ``MAX_DEADLINE_AHEAD`` (10 years) ahead; ``rounds_every`` (when
    given) from ``MIN_ROUNDS_EVERY`` (1 minute) to ``MAX_ROUNDS_EVERY`` (365 days), so that
    every round of the schedule has a representable time.

    Raises :class:`BadState` (codes ``bad-name``, ``league-exists``, ``bad-deadline``,
    ``bad-points``, ``bad-interval``) for a taken or bad name, a deadline out of range, bad
    points, or an interval out of range."""
    name = check_league_name(name)
    existing = find_league(session, name)
    if existing is not None:
        raise BadState(f"a league named {existing.name!r} exists already (names ignore case)",
                       "league-exists")
    deadline = as_utc(entry_deadline)
    assert deadline is not None
    if deadline <= now:
        raise BadState(f"the entry deadline {iso(deadline)} is not in the future", "bad-deadline")
    if deadline - now > MAX_DEADLINE_AHEAD:
        raise BadState(f"the entry deadline {iso(deadline)} is more than 10 years ahead",
                       "bad-deadline")
    w, d, l_ = points
    if not all(isinstance(p, int) and 0 <= p <= MAX_POINTS for p in points):
        raise BadState(f"points must each be 0..{MAX_POINTS}, got {w}/{d}/{l_}", "bad-points")
    if not (w >= d >= l_ >= 0):
        raise BadState(f"points must satisfy win >= draw >= loss >= 0, got {w}/{d}/{l_}",
                       "bad-points")
    every = None
    if rounds_every is not None:
        if not MIN_ROUNDS_EVERY <= rounds_every <= MAX_ROUNDS_EVERY:
            raise BadState("rounds must be from 1 minute to 365 days apart, got "
                           f"{format_duration(rounds_every)}", "bad-interval")
        every = int(rounds_every.total_seconds())
    league = League(name=name, entry_deadline=deadline, rounds_every_s=every, points_win=w,
                    points_draw=d, points_loss=l_, double=double, password=password,
                    state="open", created_at=now)
    session.add(league)
    session.flush()
    return league


#: punctuation allowed in a league name besides letters and digits
NAME_PUNCTUATION = "_-."


def check_league_name(name: str) -> str:
    """``name`` stripped and NFC-normalized, when it is a valid league name: 1-64 characters,
    each a Unicode letter (categories L*, with combining marks M*), a decimal digit (Nd), ``_``,
    ``-`` or ``.`` (so ``春`` and ``spring-2026`` are fine). Spaces, ``[]`` (they would break the
    subject tag ``[NAME]``), ``+``, ``@``, ``/`` (the plus address ``tourney+NAME@…``), ``<>`` and
    other punctuation are refused. Raises :class:`BadState` (code ``bad-name``)."""
    clean = unicodedata.normalize("NFC", name.strip())
    bad = sorted({c for c in clean if not (unicodedata.category(c)[0] in "LM"
                                          or unicodedata.category(c) == "Nd"
                                          or c in NAME_PUNCTUATION)})
    if not clean or len(clean) > 64 or bad or unicodedata.category(clean[0])[0] == "M":
        shown = f" (not allowed: {' '.join(repr(c) for c in bad)})" if bad else ""
        raise BadState(f"bad league name {name!r}: 1-64 letters, digits, '_', '-' or '.'{shown}",
                       "bad-name")
    return clean


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip()).casefold()


def find_league(session: Session, name: str) -> League | None:
    """The league called ``name`` ignoring case (Unicode case folding, NFC), or ``None``.
    An exact match is looked up first; otherwise every league name is compared (the number of
    leagues is small), since SQL ``lower()`` folds only ASCII on SQLite."""
    exact = session.scalar(select(League).where(League.name == name.strip()))
    if exact is not None:
        return exact
    key = _name_key(name)
    for league_id, league_name in session.execute(select(League.id, League.name)
                                                  .order_by(League.id)):
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


# --------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class SubmitOutcome:
    """What :func:`submit_entry` did.

    Attributes:
        accepted: the sheet is valid and is now the entry's active sheet.
        sheet: the parser's ``SheetResult`` (problems to report either way).
        replaced: an earlier active sheet was replaced.
        version: the new sheet version number (1-based), ``None`` when rejected.
    """

    accepted: bool
    sheet: Any
    replaced: bool
    version: int | None


def _check_open(league: League, now: dt.datetime) -> None:
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


def submit_entry(session: Session, league: League, player: Player, sheet_text: str, *,
                 inbound_id: int | None = None, now: dt.datetime) -> SubmitOutcome:
    """Enter (or replace) ``player``'s sheet in ``league``.

    A valid sheet becomes a new :class:`SheetVersion` (version n+1, active; the previous one is
    kept, inactive) with the normalized notation. An invalid sheet stores nothing and comes back
    with ``accepted=False`` and the problems. Raises :class:`EntriesClosed` after the deadline or
    once entries are closed, and :class:`BadState` (code ``disqualified``) for a disqualified
    player.
    """
    _check_open(league, now)
    rules = _rules()
    result = rules.parse_sheet(sheet_text)
    if not result.ok or result.unit is None:
        return SubmitOutcome(False, result, False, None)
    entry = _entry(session, league, player)
    if entry is not None and entry.status == "disqualified":
        raise BadState(f"{player.address} is disqualified from {league.name!r}", "disqualified")
    if entry is None:
        from app.league.ownership import new_key

        entry = Entry(league_id=league.id, player_id=player.id, status="active", created_at=now,
                      owner_key=new_key())  # the entry key (app.league.ownership)
        session.add(entry)
        session.flush()
    replaced = False
    if entry.status == "withdrawn":
        entry.status = "active"
    prev = session.scalars(select(SheetVersion).where(SheetVersion.entry_id == entry.id)).all()
    for sv in prev:
        if sv.active:
            replaced = replaced or entry.status == "active"
            sv.active = False
    version = 1 + max((sv.version for sv in prev), default=0)
    unit = result.unit
    sheet = SheetVersion(entry_id=entry.id, version=version, text=sheet_text,
                         normalized=rules.format_sheet(unit, result.lang), unit_name=unit.name,
                         lang=result.lang, active=True, inbound_id=inbound_id, created_at=now)
    session.add(sheet)
    session.flush()
    return SubmitOutcome(True, result, replaced and version > 1, version)


def withdraw(session: Session, league: League, player: Player, *, now: dt.datetime) -> None:
    """Withdraw ``player``'s entry (its sheets are kept). Raises :class:`EntriesClosed` once
    entries are closed and :class:`NotEntered` when there is no active entry."""
    _check_open(league, now)
    entry = _entry(session, league, player)
    if entry is None or entry.status != "active":
        raise NotEntered(f"{player.address} has no entry in {league.name!r}")
    entry.status = "withdrawn"


def active_sheet(session: Session, entry: Entry) -> SheetVersion | None:
    """The entry's active sheet version, or ``None``."""
    return session.scalar(
        select(SheetVersion).where(SheetVersion.entry_id == entry.id, SheetVersion.active)
    )


# --------------------------------------------------------------------------- closing


def close_entries(session: Session, league: League, *, now: dt.datetime,
                  settings: Any = None) -> None:
    """Close entries: seat the active entries (in order of entry, seat 0 first) and create every
    round and battle of the Berger schedule, with each side's active sheet version fixed.

    Round k is scheduled at ``now + (k - 1) × rounds_every`` (unscheduled without an interval:
    the organizer runs rounds). With fewer than two entries the league is finished at once.
    With ``settings`` (the server's :class:`app.config.Settings`), every seated player is mailed
    the pairings of round 1 (the standings "before round 1", :func:`queue_standings` with round 0),
    so the schedule is known before any battle; with fewer than two entries, the seated player
    is mailed (the same way, threaded under their entry) that the league did not take place. Raises :class:`BadState` unless the league is open.
    """
    if league.state != "open":
        raise BadState(f"league {league.name!r} is {league.state}, not open")
    from app.league.ownership import expire_pending

    expire_pending(session, league, now)  # no replacement or withdrawal waits past the close
    entries = session.scalars(
        select(Entry).where(Entry.league_id == league.id, Entry.status == "active")
        .order_by(Entry.id)
    ).all()
    sheets: dict[int, int] = {}
    seated: list[Entry] = []
    for e in entries:
        sv = active_sheet(session, e)
        if sv is not None:
            sheets[e.id] = sv.id
            seated.append(e)
    for seat, e in enumerate(seated):
        e.seat = seat
    schedule = berger_schedule(len(seated), double=league.double)
    every = dt.timedelta(seconds=league.rounds_every_s) if league.rounds_every_s else None
    round_rows: list[Round] = []
    for k, boards in enumerate(schedule):
        try:
            at = (now + k * every) if every else None
        except OverflowError:
            raise BadState(f"league {league.name!r}: round {k + 1} would be scheduled past the "
                           f"year 9999 (rounds every {format_duration(league.rounds_every_s or 0)})",
                           "bad-interval") from None
        rnd = Round(league_id=league.id, number=k + 1, state="scheduled", scheduled_at=at)
        session.add(rnd)
        round_rows.append(rnd)
    session.flush()
    rows: list[dict[str, Any]] = []
    for rnd, boards in zip(round_rows, schedule, strict=True):
        for p in boards:
            a = seated[p.a]
            b = seated[p.b] if p.b is not None else None
            rows.append(dict(
                round_id=rnd.id, board=p.board, entry_a_id=a.id,
                entry_b_id=b.id if b else None, sheet_a_id=sheets[a.id],
                sheet_b_id=sheets[b.id] if b else None,
                state="pending" if b else "done", reason=None if b else "bye",
                winner=None, fought_at=None if b else now,
            ))
    if rows:
        session.execute(Battle.__table__.insert(), rows)
    league.state = "closed" if schedule else "finished"
    league.next_round_at = round_rows[0].scheduled_at if round_rows else None
    if settings is not None and seated:
        # the pairings of round 1 or, with fewer than two entries, the news that the league
        # did not take place (the standings templates' "cancelled" text)
        session.flush()
        queue_standings(session, settings, league, 0, now=now)


# --------------------------------------------------------------------------- playing rounds


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
    public_url: str = ""  # the web view's base URL: report mails link to their battle's page

    def unit(self, sheet_id: int) -> Any:
        """The parsed unit of sheet ``sheet_id``; raises :class:`BadState` when it no longer
        parses (the stored normalized text is tried first, then the text as sent)."""
        if sheet_id not in self.units:
            sv = self.sheets[sheet_id]
            rules = _rules()
            res = rules.parse_sheet(sv.normalized)
            if not res.ok or res.unit is None:
                res = rules.parse_sheet(sv.text)
            if not res.ok or res.unit is None:
                raise BadState(
                    f"sheet {sv.id} (entry {sv.entry_id}, version {sv.version}) no longer parses",
                    "sheet-unreadable")
            self.units[sheet_id] = res.unit
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
    return _Cast(league.id, league.name, entries, players, sheets, thread,
                 sender=getattr(settings, "server_address", ""),
                 sender_name=getattr(settings, "server_name", ""),
                 public_url=getattr(settings, "public_url", "") or "")


def _lock_league(session: Session, league_id: int) -> League:
    """Write the league row first: serializes concurrent runners on SQLite and PostgreSQL."""
    session.execute(update(League).where(League.id == league_id).values(state=League.state))
    league = session.get(League, league_id)
    assert league is not None
    session.refresh(league)
    return league


def _final_json(result: Any) -> dict[str, Any]:
    return {"a": dataclasses.asdict(result.final[0]), "b": dataclasses.asdict(result.final[1])}


def _kill_hook(counter: list[int]) -> None:
    """Test hook (``AMARYLLIS_LEAGUE_KILL_AFTER_BATTLES=K``): SIGKILL this process once K battles
    have been fought in it, simulating a crash part-way through a round."""
    limit = os.environ.get(KILL_ENV)
    counter[0] += 1
    if limit and counter[0] >= int(limit):
        os.kill(os.getpid(), signal.SIGKILL)


def _env_int(name: str, default: int, minimum: int) -> int:
    try:
        return max(minimum, int(os.environ.get(name, default)))
    except ValueError:
        return default


def _batch_size() -> int:
    return _env_int("AMARYLLIS_LEAGUE_BATCH", BATCH, 1)


def _report_rows(cast: _Cast, round_number: int, b: _B, result: Any, now: dt.datetime, *,
                 key_suffix: str = "", notes: dict[str, tuple[str, bool]] | None = None,
                 skip: set[str] | frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The outbox rows of the battle report to both players (dedupe keys
    ``report:<battle id>:<side><key_suffix>``, those in ``skip`` left out): text and HTML in each
    player's language and charset, threaded under the mail that entered the player's active
    sheet; built once per (language, charset) and stamped per recipient
    (``app.league.outbox``). ``result`` is the logged engine run of the two sheets; ``b`` holds
    the recorded result the header states. ``notes`` maps a language to ``(engine note, show
    the log)`` (see :func:`engine_note`; default: no note, log shown). A non-empty
    ``key_suffix`` (a resend) marks the subject as resent. No database needed."""
    from app.league.outbox import Copy, build_rows
    from app.reports.battle import render_report
    from app.reports.league_battle import LeagueBattleContext, render_league_battle, subject
    from app.rules import DEFAULT_RULESET, find_ruleset
    from app.web.urls import mail_link

    groups: dict[tuple[str, str], list[Copy]] = {}
    for side, entry_id, sheet_id in ((0, b.entry_a_id, b.sheet_a_id),
                                     (1, b.entry_b_id, b.sheet_b_id)):
        key = f"report:{b.id}:{side}{key_suffix}"
        if key in skip:
            continue
        player = cast.player_of(entry_id)
        lang = player.lang if player.lang in ("ja", "en") else "ja"
        groups.setdefault((lang, player.charset), []).append(
            Copy(key, player.address, cast.thread.get(sheet_id)))
    ua, ub = cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id)
    winner = {0: "A", 1: "B"}.get(b.winner, "") if b.winner is not None else ""
    rows: list[dict[str, Any]] = []
    logs: dict[str, str] = {}
    reports: dict[str, Any] = {}  # the BattleReport per language, for the HTML part's layout
    for (lang, charset), copies in groups.items():
        note, show_log = (notes or {}).get(lang, ("", True))
        if show_log and lang not in logs:
            reports[lang] = find_ruleset(DEFAULT_RULESET)().report(ua, ub, result, lang=lang)
            logs[lang] = render_report(reports[lang], fmt="text")
        ctx = LeagueBattleContext(
            league=cast.league_name, round=round_number, board=b.board,
            player_a=cast.name(b.entry_a_id), unit_a=ua.name,
            player_b=cast.name(b.entry_b_id), unit_b=ub.name, winner=winner,
            winner_unit=(ua.name if b.winner == 0 else ub.name) if winner else "",
            reason=b.reason or "", turns=b.turns or 0, hp=(int(b.hp_a or 0), int(b.hp_b or 0)),
            report=logs.get(lang, "") if show_log else "",
            engine_version=b.engine_version or "", engine_note=note,
            battle=reports.get(lang) if show_log else None,
            url=mail_link(cast.public_url, cast.league_name, b.id),
        )
        rows += build_rows(
            copies, kind="report", now=now, sender=cast.sender, sender_name=cast.sender_name,
            subject=subject(ctx, lang, resent=bool(key_suffix)),
            text=render_league_battle(ctx, lang=lang, fmt="text"),
            html=render_league_battle(ctx, lang=lang, fmt="html"), charset=charset,
            auto_submitted="auto-generated")
    return rows


def _fight(cast: _Cast, round_number: int, pending: list[_B],
           now: dt.datetime) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """Fight ``pending`` battles: for each, ``(battle id, result column values, report rows)``.
    Pure computation (no database), so it runs in this process or in a worker."""
    rules = _rules()
    version = str(rules.ENGINE_VERSION)
    out = []
    for p in pending:
        result = rules.battle(cast.unit(p.sheet_a_id), cast.unit(p.sheet_b_id), log=True)
        values = dict(engine_version=version, winner=result.winner, reason=result.reason.value,
                      turns=result.turns, hp_a=result.final[0].hp, hp_b=result.final[1].hp,
                      final=_final_json(result), state="done")
        fought = dataclasses.replace(p, winner=result.winner, reason=result.reason.value,
                                     turns=result.turns, hp_a=result.final[0].hp,
                                     hp_b=result.final[1].hp, engine_version=version)
        out.append((p.id, values, _report_rows(cast, round_number, fought, result, now)))
    return out


def _worker_fight(args: tuple[_Cast, int, list[_B], dt.datetime]) -> list[
        tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """:func:`_fight` in a worker process (the cast travels with the task, units parsed)."""
    return _fight(*args)


def _workers(pending: int) -> int:
    """Worker processes for a run with ``pending`` battles: ``AMARYLLIS_LEAGUE_WORKERS`` if set
    (0: none), else one per CPU (at most 8) from 500 battles up (below that, starting them
    costs more than they save)."""
    if "AMARYLLIS_LEAGUE_WORKERS" in os.environ:
        return _env_int("AMARYLLIS_LEAGUE_WORKERS", 0, 0)
    return min(8, os.cpu_count() or 1) if pending >= 500 else 0


def _apply(session: Session, results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
           now: dt.datetime, counter: list[int]) -> None:
    """Store fought battles and queue their reports, in the caller's transaction. Battles no
    longer pending (another runner did them) and report keys already queued are skipped."""
    from app.league.outbox import existing_keys, insert_rows

    ids = [bid for bid, _, _ in results]
    pending = set(session.scalars(select(Battle.id).where(Battle.id.in_(ids),
                                                          Battle.state == "pending")))
    fresh = [r for r in results if r[0] in pending]
    known = existing_keys(session, [row["dedupe_key"] for _, _, rows in fresh for row in rows])
    updates: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for bid, values, rows in fresh:
        updates.append(dict(id=bid, fought_at=now, **values))
        out += [row for row in rows if row["dedupe_key"] not in known]
        _kill_hook(counter)
    if updates:
        session.execute(update(Battle), updates)
    insert_rows(session, out)


@dataclass
class _Prepared:
    """A round about to be played: its cast and its pending battles in chunks."""

    league_id: int
    league_name: str
    round_id: int
    number: int
    cast: _Cast
    chunks: list[list[_B]]


def _prepare_round(factory: sessionmaker[Session], settings: Any, league_id: int,
                   round_id: int, workers: int,
                   casts: dict[int, _Cast] | None = None) -> _Prepared | None:
    """Load a round's pending battles (``None`` when the round is done already) and mark the
    league running. Every sheet is parsed here, so a bad sheet fails before any work. ``casts``
    keeps one cast per league across the rounds of a run (sheets are parsed once)."""
    with transaction(factory) as session:
        league = _lock_league(session, league_id)
        rnd = session.get(Round, round_id)
        assert rnd is not None
        session.refresh(rnd)
        if rnd.state == "done":
            return None
        if league.state == "closed":
            league.state = "running"
        cast = (casts or {}).get(league_id) or _load_cast(session, league, settings)
        if casts is not None:
            casts[league_id] = cast
        pending = [_B.of(b) for b in session.scalars(
            select(Battle).where(Battle.round_id == round_id, Battle.state == "pending")
            .order_by(Battle.board))]
        number, name = rnd.number, league.name
    for sid in sorted({s for b in pending for s in (b.sheet_a_id, b.sheet_b_id)}):
        cast.unit(sid)
    size = _batch_size()
    if workers:  # enough chunks to keep every worker busy
        size = max(1, min(size, -(-len(pending) // (2 * workers))))
    chunks = [pending[i:i + size] for i in range(0, len(pending), size)]
    return _Prepared(league_id, name, round_id, number, cast, chunks)


def _store_chunk(factory: sessionmaker[Session], prep: _Prepared,
                 results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
                 now: dt.datetime, counter: list[int]) -> bool:
    """Store one chunk of fought battles with their reports in one transaction. Returns False
    when the round was finished meanwhile (by another runner)."""
    with transaction(factory) as session:
        _lock_league(session, prep.league_id)
        rnd = session.get(Round, prep.round_id)
        assert rnd is not None
        session.refresh(rnd)
        if rnd.state == "done":
            return False
        _apply(session, results, now, counter)
        return True


def _close_round(factory: sessionmaker[Session], settings: Any, prep: _Prepared,
                 now: dt.datetime) -> bool:
    """Finish a round whose battles are all stored (:func:`_finish_round`) in one transaction.
    Returns False when it was done already. Raises :class:`BadState` if battles are pending."""
    with transaction(factory) as session:
        league = _lock_league(session, prep.league_id)
        rnd = session.get(Round, prep.round_id)
        assert rnd is not None
        session.refresh(rnd)
        if rnd.state == "done":
            return False
        left = session.scalar(select(func.count()).select_from(Battle).where(
            Battle.round_id == prep.round_id, Battle.state == "pending"))
        if left:
            raise BadState(f"round {prep.number} still has {left} pending battles",
                           "round-incomplete")
        _finish_round(session, settings, league, rnd, now, prep.cast)
        return True


def _finish_round(session: Session, settings: Any, league: League, rnd: Round,
                  now: dt.datetime, cast: _Cast) -> None:
    """Close a round whose battles are all done: queue the standings to every seated active
    player, mark it done, schedule the next one or finish the league."""
    queue_standings(session, settings, league, rnd.number, now=now, cast=cast)
    rnd.state = "done"
    rnd.done_at = now
    nxt = session.scalar(select(Round).where(Round.league_id == league.id,
                                             Round.state != "done", Round.id != rnd.id)
                         .order_by(Round.number).limit(1))
    if nxt is None:
        league.state = "finished"
        league.next_round_at = None
    else:
        league.next_round_at = nxt.scheduled_at


def run_round(factory: sessionmaker[Session], settings: Any, league_name: str, *,
              all_rounds: bool = False, round_number: int | None = None,
              now: dt.datetime) -> list[int]:
    """Play the next round of ``league_name`` (all remaining rounds with ``all_rounds``; only
    round ``round_number`` when given), whatever their scheduled time. Returns the numbers of the
    rounds that were played (``[]`` when there was nothing to do, e.g. round ``round_number`` is
    done already or the league is finished).

    Raises :class:`NoSuchLeague`, :class:`BadState` while entries are still open or for a round
    number that does not exist.
    """
    with transaction(factory) as session:
        league = get_league(session, league_name)
        if league.state == "open":
            raise BadState(f"entries to {league.name!r} are still open: close them first",
                           "entries-open")
        q = select(Round).where(Round.league_id == league.id).order_by(Round.number)
        rounds = list(session.scalars(q))
        if round_number is not None:
            chosen = [r for r in rounds if r.number == round_number]
            if not chosen:
                raise BadState(f"league {league.name!r} has no round {round_number}", "no-round")
        else:
            pending = [r for r in rounds if r.state != "done"]
            chosen = pending if all_rounds else pending[:1]
        todo = [(league.id, league.name, r.id, r.number) for r in chosen if r.state != "done"]
    return [number for _, _, number in _play_rounds(factory, settings, todo, now)]


def _play_rounds(factory: sessionmaker[Session], settings: Any,
                 todo: list[tuple[int, str, int, int]],
                 now: dt.datetime) -> list[tuple[int, str, int]]:
    """Play rounds ``(league id, league name, round id, round number)`` in order; returns those
    actually played as ``(league id, league name, round number)``.

    Battles are fought in chunks, each stored with its reports in one transaction; a round is
    closed (standings queued, marked done) once all its chunks are stored, before any battle of
    a later round is stored. With many pending battles (:func:`_workers`) the chunks are fought
    by worker processes while this process stores earlier chunks and closes earlier rounds."""
    if not todo:
        return []
    with transaction(factory) as session:
        pending = session.scalar(select(func.count()).select_from(Battle).where(
            Battle.round_id.in_([rid for _, _, rid, _ in todo]), Battle.state == "pending")) or 0
    workers = _workers(pending)
    casts: dict[int, _Cast] = {}
    preps = [p for p in (_prepare_round(factory, settings, lid, rid, workers, casts)
                         for lid, _, rid, _ in todo) if p is not None]
    tasks = [(prep.cast, prep.number, chunk, now) for prep in preps for chunk in prep.chunks]
    counter = [0]
    played: list[tuple[int, str, int]] = []
    pool = None
    if workers > 0 and tasks:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(workers)  # no inherited connections
    try:
        results = (pool.imap(_worker_fight, tasks) if pool is not None
                   else (_fight(*task) for task in tasks))
        for prep in preps:
            alive = True
            for _ in prep.chunks:
                chunk_results = next(results)
                alive = alive and _store_chunk(factory, prep, chunk_results, now, counter)
            if alive and _close_round(factory, settings, prep, now):
                played.append((prep.league_id, prep.league_name, prep.number))
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return played


def tick(factory: sessionmaker[Session], settings: Any, *, now: dt.datetime) -> list[str]:
    """Do whatever is due at ``now``: close entries of open leagues past their deadline and play
    every scheduled round whose time has come (in order). Idempotent: a second call at the same
    ``now`` does nothing. Returns one line per thing done.

    Each league is handled on its own (its own transactions): an error in one league (a
    :class:`LeagueError` or anything unexpected, e.g. a schedule out of the date range) rolls
    back that league's step, is logged at ERROR (logger ``amaryllis.league``, with the league
    name) and comes back as a line ``error in league <name>: …``; the other leagues still
    proceed. The next tick tries the failed league again."""
    done: list[str] = []
    with transaction(factory) as session:
        due = [(lg.id, lg.name) for lg in open_leagues(session)
               if lg.entry_deadline is not None and as_utc(lg.entry_deadline) <= now]
    for lid, lname in due:
        try:
            with transaction(factory) as session:
                league = _lock_league(session, lid)
                if league.state == "open":
                    close_entries(session, league, now=now, settings=settings)
                    done.append(f"closed entries of {league.name}")
        except Exception as exc:  # noqa: BLE001 - one league must not stop the others
            done.append(_tick_error(lname, "closing entries", exc))
    with transaction(factory) as session:
        work: dict[int, list[tuple[int, str, int, int]]] = {}
        for league in session.scalars(select(League).where(League.state.in_(("closed", "running")))
                                      .order_by(League.id)):
            for rnd in session.scalars(select(Round).where(Round.league_id == league.id,
                                                           Round.state != "done")
                                       .order_by(Round.number)):
                at = as_utc(rnd.scheduled_at)
                if at is None or at > now:
                    break
                work.setdefault(league.id, []).append((league.id, league.name, rnd.id,
                                                       rnd.number))
    for rounds in work.values():
        try:
            for _, name, number in _play_rounds(factory, settings, rounds, now):
                done.append(f"played round {number} of {name}")
        except Exception as exc:  # noqa: BLE001 - one league must not stop the others
            done.append(_tick_error(rounds[0][1], "playing rounds", exc))
    return done


def _tick_error(league: str, step: str, exc: BaseException) -> str:
    """Log a league's failed tick step at ERROR (with the traceback unless it is a
    :class:`LeagueError`) and return the line :func:`tick` reports."""
    text = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
    _log.error("tick failed in league %s (%s): %s", league, step, text,
               exc_info=not isinstance(exc, LeagueError))
    return f"error in league {league}: {step} failed: {text}"


# --------------------------------------------------------------------------- standings


def _games(session: Session, league: League, upto_round: int | None) -> tuple[
        list[st.GameResult], dict[int, int]]:
    q = (select(Battle.entry_a_id, Battle.entry_b_id, Battle.winner, Battle.hp_a, Battle.hp_b,
                Battle.reason)
         .join(Round, Battle.round_id == Round.id)
         .where(Round.league_id == league.id, Battle.state == "done"))
    if upto_round is not None:
        q = q.where(Round.number <= upto_round)
    games: list[st.GameResult] = []
    byes: dict[int, int] = {}
    for a, b, w, ha, hb, reason in session.execute(q):
        if b is None:
            byes[a] = byes.get(a, 0) + 1
        else:
            games.append(st.GameResult(a, b, w, int(ha or 0), int(hb or 0)))
    return games, byes


def standings(session: Session, league: League, *,
              upto_round: int | None = None) -> list[st.StandingRow]:
    """The standings of ``league`` (after round ``upto_round``, default: everything played),
    best first. Seated active entries are ranked (before entries close: every active entry);
    disqualified entries and their games are left out. Tiebreaks: ``app.league.standings``."""
    entries = list(session.scalars(select(Entry).where(Entry.league_id == league.id,
                                                       Entry.status == "active")))
    if league.state != "open":
        entries = [e for e in entries if e.seat is not None]
    entries.sort(key=lambda e: (e.seat if e.seat is not None else 10**9, e.id))
    games, byes = _games(session, league, upto_round)
    scores = st.compute([e.id for e in entries], games,
                        st.Points(league.points_win, league.points_draw, league.points_loss), byes)
    by_id = {e.id: e for e in entries}
    pids = [e.player_id for e in entries]
    players = {p.id: p for p in session.scalars(select(Player).where(Player.id.in_(pids)))} \
        if pids else {}
    units: dict[int, str] = {}
    if by_id:
        for eid, uname in session.execute(select(SheetVersion.entry_id, SheetVersion.unit_name)
                                          .where(SheetVersion.entry_id.in_(list(by_id)),
                                                 SheetVersion.active)):
            units[eid] = uname
    rows: list[st.StandingRow] = []
    for s in scores:
        e = by_id[s.entry]
        p = players[e.player_id]
        rows.append(st.StandingRow(
            rank=s.rank, shared=s.shared, entry_id=e.id, player_id=p.id, address=p.address,
            name=public_name(p.display_name, p.address, p.id), unit=units.get(e.id, ""),
            played=s.played,
            wins=s.wins, draws=s.draws, losses=s.losses, byes=s.byes, points=s.points,
            head_to_head=s.head_to_head, sonneborn_berger=s.sonneborn_berger,
            hp_margin=s.hp_margin))
    return rows


def standings_context(session: Session, league: League, *, upto_round: int | None = None) -> Any:
    """The :class:`app.reports.standings.StandingsContext` of ``league`` after ``upto_round``
    (default: the last round done)."""
    from app.reports.standings import PairingView, StandingsContext

    rounds = list(session.scalars(select(Round).where(Round.league_id == league.id)
                                  .order_by(Round.number)))
    done = [r.number for r in rounds if r.state == "done"]
    after = upto_round if upto_round is not None else (max(done) if done else 0)
    rows = standings(session, league, upto_round=after)
    # the round after "after round N" is N+1 (the first numbered above N), whatever its state:
    # standings resent after later rounds were played still show the pairings that followed N
    nxt = next((r for r in rounds if r.number > after), None)
    pairings: list[PairingView] = []
    if nxt is not None:
        cast_names = {r.entry_id: (r.name, r.unit) for r in rows}
        for board, ea, eb, state in session.execute(
                select(Battle.board, Battle.entry_a_id, Battle.entry_b_id, Battle.state)
                .where(Battle.round_id == nxt.id).order_by(Battle.board)):
            if state == "void":
                continue
            na = cast_names.get(ea, ("?", "?"))
            nb = cast_names.get(eb, ("?", "?")) if eb else None
            pairings.append(PairingView(board, na[0], na[1], nb[0] if nb else None,
                                        nb[1] if nb else None))
    dq = [public_name(name, address, pid) for name, address, pid in session.execute(
        select(Player.display_name, Player.address, Player.id).join(Entry, Entry.player_id == Player.id)
        .where(Entry.league_id == league.id, Entry.status == "disqualified")
        .order_by(Entry.id))]
    if (rounds and after == len(rounds)) or (not rounds and league.state == "finished"):
        state = "finished"  # without rounds: the league did not take place (ctx.cancelled)
    else:
        state = league.state if league.state != "finished" else "running"
    return StandingsContext(
        league=league.name, state=state, after_round=after, rounds_total=len(rounds),
        points=f"{league.points_win}/{league.points_draw}/{league.points_loss}", rows=rows,
        next_round=nxt.number if nxt else None,
        next_round_at=(iso(nxt.done_at if nxt.state == "done" and nxt.done_at else nxt.scheduled_at)
                       if nxt else ""),
        next_pairings=pairings,
        disqualified=dq,
    )


def render_standings(session: Session, league: League, *, lang: str, fmt: str = "text",
                     upto_round: int | None = None, public_url: str = "") -> str:
    """The standings of ``league`` rendered in ``lang`` (``ja``/``en``) as ``fmt``
    (``text``/``html``; with ``public_url``, the HTML links to the league's page). Raises
    ``ValueError`` for an unknown language or format."""
    from app.reports.standings import render_standings_context
    from app.web.urls import mail_link

    ctx = standings_context(session, league, upto_round=upto_round)
    return render_standings_context(dataclasses.replace(ctx, url=mail_link(public_url, league.name)),
                                    lang=lang, fmt=fmt)


def _standings_subject(league: str, after: int, lang: str, final: bool,
                       cancelled: bool = False, resent: bool = False) -> str:
    """The subject of the standings mail after round ``after``; ``resent`` marks a copy queued
    again by ``league resend`` (:func:`app.reports.standings.standings_subject`)."""
    from app.reports.standings import standings_subject

    return standings_subject(league, after, lang, final=final, cancelled=cancelled,
                             resent=resent)


def queue_standings(session: Session, settings: Any, league: League, round_number: int, *,
                    now: dt.datetime, cast: _Cast | None = None, key_suffix: str = "") -> int:
    """Queue the standings after ``round_number`` to every seated active player (dedupe key
    ``standings:<league id>:<round>:<player id>``), threaded under the mail that entered the
    player's active sheet. A non-empty ``key_suffix`` (a resend) marks the subject as resent.
    The body is rendered and built once per (language, charset) and stamped per recipient
    (``app.league.outbox``). Returns the number of mails queued."""
    from app.league.outbox import Copy, queue_copies
    from app.reports.standings import render_standings_context
    from app.web.urls import mail_link

    if cast is None:
        cast = _load_cast(session, league, settings)
    ctx = dataclasses.replace(standings_context(session, league, upto_round=round_number),
                              url=mail_link(getattr(settings, "public_url", "") or "", league.name))
    active_sheet_of = {s.entry_id: s.id for s in cast.sheets.values() if s.active}
    groups: dict[tuple[str, str], list[Copy]] = {}
    for row in ctx.rows:
        player = cast.players[row.player_id]
        lang = player.lang if player.lang in ("ja", "en") else "ja"
        sheet_id = active_sheet_of.get(row.entry_id)
        groups.setdefault((lang, player.charset or "utf-8"), []).append(Copy(
            f"standings:{league.id}:{round_number}:{row.player_id}{key_suffix}", player.address,
            cast.thread.get(sheet_id) if sheet_id is not None else None))
    queued = 0
    for (lang, charset), copies in groups.items():
        queued += queue_copies(
            session, copies, kind="standings", now=now, sender=settings.server_address,
            sender_name=settings.server_name,
            subject=_standings_subject(league.name, round_number, lang, ctx.finished,
                                       ctx.cancelled, resent=bool(key_suffix)),
            text=render_standings_context(ctx, lang=lang, fmt="text"),
            html=render_standings_context(ctx, lang=lang, fmt="html"), charset=charset,
            auto_submitted="auto-generated")
    return queued


# --------------------------------------------------------------------------- organizer fixes


def disqualify(session: Session, league: League, address: str, *, now: dt.datetime) -> None:
    """Disqualify the player at ``address``: the entry is marked ``disqualified``, its pending
    battles are voided (never fought) and its games leave the standings. Idempotent. Raises
    :class:`NotEntered` when the player has no entry in ``league``."""
    addr = normalize_address(address)
    player = session.scalar(select(Player).where(Player.address == addr))
    entry = _entry(session, league, player) if player is not None else None
    if entry is None:
        raise NotEntered(f"{addr} has no entry in {league.name!r}")
    if entry.status == "disqualified":
        return
    entry.status = "disqualified"
    round_ids = select(Round.id).where(Round.league_id == league.id)
    session.execute(
        update(Battle)
        .where(Battle.round_id.in_(round_ids), Battle.state == "pending",
               (Battle.entry_a_id == entry.id) | (Battle.entry_b_id == entry.id))
        .values(state="void", reason="disqualified", fought_at=now)
    )


def _same_result(battle: Battle, result: Any) -> bool:
    return (battle.winner == result.winner and battle.reason == result.reason.value
            and battle.turns == result.turns and battle.hp_a == result.final[0].hp
            and battle.hp_b == result.final[1].hp)


def engine_note(battle: Battle, result: Any, lang: str, current: str) -> tuple[str, bool]:
    """Compare a recomputed ``result`` with the recorded ``battle``. Returns ``(note, show_log)``:
    no note when the engine version is the one recorded; when it changed, a note saying so and
    whether the current engine reproduces the recorded result. When it does not, the log is not
    shown (it would contradict the recorded result, which stands)."""
    from app.reports.league_battle import engine_note as note

    recorded = battle.engine_version or "?"
    if recorded == current:
        return "", True
    same = _same_result(battle, result)
    return note(recorded, current, same, lang), same


def resend(factory: sessionmaker[Session], settings: Any, league_name: str,
           round_number: int, *, now: dt.datetime | None = None) -> int:
    """Queue the battle reports of round ``round_number`` and its standings again, to every
    player (new dedupe keys ending ``:resend<k>``, k = 1, 2, …). The logs are recomputed; a
    changed engine version is noted and never changes the recorded result
    (:func:`engine_note`). Games of disqualified entries are skipped. Returns the number of mails
    queued. Raises :class:`NoSuchLeague`, or :class:`BadState` when the round does not exist or
    is not played yet."""
    from app.db.models import utcnow
    from app.league.outbox import existing_keys, insert_rows

    now = now or utcnow()
    rules = _rules()
    current = str(rules.ENGINE_VERSION)
    with transaction(factory) as session:
        league = _lock_league(session, get_league(session, league_name).id)
        rnd = session.scalar(select(Round).where(Round.league_id == league.id,
                                                 Round.number == round_number))
        if rnd is None:
            raise BadState(f"league {league.name!r} has no round {round_number}", "no-round")
        if rnd.state != "done":
            raise BadState(f"round {round_number} of {league.name!r} is not played yet",
                           "round-not-played")
        suffix = f":resend{_next_resend(session, league, rnd)}"
        cast = _load_cast(session, league, settings)
        queued = 0
        for b in session.scalars(select(Battle).where(Battle.round_id == rnd.id,
                                                      Battle.state == "done")
                                 .order_by(Battle.board)):
            if b.entry_b_id is None or not b.sheet_a_id or not b.sheet_b_id:
                continue
            if (cast.entries[b.entry_a_id].status == "disqualified"
                    or cast.entries[b.entry_b_id].status == "disqualified"):
                continue
            result = rules.battle(cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id), log=True)
            notes = {lg: engine_note(b, result, lg, current) for lg in ("ja", "en")}
            rows = _report_rows(cast, rnd.number, _B.of(b), result, now, key_suffix=suffix,
                                notes=notes)
            known = existing_keys(session, [r["dedupe_key"] for r in rows])
            rows = [r for r in rows if r["dedupe_key"] not in known]
            insert_rows(session, rows)
            queued += len(rows)
        queued += queue_standings(session, settings, league, round_number, now=now, cast=cast,
                                  key_suffix=suffix)
        return queued


def _next_resend(session: Session, league: League, rnd: Round) -> int:
    """The next free resend number of a round (1, 2, …), from the keys queued so far."""
    keys = list(session.scalars(select(OutboxMessage.dedupe_key).where(
        OutboxMessage.dedupe_key.like(f"standings:{league.id}:{rnd.number}:%:resend%"))))
    battle_ids = [str(i) for i in session.scalars(select(Battle.id).where(
        Battle.round_id == rnd.id, Battle.entry_b_id.is_not(None)).limit(1))]
    if battle_ids:
        keys += session.scalars(select(OutboxMessage.dedupe_key).where(
            OutboxMessage.dedupe_key.like(f"report:{battle_ids[0]}:%:resend%")))
    used = [int(k.rsplit(":resend", 1)[1]) for k in keys if k.rsplit(":resend", 1)[1].isdigit()]
    return max(used, default=0) + 1


def entries_of(session: Session, league: League) -> Iterable[tuple[Entry, Player,
                                                                    SheetVersion | None]]:
    """Every entry of ``league`` with its player and active sheet, by seat then entry order."""
    rows = session.execute(select(Entry, Player).join(Player, Entry.player_id == Player.id)
                           .where(Entry.league_id == league.id)).all()
    rows.sort(key=lambda r: (r[0].seat if r[0].seat is not None else 10**9, r[0].id))
    for e, p in rows:
        yield e, p, active_sheet(session, e)
