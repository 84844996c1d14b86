"""Playing rounds.

Crash safety: a round is played in batches; each batch fights its pending battles, stores the
results and queues both battle reports (outbox, dedupe keys ``report:<battle id>:<side>``) in one
transaction. A killed process leaves whole batches done and the rest pending; running the round
again fights only what is pending, and the round's closing step (standings mails, dedupe keys
``standings:<league id>:<round>:<player id>``), done in the transaction of the round's last
batch, runs once. Every batch first writes the league row,
which serializes concurrent runners (row lock on PostgreSQL, the write lock on SQLite).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import logging
import os
import pickle
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import (
    Battle,
    League,
    Round,
)
from app.db.session import bulk_update, transaction
from app.league.cast import _B, _Cast, _load_cast, _lock_league
from app.league.entries import get_league
from app.league.errors import BadState
from app.league.results import GamesCache, queue_standings

_log = logging.getLogger("amaryllis.league")


#: battles per transaction in :func:`run_round` (``AMARYLLIS_LEAGUE_BATCH`` overrides it)
BATCH = 100


#: test hook: SIGKILL the process after this many battles fought (``docs/league.md``)
KILL_ENV = "AMARYLLIS_LEAGUE_KILL_AFTER_BATTLES"


def _final_json(outcome: Any) -> dict[str, Any]:
    """``battles.final``: each side's final fighters (``Fighter.to_json``), ``{"a": …, "b": …}``;
    a side of one fighter is that fighter's object (the shape battles had before parties), a
    party a list."""
    sides = [[f.to_json() for f in side] for side in outcome.final]
    return {k: (side[0] if len(side) == 1 else side) for k, side in zip(("a", "b"), sides, strict=True)}


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
    sheet; rendered once per language, built once per (language, charset) and stamped per
    recipient (``app.league.outbox``). ``result`` is the logged engine run of the two sheets;
    ``b`` holds the recorded result the header states. ``notes`` maps a language to ``(engine
    note, show the log)`` (see :func:`engine_note`; default: no note, log shown). A non-empty
    ``key_suffix`` (a resend) marks the subject as resent. No database needed."""
    from app.league.outbox import Copy, build_rows
    from app.reports.battle import render_report
    from app.reports.league_battle import (
        LeagueBattleContext,
        render_league_battle,
        subject,
    )
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
    rs = cast.rules
    ua, ub = cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id)
    name_a, name_b = rs.label(ua), rs.label(ub)
    winner = {0: "A", 1: "B"}.get(b.winner, "") if b.winner is not None else ""
    outcome = rs.outcome(result)
    rows: list[dict[str, Any]] = []
    parts: dict[str, tuple[str, str, str]] = {}  # lang -> (subject, text, html): any charset
    for (lang, charset), copies in groups.items():
        if lang not in parts:
            note, show_log = (notes or {}).get(lang, ("", True))
            report = rs.report(ua, ub, result, lang=lang) if show_log else None
            ctx = LeagueBattleContext(
                league=cast.league_name, round=round_number, board=b.board,
                player_a=cast.name(b.entry_a_id), unit_a=name_a,
                player_b=cast.name(b.entry_b_id), unit_b=name_b, winner=winner,
                winner_unit=(name_a if b.winner == 0 else name_b) if winner else "",
                reason=b.reason or "", turns=b.turns or 0,
                hp=(int(b.hp_a or 0), int(b.hp_b or 0)),
                report=render_report(report, fmt="text") if report is not None else "",
                engine_version=b.engine_version or "", engine_note=note,
                ruleset=rs.name, header=_record(rs, lang),
                finals=_finals(outcome, lang) if rs.final_lines else ((), ()),
                battle=report,
                url=mail_link(cast.public_url, cast.league_name, b.id),
                decision=_decision(cast, round_number, b, lang),
            )
            parts[lang] = (subject(ctx, lang, resent=bool(key_suffix)),
                           render_league_battle(ctx, lang=lang, fmt="text"),
                           render_league_battle(ctx, lang=lang, fmt="html"))
        subj, text, html = parts[lang]
        rows += build_rows(
            copies, kind="report", now=now, sender=cast.sender, sender_name=cast.sender_name,
            subject=subj, text=text, html=html, charset=charset, auto_submitted="auto-generated")
    return rows


def _record(rs: Any, lang: str) -> tuple[str, ...]:
    """The ruleset record a report header prints (``Ruleset.describe``): always where the
    ruleset asks for it (``report_record``), else only with non-default options."""
    return tuple(rs.describe(lang)) if rs.options or rs.report_record else ()


