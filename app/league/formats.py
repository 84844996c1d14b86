"""The league side of ``app.formats``: a league's :class:`~app.formats.base.Format`, its history
from the stored rounds and battles, and the next round asked of the format and stored.

The league stores only rounds, boards (one battle row per board, bye rows included) and results;
``docs/formats.md`` ("How the league layer drives a format"). :func:`store_next_round` is called
at close (round 1) and in the transaction that marks a round done (round k + 1): the format's
answer is a pure function of the stored history, so a crash before that commit costs nothing,
the next attempt asks again and gets the same boards.

Mapping of rows to the format's values:

* entries in **seat order** (seats are given at close in entry order), every seated entry;
* ``inactive``: seated entries no longer ``active`` (disqualified, withdrawn);
* a battle ``done`` → ``Result(winner, margin)`` with ``margin`` = ``hp_a − hp_b`` (the
  ruleset's ``Outcome.margin``); ``void`` (an entry was disqualified before it was fought) → a
  walkover for the side still active (``Result(side, 0)``; the format ignores games with an
  inactive entry in the standings); ``pending`` → no result (the round is not complete).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Round, SheetVersion
from app.db.session import bulk_insert
from app.formats import Finished, Format, NotYet, Pairing, Result, RoundPairings, find_format
from app.formats import Round as FRound

#: the round robin's options come from the league's own columns (``double``, points)
ROUND_ROBIN = "round-robin"


def format_of(league: League) -> Format:
    """The league's format instance: ``find_format(league.format)`` with ``format_options``
    and the league's ``seed`` (a round robin also takes ``double`` and the points from the
    league's columns, so leagues from before formats play exactly as they did). Raises
    ``ValueError`` for a stored name or option the format does not know."""
    name = league.format or ROUND_ROBIN
    opts: dict[str, Any] = dict(league.format_options or {})
    cls = find_format(name)
    known = {o.name for o in cls.option_specs}
    if "points" in known and "points" not in opts:
        opts["points"] = f"{league.points_win}/{league.points_draw}/{league.points_loss}"
    if "double" in known and "double" not in opts:
        opts["double"] = bool(league.double)
    opts["seed"] = league.seed or ""
    return cls(opts)


def check_format(name: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Validate a format name and its options for ``league create``: ``(canonical name,
    normalized options without the seed)``. Raises ``ValueError`` naming the problem."""
    cls = find_format(name)
    fmt = cls({**options, "seed": ""})
    normalized = {k: v for k, v in fmt.options.items() if k != "seed" and k in
                  {str(o).strip().lower().replace("-", "_") for o in options}}
    return cls.name, normalized


def seat_order(session: Session, league: League) -> list[Entry]:
    """The seated entries in seat order (every one seated at close, whatever its status)."""
    return list(session.scalars(select(Entry).where(Entry.league_id == league.id,
                                                    Entry.seat.is_not(None))
                                .order_by(Entry.seat, Entry.id)))


def result_of(b: Any, active: set[int]) -> Result | None:
    """The format's :class:`Result` of a stored battle (see the module docstring): ``b`` a
    :class:`Battle` or a row with its ``entry_a_id``, ``entry_b_id``, ``state``, ``winner``,
    ``hp_a`` and ``hp_b``."""
    if b.entry_b_id is None:
        return None
    if b.state == "done":
        return Result(b.winner if b.winner in (0, 1) else None,
                      int(b.hp_a or 0) - int(b.hp_b or 0))
    if b.state == "void":
        return Result(0 if b.entry_a_id in active else 1 if b.entry_b_id in active else None)
    return None


def history_of(session: Session, league: League, *, upto: int | None = None,
               active: set[int] | None = None) -> list[FRound]:
    """The rounds stored so far (up to round ``upto``) as the format's history."""
    if active is None:
        active = {e.id for e in seat_order(session, league) if e.status == "active"}
    # the columns a result needs, not whole battles (their JSON outcome and final state)
    q = (select(Round.number, Battle.board, Battle.entry_a_id, Battle.entry_b_id, Battle.state,
                Battle.winner, Battle.hp_a, Battle.hp_b)
         .join(Battle, Battle.round_id == Round.id)
         .where(Round.league_id == league.id).order_by(Round.number, Battle.board))
    if upto is not None:
        q = q.where(Round.number <= upto)
    by_round: dict[int, list[tuple[Pairing, Result | None]]] = {}
    for b in session.execute(q).all():
        number = b.number
        by_round.setdefault(number, []).append(
            (Pairing(b.board, b.entry_a_id, b.entry_b_id), result_of(b, active)))
    out = []
    for number in sorted(by_round):
        boards = by_round[number]
        out.append(FRound.of(number, [p for p, _ in boards],
                             {p.board: r for p, r in boards if r is not None}))
    return out


def inputs(session: Session, league: League, *, upto: int | None = None
           ) -> tuple[Format, list[int], list[FRound], set[int]]:
    """``(format, entries in seat order, history, inactive)`` of a league."""
    seated = seat_order(session, league)
    active = {e.id for e in seated if e.status == "active"}
    inactive = {e.id for e in seated if e.status != "active"}
    return (format_of(league), [e.id for e in seated],
            history_of(session, league, upto=upto, active=active), inactive)


