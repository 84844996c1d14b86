"""The league side of ``app.formats``: a league's :class:`~app.formats.base.Format`, its history
from the stored rounds and battles, its kept state, and the next round asked of the format and
stored.

The league stores only rounds, boards (one battle row per board, bye rows included) and results;
``docs/formats.md`` ("How the league layer drives a format"). :func:`store_next_round` is called
at close (round 1) and in the transaction that marks a round done (round k + 1): the format's
answer is a pure function of the stored history, so a crash before that commit costs nothing,
the next attempt asks again and gets the same boards.

Nothing here names a format: what varies is read from the format's declared capabilities
(``pairs_at_close``, ``always_open``, ``keeps_state``, …).

Mapping of rows to the format's values:

* entries in **seat order** (seats are given at close in entry order), every seated entry;
* ``inactive``: seated entries no longer ``active`` (disqualified, withdrawn);
* a battle ``done`` → ``Result(winner, margin)`` with ``margin`` = ``battles.margin``, the
  ruleset's ``Outcome.margin`` (the one margin of every format and tiebreak; ``hp_a − hp_b``
  only for rows stored before the column existed); ``void`` (an entry was disqualified before
  it was fought) → a walkover for the side still active (``Result(side, 0)``; the format ignores
  games with an inactive entry in the standings); ``pending`` → no result.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Round, SheetVersion
from app.db.session import bulk_insert
from app.formats import (
    DEFAULT_FORMAT,
    Finished,
    Format,
    NotYet,
    Pairing,
    Result,
    RoundPairings,
    Standings,
    find_format,
)
from app.formats import Round as FRound
from app.league.errors import BadState
from app.league.timeparse import as_utc, format_duration
from app.rules import Ruleset, league_ruleset


def format_of(league: Any) -> Format:
    """The league's format instance: ``find_format(league.format)`` with ``format_options``
    and the league's ``seed``. Options a format takes that the league also keeps in its own
    columns (``double``, ``points``: leagues from before formats) come from the columns when
    the stored options lack them, so old leagues play exactly as they did. Raises
    ``ValueError`` for a stored name or option the format does not know."""
    cls = find_format(getattr(league, "format", None) or DEFAULT_FORMAT)
    opts: dict[str, Any] = dict(getattr(league, "format_options", None) or {})
    known = {o.name for o in cls.option_specs}
    if "points" in known and "points" not in opts:
        opts["points"] = f"{league.points_win}/{league.points_draw}/{league.points_loss}"
    if "double" in known and "double" not in opts:
        opts["double"] = bool(league.double)
    opts["seed"] = getattr(league, "seed", None) or ""
    return cls(opts)


def rules_for(ruleset: Ruleset, fmt: Format) -> Ruleset:
    """``ruleset`` as a league of format ``fmt`` plays it: without rewrite requests when the
    format plays no later battle to apply them to (``Format.applies_rewrites``, H58), so its
    record and its outcomes say so."""
    return ruleset if fmt.applies_rewrites else ruleset.without_rewrites()


def league_rules(league: Any) -> Ruleset:
    """The ruleset ``league``'s sheets are read and its battles fought and reported with: the
    one door ``app.rules.league_ruleset`` (its ruleset with its options), as its format plays
    it (:func:`rules_for`). Raises ``ValueError`` for an unknown ruleset or format."""
    return rules_for(league_ruleset(league), format_of(league))


def check_format(name: str, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Validate a format name and its options for ``league create``: ``(canonical name,
    normalized options given, without the seed)``. Raises ``ValueError`` naming the problem."""
    cls = find_format(name)
    fmt = cls({**options, "seed": ""})
    given = {str(o).strip().lower().replace("-", "_") for o in options}
    return cls.name, {k: v for k, v in fmt.options.items() if k != "seed" and k in given}