def _finals(outcome: Any, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Each side's final swordmasters in words, present ones front first then exited ones
    (``Outcome.final``): ``name HP 7/15`` (``exited`` marked)."""
    from app.reports.i18n import gettext

    exited = gettext(lang)(" (exited)")
    out = []
    for side in outcome.final:
        lines = []
        for f in side:
            mark = exited if f.exited else ""
            mp = f" MP {f.mp}" if f.mp else ""
            lines.append(f"{f.name} HP {f.hp}/{f.max_hp}{mp}{mark}")
        out.append(tuple(lines))
    return out[0], out[1]


def side_hp(outcome: Any, side: int) -> int:
    """``battles.hp_a``/``hp_b``: a one-fighter side's final HP (negative: overkill, also when it
    died), a party's summed final HP of the fighters still present (``Outcome.hp``)."""
    fighters = outcome.final[side]
    return int(fighters[0].hp) if len(fighters) == 1 else int(outcome.hp(side))


def battle_values(rs: Any, result: Any, version: str) -> dict[str, Any]:
    """The ``battles`` column values of a fought result (``Ruleset.outcome``): ``winner``,
    ``reason`` (the termination), ``turns``, ``hp_a``/``hp_b`` (:func:`side_hp`), ``margin`` (side A's tiebreak margin), ``outcome`` (``Outcome.to_json``),
    ``final`` (:func:`_final_json`), ``engine_version``."""
    o = rs.outcome(result)
    return dict(engine_version=version, winner=o.winner, reason=o.termination, turns=o.turns,
                hp_a=side_hp(o, 0), hp_b=side_hp(o, 1), margin=o.margin, outcome=o.to_json(),
                final=_final_json(o))
def _decision(cast: _Cast, round_number: int, b: _B, lang: str) -> str:
    """A knockout's drawn battle: who goes through and by which stated rule (HP margin, then
    the published seed's lot: ``Knockout.decide``), in ``lang``; ``""`` otherwise."""
    from app.formats import Game, Pairing, Result
    from app.formats.knockout import Knockout

    fmt = cast.fmt
    if not isinstance(fmt, Knockout) or b.winner is not None or b.reason is None:
        return ""
    game = Game(Pairing(b.board, b.entry_a_id, b.entry_b_id),
                Result(None, int(b.hp_a or 0) - int(b.hp_b or 0)))
    d = fmt.decide(round_number, game)
    if d is None:
        return ""
    unit = cast.unit(b.sheet_a_id if d.winner == b.entry_a_id else b.sheet_b_id)
    return fmt.decision_text(d, lang).format(winner=cast.rules.label(unit), loser="") + \
        ("。" if lang == "ja" else ". ") + fmt.draw_rule(lang)


def _fight(cast: _Cast, round_number: int, pending: list[_B],
           now: dt.datetime) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """Fight ``pending`` battles: for each, ``(battle id, result column values, report rows)``.
    Pure computation (no database), so it runs in this process or in a worker."""
    rules = cast.rules
    version = str(rules.engine_version)
    out = []
    for p in pending:
        result = rules.battle(cast.unit(p.sheet_a_id), cast.unit(p.sheet_b_id), log=True)
        values = battle_values(rules, result, version)
        fought = dataclasses.replace(p, winner=values["winner"], reason=values["reason"],
                                     turns=values["turns"], hp_a=values["hp_a"],
                                     hp_b=values["hp_b"], engine_version=version)
        values["state"] = "done"
        out.append((p.id, values, _report_rows(cast, round_number, fought, result, now)))
    return out


#: a worker process's casts of this run, by the key the parent gave (``id`` of its cast)
_WORKER_CASTS: dict[int, _Cast] = {}