def next_answer(session: Session, league: League) -> Any:
    """What the format says now: ``RoundPairings``, ``NotYet`` or ``Finished``."""
    fmt, entries, history, inactive = inputs(session, league)
    return fmt.next_round(entries, history, inactive=inactive)


def store_round(session: Session, league: League, answer: RoundPairings, *,
                scheduled_at: dt.datetime | None, now: dt.datetime) -> Round:
    """Store the format's pairings as round ``answer.round``: the round row and one battle row
    per board, each side's active sheet fixed; a bye board is stored done (``reason`` bye).
    Raises ``ValueError`` when a paired entry has no active sheet."""
    return store_rounds(session, league, [(answer, scheduled_at)], now=now)[0]


def store_rounds(session: Session, league: League,
                 answers: list[tuple[RoundPairings, dt.datetime | None]], *,
                 now: dt.datetime) -> list[Round]:
    """:func:`store_round` for several rounds at once (``(pairings, scheduled_at)`` each, in
    order): one query for the active sheets, the round rows in one flush, every battle row in
    one bulk insert (``app.db.session.bulk_insert``: a round robin's whole Berger table of
    4,950 battles at 100 entries). Returns the rounds in the order given. Raises
    ``ValueError`` when a paired entry has no active sheet."""
    eids = {e for answer, _ in answers for p in answer.pairings for e in (p.a, p.b)
            if e is not None}
    sheets: dict[int, int] = {}
    if eids:
        for eid, sid in session.execute(select(SheetVersion.entry_id, SheetVersion.id)
                                        .where(SheetVersion.entry_id.in_(eids),
                                               SheetVersion.active)):
            sheets[eid] = sid
    missing = sorted(eids - set(sheets))
    if missing:
        raise ValueError(f"entries {missing} have no active sheet")
    rounds = [Round(league_id=league.id, number=answer.round, state="scheduled",
                    scheduled_at=at, note=answer.note) for answer, at in answers]
    session.add_all(rounds)
    session.flush()
    rows = [dict(round_id=rnd.id, board=p.board, entry_a_id=p.a, entry_b_id=p.b,
                 sheet_a_id=sheets[p.a], sheet_b_id=sheets[p.b] if p.b is not None else None,
                 state="pending" if p.b is not None else "done",
                 reason=None if p.b is not None else "bye", winner=None,
                 fought_at=None if p.b is not None else now)
            for rnd, (answer, _) in zip(rounds, answers) for p in answer.pairings]
    bulk_insert(session, Battle, rows)
    session.flush()
    return rounds


def advance(session: Session, league: League, *, scheduled_at: dt.datetime | None,
            now: dt.datetime) -> Round | str:
    """Ask the format for the next round and store it (:func:`store_round`), or answer why not:
    ``Finished.reason`` (the league is finished: ``all-rounds-played``, ``champion``, …) or
    ``NotYet.reason`` (``waiting-for-entries``: the hill). A round already stored and not done
    is returned as it is (``results-pending`` of the last round: nothing new to ask)."""
    answer = next_answer(session, league)
    if isinstance(answer, RoundPairings):
        return store_round(session, league, answer, scheduled_at=scheduled_at, now=now)
    if isinstance(answer, NotYet) and answer.reason == "results-pending":
        rnd = session.scalar(select(Round).where(Round.league_id == league.id,
                                                 Round.number == answer.round))
        assert rnd is not None
        return rnd
    assert isinstance(answer, Finished | NotYet)
    return answer.reason


def describe(league: League, lang: str) -> list[str]:
    """What the league's format is and how the next round is paired, one line each, in ``lang``
    (standings mails, reports, ``league show``)."""
    return format_of(league).describe(lang if lang in ("ja", "en") else "en")


def rounds_planned(session: Session, league: League) -> int | None:
    """How many rounds the league will play (``None`` when it depends on results)."""
    n = (session.scalar(select(func.count()).select_from(Entry).where(
        Entry.league_id == league.id, Entry.seat.is_not(None))) or 0) \
        if league.state != "open" else 0
    return format_of(league).rounds_planned(n)


def entry_ids(entries: Iterable[Entry]) -> list[int]:
    """The ids of ``entries`` in order."""
    return [e.id for e in entries]


def set_format(league: League, name: str, options: dict[str, Any]) -> None:
    """Give a league that is still open (no round yet) its format: validated by the format
    itself (``ValueError`` naming the bad option or name), stored canonical with its normalized
    options. A hill has no entry deadline (always open); a round robin's ``double`` and
    ``points`` options set the league's own columns."""
    canonical, normalized = check_format(name, options)
    if canonical == ROUND_ROBIN:
        if "double" in normalized:
            league.double = bool(normalized.pop("double"))
        if "points" in normalized:
            try:
                w, d, l_ = (int(x) for x in str(normalized.pop("points")).split("/"))
            except ValueError:
                raise ValueError("a round robin league takes whole points (W/D/L)") from None
            league.points_win, league.points_draw, league.points_loss = w, d, l_
    league.format = canonical
    league.format_options = normalized
    if canonical == "hill":
        league.entry_deadline = None