def set_format(league: League, name: str, options: Mapping[str, Any]) -> Format:
    """Give a league that is still open (no round yet) its format: validated by the format
    itself (``ValueError`` naming the bad option or name), stored canonical with its normalized
    options. A format that is ``always_open`` has no entry deadline. Options the league also
    keeps in its own columns (``double``; ``points`` when whole numbers) are copied there, so
    every reader of the columns agrees. Returns the league's format."""
    canonical, normalized = check_format(name, options)
    if "double" in normalized:
        league.double = bool(normalized["double"])
    if "points" in normalized:
        try:
            w, d, l_ = (int(x) for x in str(normalized["points"]).split("/"))
        except ValueError:
            pass  # fractional points live in the format's options only
        else:
            league.points_win, league.points_draw, league.points_loss = w, d, l_
    league.format = canonical
    league.format_options = normalized
    fmt = format_of(league)
    if fmt.always_open:
        league.entry_deadline = None
    return fmt


def seat_order(session: Session, league: League) -> list[Entry]:
    """The seated entries in seat order (every one seated at close, whatever its status)."""
    return list(
        session.scalars(
            select(Entry)
            .where(Entry.league_id == league.id, Entry.seat.is_not(None))
            .order_by(Entry.seat, Entry.id)
        )
    )


def result_of(b: Any, active: set[int]) -> Result | None:
    """The format's :class:`Result` of a stored battle (see the module docstring): ``b`` a
    :class:`Battle` or a row with its ``entry_a_id``, ``entry_b_id``, ``state``, ``winner``,
    ``margin``, ``hp_a`` and ``hp_b``."""
    if b.entry_b_id is None:
        return None
    if b.state == "done":
        margin = b.margin if b.margin is not None else int(b.hp_a or 0) - int(b.hp_b or 0)
        return Result(b.winner if b.winner in (0, 1) else None, int(margin))
    if b.state == "void":
        return Result(0 if b.entry_a_id in active else 1 if b.entry_b_id in active else None)
    return None


@dataclass
class HistoryCache:
    """A league's done rounds as the format's :class:`~app.formats.base.Round` values, kept
    across the rounds of one run (``app.league.play``): a done round never changes (results
    stand; ``app.league.fixes`` voids only pending battles), so after each round only the rounds
    not yet cached are read (99 rounds of a 100-entry round robin read 4,950 battle rows once,
    not once per round).

    Attributes:
        rounds: the cached rounds by number (every one was done when read).
        active: the active entries the cached results were read with (a walkover depends on
            them; a change of the set empties the cache).
    """

    rounds: dict[int, FRound] = field(default_factory=dict)
    active: frozenset[int] = frozenset()


def history_of(
    session: Session,
    league: League,
    *,
    upto: int | None = None,
    active: set[int] | None = None,
    cache: HistoryCache | None = None,
) -> list[FRound]:
    """The rounds stored so far (up to round ``upto``) as the format's history; with ``cache``
    (this league's), rounds done before are taken from it and newly done ones added."""
    if active is None:
        active = {e.id for e in seat_order(session, league) if e.status == "active"}
    if cache is not None and cache.active != frozenset(active):
        cache.rounds.clear()
        cache.active = frozenset(active)
    known = set(cache.rounds) if cache is not None else set()
    q = (
        select(
            Round.number,
            Round.state,
            Battle.board,
            Battle.entry_a_id,
            Battle.entry_b_id,
            Battle.state,
            Battle.winner,
            Battle.margin,
            Battle.hp_a,
            Battle.hp_b,
        )
        .join(Battle, Battle.round_id == Round.id)
        .where(Round.league_id == league.id)
        .order_by(Round.number, Battle.board)
    )
    if upto is not None:
        q = q.where(Round.number <= upto)
    if known:
        q = q.where(Round.number.not_in(known))
    by_round: dict[int, list[tuple[Pairing, Result | None]]] = {}
    done: set[int] = set()
    for row in session.execute(q).all():
        number, round_state, board, a, b, state, winner, margin, hp_a, hp_b = row
        by_round.setdefault(number, []).append(
            (Pairing(board, a, b), result_of(_Row(a, b, state, winner, margin, hp_a, hp_b), active))
        )
        if round_state == "done":
            done.add(number)
    fresh: dict[int, FRound] = {}
    for number, boards in by_round.items():
        fresh[number] = FRound.of(
            number, [p for p, _ in boards], {p.board: r for p, r in boards if r is not None}
        )
    if cache is not None:
        cache.rounds.update({n: r for n, r in fresh.items() if n in done})
    rounds = {**(cache.rounds if cache is not None else {}), **fresh}
    return [rounds[n] for n in sorted(rounds) if upto is None or n <= upto]