def _worker_fight(args: tuple[int, bytes, int, list[_B], dt.datetime]) -> list[
        tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """:func:`_fight` in a worker process. The cast (units parsed, ≈ 70 KB pickled at 100
    entries) travels pickled once by the parent as ``bytes`` with every task of its league and
    is unpickled once per worker (kept by its key), not once per task."""
    key, blob, number, chunk, now = args
    cast = _WORKER_CASTS.get(key)
    if cast is None:
        cast = _WORKER_CASTS[key] = pickle.loads(blob)
    return _fight(cast, number, chunk, now)


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
        updates.append(dict(values, id=bid, fought_at=now))
        out += [row for row in rows if row["dedupe_key"] not in known]
        _kill_hook(counter)
    bulk_update(session, Battle, updates)  # one statement on PostgreSQL (same columns each)
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
    #: the league's games of done rounds, shared by the rounds of this run (standings)
    games: GamesCache | None = None


def _chunk_size(pending: int, workers: int) -> int:
    """Battles per chunk for a run of ``pending`` battles: :func:`_batch_size`, or fewer when
    ``workers`` processes fight them, so that the run (every prepared round's chunks are fought
    in one pipeline) makes about two chunks per worker."""
    size = _batch_size()
    if workers:
        size = max(1, min(size, -(-pending // (2 * workers))))
    return size


def _prepare_rounds(factory: sessionmaker[Session], settings: Any, league_id: int,
                    round_ids: list[int], size: int,
                    casts: dict[int, _Cast] | None = None) -> list[_Prepared]:
    """Load the pending battles of rounds ``round_ids`` of league ``league_id`` (in that
    order) in chunks of ``size`` (:func:`_chunk_size`), in one transaction (one lock, one
    query for every round's battles: a 99-round Berger table is prepared before the first
    battle is handed to a worker), and mark the league running. Rounds done already are left
    out. Every sheet is parsed here, so a bad sheet fails before any work. ``casts`` keeps one
    cast per league across the rounds of a run (sheets are parsed once)."""
    with transaction(factory) as session:
        league = _lock_league(session, league_id)
        stored = {r.id: r for r in session.scalars(
            select(Round).where(Round.id.in_(round_ids))
            .execution_options(populate_existing=True))}
        todo = [stored[rid] for rid in round_ids if rid in stored and stored[rid].state != "done"]
        if not todo:
            return []
        if league.state == "closed":
            league.state = "running"
        cast = (casts or {}).get(league_id) or _load_cast(session, league, settings)
        if (league.format or "") == "accumulating":
            for rnd in todo:
                _refresh_sheets(session, rnd.id)
            cast = _load_cast(session, league, settings)  # replacements since the last update
        if casts is not None:
            casts[league_id] = cast
        pending: dict[int, list[_B]] = {rnd.id: [] for rnd in todo}
        for round_id, *row in session.execute(
                select(Battle.round_id, Battle.id, Battle.board, Battle.entry_a_id,
                       Battle.entry_b_id, Battle.sheet_a_id, Battle.sheet_b_id, Battle.winner,
                       Battle.reason, Battle.turns, Battle.hp_a, Battle.hp_b,
                       Battle.engine_version)
                .where(Battle.round_id.in_(list(pending)), Battle.state == "pending")
                .order_by(Battle.round_id, Battle.board)).all():
            pending[round_id].append(_B(*row))
        assert all(b.entry_b_id is not None and b.sheet_a_id and b.sheet_b_id
                   for battles in pending.values() for b in battles)
        numbers = [(rnd.id, rnd.number) for rnd in todo]
        name = league.name
    for sid in sorted({s for battles in pending.values() for b in battles
                       for s in (b.sheet_a_id, b.sheet_b_id)}):
        cast.unit(sid)
    return [_Prepared(league_id, name, rid, number, cast,
                      [pending[rid][i:i + size] for i in range(0, len(pending[rid]), size)])
            for rid, number in numbers]


def _refresh_sheets(session: Session, round_id: int) -> None:
    """An accumulating update fights the units as they are when it is played: the pending
    battles of ``round_id`` take each side's active sheet now (a replacement since the update
    was paired counts)."""
    from app.db.models import SheetVersion

    rows = list(session.scalars(select(Battle).where(Battle.round_id == round_id,
                                                     Battle.state == "pending")))
    eids = {e for b in rows for e in (b.entry_a_id, b.entry_b_id) if e is not None}
    if not eids:
        return
    active = {eid: sid for eid, sid in session.execute(
        select(SheetVersion.entry_id, SheetVersion.id).where(SheetVersion.entry_id.in_(eids),
                                                             SheetVersion.active))}
    for b in rows:
        b.sheet_a_id = active.get(b.entry_a_id, b.sheet_a_id)
        if b.entry_b_id is not None:
            b.sheet_b_id = active.get(b.entry_b_id, b.sheet_b_id)
    session.flush()


def _store_chunk(factory: sessionmaker[Session], prep: _Prepared,
                 results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
                 now: dt.datetime, counter: list[int], *, settings: Any = None) -> bool:
    """Store one chunk of fought battles with their reports in one transaction. Returns False
    when the round was finished meanwhile (by another runner).

    With ``settings`` (the round's last chunk) the round is also finished
    (:func:`_finish_round`) in that same transaction; then raises :class:`BadState`, after
    committing the chunk, if battles of the round are still pending."""
    with transaction(factory) as session:
        league = _lock_league(session, prep.league_id)
        rnd = session.get(Round, prep.round_id, populate_existing=True)
        assert rnd is not None
        if rnd.state == "done":
            return False
        if results:
            _apply(session, results, now, counter)
        _renew_play(session, prep.league_id)
        if settings is None:
            return True
        left = _pending(session, prep.round_id)
        if not left:
            _finish_round(session, settings, league, rnd, now, prep.cast, prep.games)
            return True
    raise BadState(f"round {prep.number} still has {left} pending battles", "round-incomplete")


def _pending(session: Session, round_id: int) -> int:
    """The number of pending battles of round ``round_id``."""
    return session.scalar(select(func.count()).select_from(Battle).where(
        Battle.round_id == round_id, Battle.state == "pending")) or 0


def _close_round(factory: sessionmaker[Session], settings: Any, prep: _Prepared,
                 now: dt.datetime) -> bool:
    """Finish a round whose battles are all stored (:func:`_finish_round`) in one transaction:
    :func:`_store_chunk` with no battles. Returns False when it was done already. Raises
    :class:`BadState` if battles are pending."""
    return _store_chunk(factory, prep, [], now, [0], settings=settings)


def _finish_round(session: Session, settings: Any, league: League, rnd: Round,
                  now: dt.datetime, cast: _Cast, games: GamesCache | None = None) -> None:
    """Close a round whose battles are all done: mark it done, rate it (one rating period,
    ``app.league.ratings``), store the next round as the format pairs it after these results
    (a round stored already, e.g. the whole Berger table of a league from before formats, is
    simply next) or finish the league, then queue the standings, with the next pairings, to
    every seated active player (``games``: the league's games cache of this run). All in the
    caller's transaction."""
    from app.league.formats import advance
    from app.league.lifecycle import next_scheduled_at
    from app.league.ratings import rate_round

    rnd.state = "done"
    rnd.done_at = now
    session.flush()
    rate_round(session, league, rnd)
    nxt = session.scalar(select(Round).where(Round.league_id == league.id,
                                             Round.state != "done", Round.id != rnd.id)
                         .order_by(Round.number).limit(1))
    if nxt is None:
        answer = advance(session, league, scheduled_at=next_scheduled_at(league, rnd, now),
                         now=now)
        nxt = None if isinstance(answer, str) else answer
    if nxt is None:
        league.state = "finished"
        league.next_round_at = None
    else:
        league.next_round_at = nxt.scheduled_at
    session.flush()
    queue_standings(session, settings, league, rnd.number, now=now, cast=cast, games=games)


def run_round(factory: sessionmaker[Session], settings: Any, league_name: str, *,
              all_rounds: bool = False, round_number: int | None = None,
              now: dt.datetime, stop: Any = None) -> list[int]:
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
    played = [number for _, _, number in _play_rounds(factory, settings, todo, now, stop)]
    # the format pairs each round after the one before: keep asking while rounds appear
    while all_rounds and round_number is None and played and not (stop is not None and stop.is_set()):
        with transaction(factory) as session:
            league = get_league(session, league_name)
            more = [(league.id, league.name, r.id, r.number) for r in session.scalars(
                select(Round).where(Round.league_id == league.id, Round.state != "done")
                .order_by(Round.number))]
        if not more:
            break
        got = [number for _, _, number in _play_rounds(factory, settings, more, now, stop)]
        if not got:
            break
        played += got
    return played


#: seconds a worker's play lease on a league lasts; renewed with every stored chunk
PLAY_LEASE_S = 600.0


def claim_play(factory: sessionmaker[Session], league_id: int) -> bool:
    """Take the play lease of a league (``leagues.play_owner``/``play_until``) for this process,
    by a conditional update on the owner seen, so one worker at a time plays a league's rounds
    (issue 9.4). Returns False when a live worker holds it (``app.db.leases.lease_over``)."""
    from app.db.leases import lease_over, owner_id

    me, now = owner_id(), dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as session:
        row = session.execute(select(League.play_owner, League.play_until)
                              .where(League.id == league_id)).one_or_none()
        if row is None:
            return False
        owner, until = row
        if owner != me and not lease_over(owner, until, now):
            return False
        cond = League.play_owner.is_(None) if owner is None else League.play_owner == owner
        result = session.execute(
            update(League).where(League.id == league_id, cond)
            .values(play_owner=me, play_until=now + dt.timedelta(seconds=PLAY_LEASE_S)))
        return bool(getattr(result, "rowcount", 0))


def release_play(factory: sessionmaker[Session], league_id: int) -> None:
    """Give back this process's play lease of a league (a no-op when it is not ours)."""
    from app.db.leases import owner_id

    with transaction(factory) as session:
        session.execute(update(League).where(League.id == league_id,
                                             League.play_owner == owner_id())
                        .values(play_owner=None, play_until=None))


def _renew_play(session: Session, league_id: int) -> None:
    from app.db.leases import owner_id

    session.execute(update(League).where(League.id == league_id, League.play_owner == owner_id())
                    .values(play_until=dt.datetime.now(dt.timezone.utc)
                            + dt.timedelta(seconds=PLAY_LEASE_S))
                    .execution_options(synchronize_session=False))


#: how much lower the CPU priority of round workers is than the parent's (``os.nice``)
WORKER_NICENESS = 10


def _pool_init() -> None:
    """Worker processes of a round die with their parent (Linux ``PR_SET_PDEATHSIG``): an
    orphaned worker of a killed ``serve`` ends silently instead of printing BrokenPipe
    tracebacks (issue 9.7); SIGINT is left to the parent. Workers run at a lower CPU priority
    (``nice`` +:data:`WORKER_NICENESS`): the parent, which stores and closes the rounds in
    order, and the database server are the critical path; the workers compute ahead of them
    and fill the CPU time they leave."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:
        pass
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _play_rounds(factory: sessionmaker[Session], settings: Any,
                 todo: list[tuple[int, str, int, int]],
                 now: dt.datetime, stop: Any = None) -> list[tuple[int, str, int]]:
    """Play rounds ``(league id, league name, round id, round number)`` in order; returns those
    actually played as ``(league id, league name, round number)``.

    Battles are fought in chunks (:func:`_chunk_size`), each stored with its reports in one
    transaction; a round is closed (standings queued, marked done) in the transaction of its
    last chunk, so before any battle of a later round is stored (a round with nothing left to
    fight, e.g. only byes and void boards, or every battle stored by another runner, is closed
    in a transaction of its own). With many pending battles
    (:func:`_workers`) the chunks are fought by worker processes while this process stores
    earlier chunks and closes earlier rounds. ``stop`` (a ``threading.Event``): once set, no
    further chunk is stored; the round stays unfinished (its stored battles kept) and the next
    run resumes it with the battles left."""
    if not todo:
        return []
    with transaction(factory) as session:
        pending = session.scalar(select(func.count()).select_from(Battle).where(
            Battle.round_id.in_([rid for _, _, rid, _ in todo]), Battle.state == "pending")) or 0
    workers = _workers(pending)
    casts: dict[int, _Cast] = {}
    size = _chunk_size(pending, workers)
    counter = [0]
    played: list[tuple[int, str, int]] = []
    pool = None
    if workers > 0 and pending:  # started first: the workers start up while rounds are prepared
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_pool_init)
    try:
        preps: list[_Prepared] = []
        for lid, group in itertools.groupby(todo, key=lambda t: t[0]):
            preps += _prepare_rounds(factory, settings, lid, [rid for _, _, rid, _ in group],
                                     size, casts)
        caches: dict[int, GamesCache] = {}
        for prep in preps:
            prep.games = caches.setdefault(prep.league_id, GamesCache())
        if pool is not None:
            blobs: dict[int, bytes] = {}
            for prep in preps:  # once per cast (every round of a league shares one)
                if id(prep.cast) not in blobs:
                    blobs[id(prep.cast)] = pickle.dumps(prep.cast)
            results: Iterator[list[tuple[int, dict[str, Any], list[dict[str, Any]]]]] = \
                pool.imap(_worker_fight, [(id(prep.cast), blobs[id(prep.cast)], prep.number,
                                           chunk, now) for prep in preps for chunk in prep.chunks])
        else:
            results = (_fight(prep.cast, prep.number, chunk, now)
                       for prep in preps for chunk in prep.chunks)
        for prep in preps:
            alive = True
            closed = False
            for i in range(len(prep.chunks)):
                if stop is not None and stop.is_set():
                    return played
                chunk_results = next(results)
                if not alive:
                    continue
                if i < len(prep.chunks) - 1:
                    alive = _store_chunk(factory, prep, chunk_results, now, counter)
                else:  # the last chunk closes the round in its transaction
                    alive = closed = _store_chunk(factory, prep, chunk_results, now, counter,
                                                  settings=settings)
            if not prep.chunks:  # stored already (a resumed round): close it on its own
                if stop is not None and stop.is_set():
                    return played
                closed = _close_round(factory, settings, prep, now)
            if closed:
                played.append((prep.league_id, prep.league_name, prep.number))
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return played