@dataclass(frozen=True, slots=True)
class _Row:
    entry_a_id: int
    entry_b_id: int | None
    state: str
    winner: int | None
    margin: int | None
    hp_a: int | None
    hp_b: int | None


#: the last kept states read or written, by (league id, ``leagues.format_state_stamp``): reading
#: a hill's state decodes its JSON and recomputes every member's totals (~20,000 results on a
#: hill of 200), so a process that answers one arrival after another reuses the state it made.
#: A stamp is a fresh random token each time a state is stored (:func:`remember_state`), so a
#: state another process stored (a new stamp) or a rolled-back one (the old stamp stays in the
#: row) is never mistaken; an unstamped row is read each time.
_STATES: dict[tuple[int, str], Any] = {}


def state_of(league: League, fmt: Format | None = None) -> Any:
    """The league's kept format state (``Format.load_state`` of ``leagues.format_state``;
    ``None`` for a format that keeps none). A state this process stored or read under the row's
    ``format_state_stamp`` is reused without reading the JSON."""
    fmt = fmt or format_of(league)
    if not fmt.keeps_state:
        return None
    stamp = league.format_state_stamp
    if stamp is not None and (league.id, stamp) in _STATES:
        return _STATES[(league.id, stamp)]
    state = fmt.load_state(league.format_state or None)
    if stamp is not None:
        _keep(league.id, stamp, state)
    return state


def _keep(league_id: int, stamp: str, state: Any) -> None:
    if len(_STATES) > 8:
        _STATES.clear()
    _STATES[(league_id, stamp)] = state


def remember_state(league: League, state: Any, fmt: Format) -> None:
    """Store ``state`` as the league's kept state (``leagues.format_state``) under a new
    ``format_state_stamp`` and keep it parsed for this process."""
    league.format_state = fmt.state_json(state)  # clears the stamp (League._unstamp)
    league.format_state_stamp = stamp = uuid.uuid4().hex
    _keep(league.id, stamp, state)


def leave(league: League, entry: Any) -> None:
    """``entry`` leaves its league (withdrawn or disqualified): a format that keeps a state
    (the hill) stops counting its results at once; nothing for other formats."""
    fmt = format_of(league)
    if fmt.keeps_state:
        remember_state(league, fmt.leave(state_of(league, fmt), entry.id), fmt)


def inputs(
    session: Session, league: League, *, upto: int | None = None, cache: HistoryCache | None = None
) -> tuple[Format, list[int], list[FRound], set[int]]:
    """``(format, entries in seat order, history, inactive)`` of a league."""
    seated = seat_order(session, league)
    active = {e.id for e in seated if e.status == "active"}
    inactive = {e.id for e in seated if e.status != "active"}
    return (
        format_of(league),
        [e.id for e in seated],
        history_of(session, league, upto=upto, active=active, cache=cache),
        inactive,
    )


def format_standings(
    session: Session, league: League, *, upto: int | None = None, cache: HistoryCache | None = None
) -> tuple[Format, Standings]:
    """The league's format and its standings after round ``upto`` (default: everything
    stored), through ``Format.standings``: the one standings pipeline of every format. A format
    that keeps a state ranks from it when asked for the latest standings."""
    fmt, entries, history, inactive = inputs(session, league, upto=upto, cache=cache)
    state = state_of(league, fmt) if upto is None and fmt.keeps_state else None
    return fmt, fmt.standings(entries, history, inactive=inactive, state=state)


def next_answer(session: Session, league: League) -> Any:
    """What the format says now: ``RoundPairings``, ``NotYet`` or ``Finished``."""
    fmt, entries, history, inactive = inputs(session, league)
    return fmt.next_round(entries, history, inactive=inactive)


def store_round(
    session: Session,
    league: League,
    answer: RoundPairings,
    *,
    scheduled_at: dt.datetime | None,
    now: dt.datetime,
) -> Round:
    """Store the format's pairings as round ``answer.round``: the round row and one battle row
    per board, each side's active sheet fixed; a bye board is stored done (``reason`` bye).
    Raises ``ValueError`` when a paired entry has no active sheet."""
    return store_rounds(session, league, [(answer, scheduled_at)], now=now)[0]


def store_rounds(
    session: Session,
    league: League,
    answers: list[tuple[RoundPairings, dt.datetime | None]],
    *,
    now: dt.datetime,
) -> list[Round]:
    """:func:`store_round` for several rounds at once (``(pairings, scheduled_at)`` each, in
    order): one query for the active sheets, the round rows in one flush, every battle row in
    one bulk insert (``app.db.session.bulk_insert``: a round robin's whole Berger table of
    4,950 battles at 100 entries). Returns the rounds in the order given. Raises
    ``ValueError`` when a paired entry has no active sheet."""
    eids = {
        e for answer, _ in answers for p in answer.pairings for e in (p.a, p.b) if e is not None
    }
    sheets: dict[int, int] = {}
    if eids:
        for eid, sid in session.execute(
            select(SheetVersion.entry_id, SheetVersion.id).where(
                SheetVersion.entry_id.in_(eids), SheetVersion.active
            )
        ):
            sheets[eid] = sid
    missing = sorted(eids - set(sheets))
    if missing:
        raise ValueError(f"entries {missing} have no active sheet")
    rounds = [
        Round(
            league_id=league.id,
            number=answer.round,
            state="scheduled",
            scheduled_at=at,
            note=answer.note,
            paired_at=now,
        )
        for answer, at in answers
    ]
    session.add_all(rounds)
    session.flush()
    rows = [
        dict(
            round_id=rnd.id,
            board=p.board,
            entry_a_id=p.a,
            entry_b_id=p.b,
            sheet_a_id=sheets[p.a],
            sheet_b_id=sheets[p.b] if p.b is not None else None,
            state="pending" if p.b is not None else "done",
            reason=None if p.b is not None else "bye",
            winner=None,
            fought_at=None if p.b is not None else now,
        )
        for rnd, (answer, _) in zip(rounds, answers, strict=True)
        for p in answer.pairings
    ]
    bulk_insert(session, Battle, rows)
    session.flush()
    return rounds


def store_first_rounds(
    session: Session, league: League, entries: list[int], *, now: dt.datetime
) -> Round | str:
    """At close: store what the format pairs now. A format that ``pairs_at_close`` has its
    whole schedule stored at once (results never change it, so its rounds are known, mailed
    and shown from the start; round k is due at ``now + (k − 1) × rounds_every``); any other
    its first round (due now with an interval, else unscheduled). In a league whose ruleset
    takes orders every round is due one interval later (round 1 at ``now + rounds_every``):
    the players answer the pairing mail with their orders first. Returns the first round, or
    why there is none (``Finished.reason``). Raises :class:`BadState` (``bad-interval``) for a
    round that would be due past the year 9999."""
    fmt = format_of(league)
    every = dt.timedelta(seconds=league.rounds_every_s) if league.rounds_every_s else None
    lag = 0 if not league_rules(league).takes_orders else 1
    if not fmt.pairs_at_close:
        return advance(
            session, league, scheduled_at=(now + lag * every) if every else None, now=now
        )
    table: list[tuple[RoundPairings, dt.datetime | None]] = []
    for answer in fmt.schedule(entries):
        try:
            at = (now + (answer.round - 1 + lag) * every) if every else None
        except OverflowError:
            raise BadState(
                f"league {league.name!r}: round {answer.round} would be scheduled "
                f"past the year 9999 (rounds every "
                f"{format_duration(league.rounds_every_s or 0)})",
                "bad-interval",
            ) from None
        table.append((answer, at))
    if not table:
        return "too-few-entries"
    return store_rounds(session, league, table, now=now)[0]


def advance(
    session: Session, league: League, *, scheduled_at: dt.datetime | None, now: dt.datetime
) -> Round | str:
    """Ask the format for the next round and store it (:func:`store_round`), or answer why not:
    ``Finished.reason`` (the league is finished: ``all-rounds-played``, ``champion``, …) or
    ``NotYet.reason`` (``waiting-for-entries``: an always-open format). A round already stored
    and not done is returned as it is (``results-pending`` of the last round: nothing new to
    ask)."""
    answer = next_answer(session, league)
    if isinstance(answer, RoundPairings):
        return store_round(session, league, answer, scheduled_at=scheduled_at, now=now)
    if isinstance(answer, NotYet) and answer.reason == "results-pending":
        rnd = session.scalar(
            select(Round).where(Round.league_id == league.id, Round.number == answer.round)
        )
        assert rnd is not None
        return rnd
    assert isinstance(answer, Finished | NotYet)
    return answer.reason


def next_scheduled_at(league: League, rnd: Round, now: dt.datetime) -> dt.datetime | None:
    """When the round after ``rnd`` is due: ``rounds_every`` after ``rnd``'s own time (so the
    timetable set at close holds), ``None`` without an interval. Raises :class:`BadState`
    (``bad-interval``) past the year 9999."""
    if not league.rounds_every_s:
        return None
    base = as_utc(rnd.scheduled_at) or now
    try:
        return base + dt.timedelta(seconds=league.rounds_every_s)
    except OverflowError:
        raise BadState(
            f"league {league.name!r}: round {rnd.number + 1} would be scheduled past "
            f"the year 9999 (rounds every {format_duration(league.rounds_every_s)})",
            "bad-interval",
        ) from None


def describe(league: League, lang: str) -> list[str]:
    """What the league's format is and how the next round is paired, one line each, in ``lang``
    (standings mails, reports, ``league show``)."""
    return format_of(league).describe(lang if lang in ("ja", "en") else "en")


#: a round in which some entry fights more battles than this is mailed as digests (one mail
#: per player, ``Notices.queue_digests``), not as a report a battle
DIGEST_AFTER = 3


def is_digest_round(fmt: Format | None, fights: Mapping[int, int]) -> bool:
    """Whether a round whose entries fight ``fights`` battles (entry id → battles, byes not
    counted) is a digest round: always for a format whose rounds pit every entry against every
    other (``Format.all_play_all``), else when some entry fights more than
    :data:`DIGEST_AFTER` battles in it. Such a round is mailed as one digest per player, and
    its pairings are summed up, not listed, in the standings before it (every entry against
    every other: up to half a million boards)."""
    if fmt is not None and fmt.all_play_all:
        return True
    return max(fights.values(), default=0) > DIGEST_AFTER


def round_fights(session: Session, round_id: int) -> dict[int, int]:
    """Entry id → battles it fights in round ``round_id`` (byes not counted): two grouped
    counts, not the boards."""
    fights: dict[int, int] = {}
    for side in (Battle.entry_a_id, Battle.entry_b_id):
        for eid, n in session.execute(
            select(side, func.count())
            .where(Battle.round_id == round_id, Battle.entry_b_id.is_not(None))
            .group_by(side)
        ):
            fights[eid] = fights.get(eid, 0) + int(n)
    return fights


def rounds_planned(session: Session, league: League) -> int | None:
    """How many rounds the league will play (``None`` when it depends on results or never
    ends)."""
    n = (
        (
            session.scalar(
                select(func.count())
                .select_from(Entry)
                .where(Entry.league_id == league.id, Entry.seat.is_not(None))
            )
            or 0
        )
        if league.state != "open"
        else 0
    )
    fmt = format_of(league)
    return None if fmt.always_open else fmt.rounds_planned(n)
