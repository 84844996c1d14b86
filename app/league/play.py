"""Playing rounds.

Crash safety: a round is played in batches; each batch fights its pending battles, stores the
results and queues both battle reports (outbox, dedupe keys ``report:<battle id>:<side>``) in one
transaction. A killed process leaves whole batches done and the rest pending; running the round
again fights only what is pending, and the round's closing step (standings mails, dedupe keys
``standings:<league id>:<round>:<player id>``), done in the transaction of the round's last
batch, runs once. A round mailed as digests (:func:`digest_round`: an all-play-all format's
rounds, or any round where a player fights more than a few battles) queues no report a battle:
its closing step queues one digest a player (dedupe keys ``digest:<league id>:<round>:<entry
id>``) with the standings. Every batch first writes the league row,
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
from app.league.battles import battle_values
from app.league.cast import BOARD_COLUMNS, CHECKPOINT_WAIT_S, Board, Cast, load_cast, lock_league
from app.league.entries import get_league
from app.league.errors import BadState
from app.league.formats import HistoryCache, is_digest_round, round_fights
from app.league.notify import Notices, RewriteNotice

_log = logging.getLogger("amaryllis.league")


#: battles per transaction in :func:`run_round` (``AMARYLLIS_LEAGUE_BATCH`` overrides it)
BATCH = 100


#: test hook: SIGKILL the process after this many battles fought (``docs/league.md``)
KILL_ENV = "AMARYLLIS_LEAGUE_KILL_AFTER_BATTLES"


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


def report_record(rs: Any, lang: str) -> tuple[str, ...]:
    """The ruleset record a report header prints (``Ruleset.describe``): always where the
    ruleset asks for it (``report_record``), else only with non-default options."""
    return tuple(rs.describe(lang)) if rs.options or rs.report_record else ()


def final_lines(outcome: Any, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Each side's final fighters in words, present ones front first then exited ones
    (``Outcome.final``): ``name HP 7/15`` (``exited`` marked)."""
    from app.reports.i18n import gettext

    _ = gettext(lang)
    exited = _(" (exited)")
    out = []
    for side in outcome.final:
        lines = []
        for f in side:
            mark = exited if f.exited else ""
            mp = f" MP {f.mp}" if f.mp else ""
            lines.append(f"{f.name} HP {f.hp}/{f.max_hp}{mp}{mark}")
        out.append(tuple(lines))
    return out[0], out[1]


def decision_text(cast: Cast, round_number: int, b: Board, lang: str) -> str:
    """A drawn battle of a format that decides draws (``Format.decides_draws``: a knockout):
    who goes through and by which stated rule (``Format.decide``, ``Format.draw_rule``), in
    ``lang``; ``""`` otherwise."""
    from app.formats import Game, Pairing, Result

    fmt = cast.fmt
    if fmt is None or not fmt.decides_draws or b.winner is not None or b.reason is None:
        return ""
    margin = b.margin if b.margin is not None else int(b.hp_a or 0) - int(b.hp_b or 0)
    d = fmt.decide(
        round_number, Game(Pairing(b.board, b.entry_a_id, b.entry_b_id), Result(None, int(margin)))
    )
    if d is None:
        return ""
    unit = cast.unit(b.sheet_a_id if d.winner == b.entry_a_id else b.sheet_b_id)
    return (
        fmt.decision_text(d, lang).format(winner=cast.rules.label(unit), loser="")
        + ("。" if lang == "ja" else ". ")
        + fmt.draw_rule(lang)
    )


def digest_round(session: Session, fmt: Any, round_id: int) -> bool:
    """Whether round ``round_id`` is mailed as digests (``Notices.queue_digests``: one mail
    per player when the round closes) instead of a report a battle
    (:func:`app.league.formats.is_digest_round` of the round's stored pairings, so a resumed
    round decides the same)."""
    return is_digest_round(fmt, round_fights(session, round_id))


def _fight(
    cast: Cast,
    mail: Notices | None,
    round_number: int,
    pending: list[Board],
    now: dt.datetime,
    digest: bool = False,
) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """Fight ``pending`` battles: for each, ``(battle id, column values, mail rows)`` (the
    rows of ``mail.report_rows`` — none in a ``digest`` round, whose digests are queued when
    it closes — or of ``mail.checkpoint_rows`` for a battle of a ruleset with
    orders that stopped at a checkpoint; none without ``mail``). Every values dict has the same
    keys (one bulk update per chunk). Pure computation (no database), so it runs in this
    process or in a worker."""
    from app.league.orders import fight_board, next_stop, paused_values

    rules = cast.rules
    version = str(rules.engine_version)
    orders = rules.takes_orders
    out = []
    for p in pending:
        ua, ub = cast.unit(p.sheet_a_id), cast.unit(p.sheet_b_id)
        stop = next_stop(rules, cast.fmt, p.stop_turn) if orders else None
        result = fight_board(rules, ua, ub, p.inputs, stop_after=stop)
        turn = rules.checkpoint(result) if stop is not None else None
        if turn is not None:
            until = now + dt.timedelta(seconds=cast.checkpoint_wait_s or CHECKPOINT_WAIT_S)
            values = paused_values(rules, p.inputs, turn, until, version)
            paused = dataclasses.replace(p, inputs=values["inputs"], stop_turn=turn)
            rows = (
                mail.checkpoint_rows(cast, round_number, paused, result, until, now) if mail else []
            )
            out.append((p.id, values, rows))
            continue
        values = battle_values(rules, result, version)
        fought = dataclasses.replace(
            p,
            winner=values["winner"],
            reason=values["reason"],
            turns=values["turns"],
            hp_a=values["hp_a"],
            hp_b=values["hp_b"],
            margin=values["margin"],
            engine_version=version,
        )
        values.update(state="done", inputs=p.inputs, stop_turn=None, stop_until=None)
        rows = (
            mail.report_rows(cast, round_number, fought, result, now) if mail and not digest else []
        )
        out.append((p.id, values, rows))
    return out


#: a worker process's casts of this run, by the key the parent gave (``id`` of its cast)
_WORKER_CASTS: dict[int, Cast] = {}


def _worker_fight(
    args: tuple[int, bytes, Notices | None, int, list[Board], dt.datetime, bool],
) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """:func:`_fight` in a worker process. The cast (units parsed, ≈ 70 KB pickled at 100
    entries) travels pickled once by the parent as ``bytes`` with every task of its league and
    is unpickled once per worker (kept by its key), not once per task."""
    key, blob, mail, number, chunk, now, digest = args
    cast = _WORKER_CASTS.get(key)
    if cast is None:
        cast = _WORKER_CASTS[key] = pickle.loads(blob)
    return _fight(cast, mail, number, chunk, now, digest)


def _workers(pending: int) -> int:
    """Worker processes for a run with ``pending`` battles: ``AMARYLLIS_LEAGUE_WORKERS`` if set
    (0: none), else one per CPU (at most 8) from 500 battles up (below that, starting them
    costs more than they save)."""
    if "AMARYLLIS_LEAGUE_WORKERS" in os.environ:
        return _env_int("AMARYLLIS_LEAGUE_WORKERS", 0, 0)
    return min(8, os.cpu_count() or 1) if pending >= 500 else 0


def _apply(
    session: Session,
    mail: Notices | None,
    results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
    now: dt.datetime,
    counter: list[int],
    expected: dict[int, tuple[str, int | None]] | None = None,
) -> None:
    """Store fought battles and queue their mails (``mail.queue_rows``), in the caller's
    transaction. A battle is stored only when it is still as it was loaded (``expected``:
    battle id → ``(state, stop_turn)``; default: ``pending``): one another runner fought
    meanwhile is skipped, and so are mail keys already queued."""
    ids = [bid for bid, _, _ in results]
    seen = {
        bid: (state, stop)
        for bid, state, stop in session.execute(
            select(Battle.id, Battle.state, Battle.stop_turn).where(Battle.id.in_(ids))
        )
    }
    fresh = [r for r in results if seen.get(r[0]) == (expected or {}).get(r[0], ("pending", None))]
    updates: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for bid, values, rows in fresh:
        updates.append(dict(values, id=bid, fought_at=now, claim_owner=None, claim_until=None))
        out += rows
        _kill_hook(counter)
    bulk_update(session, Battle, updates)  # one statement on PostgreSQL (same columns each)
    if mail is not None and out:
        mail.queue_rows(session, out)


@dataclass
class _Prepared:
    """A round about to be played: its cast and its pending battles in chunks."""

    league_id: int
    league_name: str
    round_id: int
    number: int
    cast: Cast
    chunks: list[list[Board]]
    #: the league's done rounds, shared by the rounds of this run (standings, next pairings)
    history: HistoryCache | None = None
    #: battle id → ``(state, stop_turn)`` as loaded (a stored result must find it unchanged)
    expected: dict[int, tuple[str, int | None]] = dataclasses.field(default_factory=dict)
    #: the round is mailed as digests (:func:`digest_round`)
    digest: bool = False
    #: played in claimed chunks, shared with other ``serve`` processes (:func:`_play_shared`)
    shared: bool = False


def _chunk_size(pending: int, workers: int) -> int:
    """Battles per chunk for a run of ``pending`` battles: :func:`_batch_size`, or fewer when
    ``workers`` processes fight them, so that the run (every prepared round's chunks are fought
    in one pipeline) makes about two chunks per worker."""
    size = _batch_size()
    if workers:
        size = max(1, min(size, -(-pending // (2 * workers))))
    return size


def _prepare_rounds(
    factory: sessionmaker[Session],
    league_id: int,
    round_ids: list[int],
    size: int,
    casts: dict[int, Cast] | None = None,
    *,
    now: dt.datetime | None = None,
    force: bool = False,
) -> list[_Prepared]:
    """Load the battles to fight of rounds ``round_ids`` of league ``league_id`` (in that
    order) in chunks of ``size`` (:func:`_chunk_size`), in one transaction (one lock, one
    query for every round's battles: a 99-round Berger table is prepared before the first
    battle is handed to a worker), and mark the league running. Rounds done already are left
    out. Every sheet is parsed here, so a bad sheet fails before any work. ``casts`` keeps one
    cast per league across the rounds of a run (sheets are parsed once).

    The battles to fight are the pending ones and, for a ruleset with orders, the paused ones
    that go on (``app.league.orders.resumable`` at ``now``; every paused one with ``force``:
    the organizer plays the round now). A pending battle of such a ruleset gets its inputs
    here, once (``app.league.orders.board_inputs`` of both entries' standing orders and the
    league's seed); they are stored with its first result."""
    from app.league.orders import _Row, board_inputs, resumable, standing_orders

    with transaction(factory) as session:
        league = lock_league(session, league_id)
        stored = {
            r.id: r
            for r in session.scalars(
                select(Round)
                .where(Round.id.in_(round_ids))
                .execution_options(populate_existing=True)
            )
        }
        todo = [stored[rid] for rid in round_ids if rid in stored and stored[rid].state != "done"]
        if not todo:
            return []
        if league.state == "closed":
            league.state = "running"
        cast = (casts or {}).get(league_id) or load_cast(session, league)
        if cast.fmt is not None and cast.fmt.replaces_between_rounds:
            for rnd in todo:
                _refresh_sheets(session, rnd.id)
            cast = load_cast(session, league)  # replacements since the last round
        if casts is not None:
            casts[league_id] = cast
        rules = cast.rules
        states = ("pending", "paused") if rules.takes_orders else ("pending",)
        at = now or dt.datetime.now(dt.timezone.utc)
        pending: dict[int, list[Board]] = {rnd.id: [] for rnd in todo}
        expected: dict[int, tuple[str, int | None]] = {}
        for round_id, state, until, *row in session.execute(
            select(Battle.round_id, Battle.state, Battle.stop_until, *BOARD_COLUMNS)
            .where(Battle.round_id.in_(list(pending)), Battle.state.in_(states))
            .order_by(Battle.round_id, Battle.board)
        ).all():
            board = Board(*row)
            if state == "paused" and not force and not resumable(_Row(board.inputs, until), at):
                continue
            expected[board.id] = (state, board.stop_turn)
            pending[round_id].append(board)
        assert all(
            b.entry_b_id is not None and b.sheet_a_id and b.sheet_b_id
            for battles in pending.values()
            for b in battles
        )
        if rules.takes_orders:
            fresh = [b for battles in pending.values() for b in battles if b.inputs is None]
            texts = standing_orders(
                session, {e for b in fresh for e in (b.entry_a_id, b.entry_b_id)}
            )
            for rid, battles in pending.items():
                pending[rid] = [
                    dataclasses.replace(
                        b,
                        inputs=board_inputs(
                            rules,
                            cast.seed,
                            texts.get(b.entry_a_id),
                            texts.get(b.entry_b_id),
                            cast.label(b.sheet_a_id),
                            cast.label(b.sheet_b_id),
                        ).to_json(),
                    )
                    if b.inputs is None
                    else b
                    for b in battles
                ]
        share = sharing(factory) and not rules.takes_orders
        big = _env_int("AMARYLLIS_LEAGUE_SHARE_MIN", SHARE_MIN, 1)
        shared = {rnd.id for rnd in todo if share and len(pending[rnd.id]) >= big}
        for rnd in todo:  # prepared (sheets refreshed): from now on any serve may claim them
            if rnd.id in shared:
                rnd.shared = True
        numbers = [(rnd.id, rnd.number) for rnd in todo]
        digests = {rnd.id: digest_round(session, cast.fmt, rnd.id) for rnd in todo}
        name = league.name
    for sid in sorted(
        {s for battles in pending.values() for b in battles for s in (b.sheet_a_id, b.sheet_b_id)}
    ):
        cast.unit(sid)
    return [
        _Prepared(
            league_id,
            name,
            rid,
            number,
            cast,
            # a shared round's battles are claimed from the database a chunk at a time: its
            # boards are not kept (a 1,000-entry update would hold 499,500 of them throughout)
            []
            if rid in shared
            else [pending[rid][i : i + size] for i in range(0, len(pending[rid]), size)],
            expected={} if rid in shared else {b.id: expected[b.id] for b in pending[rid]},
            digest=digests[rid],
            shared=rid in shared,
        )
        for rid, number in numbers
    ]


def _refresh_sheets(
    session: Session,
    round_id: int | None = None,
    *,
    league_id: int | None = None,
    entries: set[int] | None = None,
) -> None:
    """Pending battles fight the units as they are when they are played: those of round
    ``round_id`` (a format that ``replaces_between_rounds``: a replacement since the round was
    paired counts), or those of league ``league_id`` with one of ``entries`` (entries just
    rewritten), take each side's active sheet now."""
    from app.db.models import SheetVersion

    b = Battle
    q = select(b.id, b.entry_a_id, b.entry_b_id, b.sheet_a_id, b.sheet_b_id).where(
        b.state == "pending"
    )
    if round_id is not None:
        q = q.where(b.round_id == round_id)
    if league_id is not None:
        q = q.where(b.round_id.in_(select(Round.id).where(Round.league_id == league_id)))
    if entries is not None:
        q = q.where(b.entry_a_id.in_(entries) | b.entry_b_id.in_(entries))
    rows = session.execute(q).all()  # columns, not objects: a big round has 499,500 of them
    eids = {e for r in rows for e in (r.entry_a_id, r.entry_b_id) if e is not None}
    if not eids:
        return
    active = {
        eid: sid
        for eid, sid in session.execute(
            select(SheetVersion.entry_id, SheetVersion.id).where(
                SheetVersion.entry_id.in_(eids), SheetVersion.active
            )
        )
    }
    changed = []
    for r in rows:
        a = active.get(r.entry_a_id, r.sheet_a_id)
        bb = r.sheet_b_id if r.entry_b_id is None else active.get(r.entry_b_id, r.sheet_b_id)
        if (a, bb) != (r.sheet_a_id, r.sheet_b_id):
            changed.append({"id": r.id, "sheet_a_id": a, "sheet_b_id": bb})
    if changed:  # ORM bulk UPDATE by primary key; loaded objects are refreshed from the rows
        session.execute(update(Battle), changed)
        for obj in [o for o in session.identity_map.values() if isinstance(o, Battle)]:
            session.expire(obj, ["sheet_a_id", "sheet_b_id"])
    session.flush()


def _store_chunk(
    factory: sessionmaker[Session],
    mail: Notices | None,
    prep: _Prepared,
    results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
    now: dt.datetime,
    counter: list[int],
    *,
    last: bool = False,
) -> bool:
    """Store one chunk of fought battles with their reports in one transaction. Returns False
    when the round was finished meanwhile (by another runner), or, for the ``last`` chunk, when
    battles of the round wait at a checkpoint (the round stays open: a later run goes on).

    The round's ``last`` chunk also finishes the round (:func:`_finish_round`) in that same
    transaction when no battle is left; then raises :class:`BadState`, after committing the
    chunk, if battles of the round are still pending."""
    with transaction(factory) as session:
        league = lock_league(session, prep.league_id)
        rnd = session.get(Round, prep.round_id, populate_existing=True)
        assert rnd is not None
        if rnd.state == "done":
            return False
        if results:
            _apply(session, mail, results, now, counter, prep.expected)
        _renew_play(session, prep.league_id)
        if not last:
            return True
        left, paused = _pending(session, prep.round_id)
        if not left and not paused:
            _finish_round(session, mail, league, rnd, now, prep.cast, prep.history)
            return True
        if not left:
            return False
    raise BadState(f"round {prep.number} still has {left} pending battles", "round-incomplete")


#: pending battles from which a round is shared (``AMARYLLIS_LEAGUE_SHARE_MIN`` overrides
#: it): a smaller one is played by the lease holder alone, its chunks pipelined across rounds
SHARE_MIN = 200

#: seconds a claim on a chunk of a shared round's battles lasts (``AMARYLLIS_LEAGUE_CLAIM_S``)
CLAIM_S = 600

#: ``AMARYLLIS_LEAGUE_SHARED=0`` turns shared rounds off (one process plays a league's round)
SHARED_ENV = "AMARYLLIS_LEAGUE_SHARED"


def sharing(factory: sessionmaker[Session]) -> bool:
    """Whether rounds are shared between ``serve`` processes: on PostgreSQL (the only database
    several of them share, ``docs/deploy.md``) unless ``AMARYLLIS_LEAGUE_SHARED=0``. On SQLite
    one process plays a round as before."""
    bind = factory.kw.get("bind")
    return (
        getattr(getattr(bind, "dialect", None), "name", "") == "postgresql"
        and os.environ.get(SHARED_ENV, "1") != "0"
    )


def _claim(
    factory: sessionmaker[Session], round_id: int, size: int
) -> tuple[list[Board], int, bool]:
    """Claim up to ``size`` pending battles of round ``round_id`` for this process, in board
    order: those nobody claimed and those whose claim may be taken over (an expired claim, or
    one of a dead process of this host: ``app.db.leases.lease_over``), picked with
    ``FOR UPDATE SKIP LOCKED`` and marked ``claim_owner``/``claim_until``
    (:data:`CLAIM_S`) in one transaction. Claims that ended are looked at only once no
    unclaimed battle is left (each look reads every pending battle of the round). Returns
    ``(boards claimed, pending battles of the round before the claim, round done)``: the count
    only when nothing unclaimed was left, else at least the boards claimed (the caller asks
    only whether it is 0)."""
    from app.db.leases import lease_over, owner_id

    me, at = owner_id(), dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as session:
        state = session.scalar(select(Round.state).where(Round.id == round_id))
        if state is None or state == "done":
            return [], 0, True
        pending = (Battle.round_id == round_id) & (Battle.state == "pending")

        def pick(cond: Any) -> list[Any]:
            # the index (round_id, state, board) walks the pending battles in board order
            return list(
                session.execute(
                    select(*BOARD_COLUMNS)
                    .where(pending, cond)
                    .order_by(Battle.board)
                    .limit(size)
                    .with_for_update(skip_locked=True)
                ).all()
            )

        rows = pick(Battle.claim_owner.is_(None))
        left = 0
        if not rows:  # the unclaimed are gone: take over claims that ended, count the rest
            owners = session.execute(
                select(Battle.claim_owner, func.max(Battle.claim_until))
                .where(pending, Battle.claim_owner.is_not(None))
                .group_by(Battle.claim_owner)
            ).all()
            free = [o for o, until in owners if o != me and lease_over(o, until, at)]
            if free:
                rows = pick(Battle.claim_owner.in_(free))
            left = session.scalar(select(func.count()).select_from(Battle).where(pending)) or 0
        if rows:
            until = at + dt.timedelta(seconds=_env_int("AMARYLLIS_LEAGUE_CLAIM_S", CLAIM_S, 1))
            session.execute(
                update(Battle)
                .where(Battle.id.in_([r[0] for r in rows]))
                .values(claim_owner=me, claim_until=until)
                .execution_options(synchronize_session=False)
            )
            left = max(left, len(rows))
    return [Board(*r) for r in rows], int(left), False


def _release_claims(factory: sessionmaker[Session], round_id: int) -> None:
    """Give back this process's claims on round ``round_id``'s battles not stored (a stopped
    or failed run), so another process takes them at once."""
    from app.db.leases import owner_id

    with transaction(factory) as session:
        session.execute(
            update(Battle)
            .where(
                Battle.round_id == round_id,
                Battle.state == "pending",
                Battle.claim_owner == owner_id(),
            )
            .values(claim_owner=None, claim_until=None)
            .execution_options(synchronize_session=False)
        )


def _store_shared(
    factory: sessionmaker[Session],
    mail: Notices | None,
    prep: _Prepared,
    results: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
    now: dt.datetime,
    counter: list[int],
) -> str:
    """Store a claimed chunk of a shared round with its reports (:func:`_apply`: a battle
    stored meanwhile by another process is skipped; the claims are cleared) in one transaction
    under the league lock, and close the round (:func:`_finish_round`) in it when no battle of
    it is left pending: whoever stores the last chunk closes it, once. Returns ``"closed"``
    (this transaction closed it), ``"done"`` (it was closed already) or ``"open"``."""
    with transaction(factory) as session:
        league = lock_league(session, prep.league_id)
        rnd = session.get(Round, prep.round_id, populate_existing=True)
        assert rnd is not None
        if rnd.state == "done":
            return "done"
        if results:
            _apply(session, mail, results, now, counter)
        _renew_play(session, prep.league_id)  # the lease holder's play lease (else a no-op)
        if _unfinished(session, prep.round_id):
            return "open"
        _finish_round(session, mail, league, rnd, now, prep.cast, prep.history)
        return "closed"


#: seconds between two looks at a shared round whose battles others are fighting
SHARED_POLL_S = 0.05


def _play_shared(
    factory: sessionmaker[Session],
    mail: Notices | None,
    prep: _Prepared,
    now: dt.datetime,
    stop: Any,
    counter: list[int],
    pool: Any = None,
    blob: bytes | None = None,
) -> str | None:
    """Play shared round ``prep`` with whichever other processes play it: claim a chunk
    (:func:`_claim`), fight it (:func:`_fight`, in ``pool`` with one chunk ahead per worker
    when given; ``blob``: the pickled cast), store it (:func:`_store_shared`), until no battle
    is left to claim; then wait (polling) while others fight the rest, and close the round if
    nobody did. Returns ``"closed"`` (this process closed it), ``"done"`` (another did) or
    ``None`` when ``stop`` was set first (unstored claims are given back)."""
    from collections import deque

    with transaction(factory) as session:
        pending = (
            session.scalar(
                select(func.count())
                .select_from(Battle)
                .where(Battle.round_id == prep.round_id, Battle.state == "pending")
            )
            or 0
        )
    # a set AMARYLLIS_LEAGUE_BATCH is the chunk; else about 12 chunks, 25 to 1,000 battles
    # each (a 1,000-entry update: 500 chunks of 1,000, not 4,995 of 100)
    batch = _batch_size()
    size = (
        batch
        if "AMARYLLIS_LEAGUE_BATCH" in os.environ
        else max(batch // 4, min(10 * batch, -(-pending // 12)))
    )
    depth = (getattr(pool, "_processes", 1) + 1) if pool is not None else 1
    inflight: deque[Any] = deque()
    try:
        while not (stop is not None and stop.is_set()):
            boards: list[Board] = []
            left, done = 0, False
            while len(inflight) < depth:
                boards, left, done = _claim(factory, prep.round_id, size)
                if not boards:
                    break
                if pool is not None:
                    inflight.append(
                        pool.apply_async(
                            _worker_fight,
                            ((id(prep.cast), blob, mail, prep.number, boards, now, prep.digest),),
                        )
                    )
                else:
                    inflight.append(_fight(prep.cast, mail, prep.number, boards, now, prep.digest))
            if inflight:
                got = inflight.popleft()
                results = got.get() if pool is not None else got
                outcome = _store_shared(factory, mail, prep, results, now, counter)
                if outcome != "open":
                    return outcome
                continue
            if done:
                return "done"
            if not left:  # every battle stored, nobody closed it (e.g. byes only): close it
                return _store_shared(factory, mail, prep, [], now, counter)
            if stop is not None:
                stop.wait(SHARED_POLL_S)
            else:
                import time

                time.sleep(SHARED_POLL_S)
        return None
    finally:
        _release_claims(factory, prep.round_id)


def help_rounds(
    factory: sessionmaker[Session],
    mail: Notices | None,
    league_id: int,
    *,
    now: dt.datetime,
    stop: Any = None,
) -> list[int]:
    """Help play league ``league_id``'s rounds that another process (the play lease holder)
    has opened to sharing (``rounds.shared``): claim and fight chunks of its first open round
    (:func:`_play_shared`) and go on with the next one while it is shared too. Returns the
    numbers of the rounds this process closed (it stored their last chunk). A no-op unless
    rounds are shared (:func:`sharing`)."""
    closed: list[int] = []
    if not sharing(factory):
        return closed
    counter = [0]
    while not (stop is not None and stop.is_set()):
        with transaction(factory) as session:
            rnd = session.scalar(
                select(Round)
                .where(Round.league_id == league_id, Round.state != "done")
                .order_by(Round.number)
                .limit(1)
            )
            if rnd is None or not rnd.shared:
                break
            league = session.get(League, league_id)
            assert league is not None
            cast = load_cast(session, league)
            prep = _Prepared(
                league_id,
                league.name,
                rnd.id,
                rnd.number,
                cast,
                [],
                shared=True,
                digest=digest_round(session, cast.fmt, rnd.id),
            )
        if cast.rules.takes_orders:
            break
        got = _play_shared(factory, mail, prep, now, stop, counter)
        if got is None:
            break
        if got == "closed":
            closed.append(prep.number)
    return closed


def _pending(session: Session, round_id: int) -> tuple[int, int]:
    """The numbers of pending and of paused (at a checkpoint) battles of round
    ``round_id``."""
    counts: dict[str, int] = {
        state: int(n)
        for state, n in session.execute(
            select(Battle.state, func.count())
            .where(Battle.round_id == round_id, Battle.state.in_(("pending", "paused")))
            .group_by(Battle.state)
        )
    }
    return int(counts.get("pending", 0)), int(counts.get("paused", 0))


def _unfinished(session: Session, round_id: int) -> bool:
    """Whether a battle of round ``round_id`` is pending or paused: one index probe
    (``ix_battles_round_state_board``), not a count of them."""
    return (
        session.scalar(
            select(Battle.id)
            .where(Battle.round_id == round_id, Battle.state.in_(("pending", "paused")))
            .limit(1)
        )
        is not None
    )


def _close_round(
    factory: sessionmaker[Session], mail: Notices | None, prep: _Prepared, now: dt.datetime
) -> bool:
    """Finish a round whose battles are all stored (:func:`_finish_round`) in one transaction:
    :func:`_store_chunk` with no battles. Returns False when it was done already. Raises
    :class:`BadState` if battles are pending."""
    return _store_chunk(factory, mail, prep, [], now, [0], last=True)


def apply_rewrites(
    session: Session, league: League, rnd: Round, cast: Cast | None = None
) -> tuple[RewriteNotice, ...]:
    """Apply the entry rewrites the battles of ``rnd`` ask for (``Ruleset.rewrite_request``,
    ``rules/margaret-hundred.md`` H58), when the league's format plays later battles
    (``Format.applies_rewrites``): in the published pairing order (board order), an entry's
    last request winning, each rewritten entry gets a new active sheet version that copies the
    registered sheet its opponent fought that battle with, and its pending battles take it.
    Returns what was applied, in board order (empty for a format that ignores rewrites)."""
    from app.db.models import SheetVersion
    from app.league.formats import format_of, league_rules
    from app.league.standings import entry_names
    from app.rules import Outcome

    if not format_of(league).applies_rewrites:
        return ()
    rules = cast.rules if cast is not None else league_rules(league)
    if not rules.requests_rewrites:  # no outcome to read (each one a JSON document)
        return ()
    chosen: dict[int, tuple[Battle, int]] = {}  # entry -> (battle, source sheet id)
    for b in session.scalars(
        select(Battle)
        .where(Battle.round_id == rnd.id, Battle.state == "done", Battle.entry_b_id.is_not(None))
        .order_by(Battle.board)
    ):
        if not b.outcome:
            continue
        request = rules.rewrite_request(Outcome.from_json(b.outcome))
        if request is None:
            continue
        side, source = request
        target = b.entry_a_id if side == 0 else b.entry_b_id
        sheet = b.sheet_a_id if source == 0 else b.sheet_b_id
        assert target is not None and sheet is not None
        chosen.pop(target, None)  # the last one wins, in board order
        chosen[target] = (b, sheet)
    if not chosen:
        return ()
    sheets = {
        sv.id: sv
        for sv in session.scalars(
            select(SheetVersion).where(
                SheetVersion.id.in_({sid for _, sid in chosen.values()})
                | (SheetVersion.entry_id.in_(chosen) & SheetVersion.active)
            )
        )
    }
    names = entry_names(session, set(chosen))
    notices = []
    for target, (b, sid) in sorted(chosen.items(), key=lambda kv: kv[1][0].board):
        src = sheets[sid]
        old = next((sv for sv in sheets.values() if sv.entry_id == target and sv.active), None)
        top = (
            session.scalar(
                select(func.max(SheetVersion.version)).where(SheetVersion.entry_id == target)
            )
            or 0
        )
        if old is not None:
            old.active = False
        session.add(
            SheetVersion(
                entry_id=target,
                version=top + 1,
                text=src.text,
                normalized=src.normalized,
                unit_name=src.unit_name,
                lang=src.lang,
                active=True,
                inbound_id=None,
                created_at=rnd.done_at,
            )
        )
        notices.append(
            RewriteNotice(
                rnd.number,
                b.board,
                target,
                names.get(target, "?"),
                old.unit_name if old is not None else "",
                src.entry_id,
                src.unit_name,
            )
        )
    session.flush()
    _refresh_sheets(session, league_id=league.id, entries=set(chosen))
    return tuple(notices)


def _finish_round(
    session: Session,
    mail: Notices | None,
    league: League,
    rnd: Round,
    now: dt.datetime,
    cast: Cast,
    history: HistoryCache | None = None,
) -> None:
    """Close a round whose battles are all done: mark it done, rate it (one rating period,
    ``app.league.ratings``), apply the entry rewrites its battles ask for
    (:func:`apply_rewrites`), store the next round as the format pairs it after these results
    (a round stored already, e.g. a round robin's whole table, is simply next) or finish the
    league, then queue the standings, with the next pairings, to every seated active player
    (``history``: the league's history cache of this run). All in the caller's transaction."""
    from app.league.formats import advance, next_scheduled_at
    from app.league.ratings import rate_round

    rnd.state = "done"
    rnd.done_at = now
    session.flush()
    rate_round(session, league, rnd)
    rewrites = apply_rewrites(session, league, rnd, cast)
    nxt = session.scalar(
        select(Round)
        .where(Round.league_id == league.id, Round.state != "done", Round.id != rnd.id)
        .order_by(Round.number)
        .limit(1)
    )
    if nxt is None:
        answer = advance(session, league, scheduled_at=next_scheduled_at(league, rnd, now), now=now)
        nxt = None if isinstance(answer, str) else answer
    if nxt is None:
        league.state = "finished"
        league.next_round_at = None
    else:
        league.next_round_at = nxt.scheduled_at
    session.flush()
    if mail is not None:
        seated: frozenset[int] = frozenset()
        if digest_round(session, cast.fmt, rnd.id):
            seated = mail.queue_digests(
                session,
                league,
                rnd,
                now=now,
                cast=load_cast(session, league) if rewrites else cast,
                history=history,
                rewrites=rewrites,
            )
        mail.queue_standings(
            session,
            league,
            rnd.number,
            now=now,
            cast=load_cast(session, league) if rewrites else cast,
            history=history,
            rewrites=rewrites,
            skip_entries=seated,
        )
        if nxt is not None and cast.rules.takes_orders:
            mail.queue_pairings(
                session, league, nxt, now=now, cast=load_cast(session, league) if rewrites else cast
            )


def run_round(
    factory: sessionmaker[Session],
    mail: Notices | None,
    league_name: str,
    *,
    all_rounds: bool = False,
    round_number: int | None = None,
    now: dt.datetime,
    stop: Any = None,
) -> list[int]:
    """Play the next round of ``league_name`` (all remaining rounds with ``all_rounds``; only
    round ``round_number`` when given), whatever their scheduled time; ``mail`` (the mail
    layer's :class:`~app.league.notify.Notices`) queues the reports and standings, ``None``
    none. Returns the numbers of the
    rounds that were played (``[]`` when there was nothing to do, e.g. round ``round_number`` is
    done already or the league is finished).

    Raises :class:`NoSuchLeague`, :class:`BadState` while entries are still open or for a round
    number that does not exist.
    """
    with transaction(factory) as session:
        league = get_league(session, league_name)
        if league.state == "open":
            raise BadState(
                f"entries to {league.name!r} are still open: close them first", "entries-open"
            )
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
    played = [number for _, _, number in _play_rounds(factory, mail, todo, now, stop, force=True)]
    # the format pairs each round after the one before: keep asking while rounds appear
    while (
        all_rounds and round_number is None and played and not (stop is not None and stop.is_set())
    ):
        with transaction(factory) as session:
            league = get_league(session, league_name)
            more = [
                (league.id, league.name, r.id, r.number)
                for r in session.scalars(
                    select(Round)
                    .where(Round.league_id == league.id, Round.state != "done")
                    .order_by(Round.number)
                )
            ]
        if not more:
            break
        got = [number for _, _, number in _play_rounds(factory, mail, more, now, stop, force=True)]
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
        row = session.execute(
            select(League.play_owner, League.play_until).where(League.id == league_id)
        ).one_or_none()
        if row is None:
            return False
        owner, until = row
        if owner != me and not lease_over(owner, until, now):
            return False
        cond = League.play_owner.is_(None) if owner is None else League.play_owner == owner
        result = session.execute(
            update(League)
            .where(League.id == league_id, cond)
            .values(play_owner=me, play_until=now + dt.timedelta(seconds=PLAY_LEASE_S))
        )
        return bool(getattr(result, "rowcount", 0))


def release_play(factory: sessionmaker[Session], league_id: int) -> None:
    """Give back this process's play lease of a league (a no-op when it is not ours)."""
    from app.db.leases import owner_id

    with transaction(factory) as session:
        session.execute(
            update(League)
            .where(League.id == league_id, League.play_owner == owner_id())
            .values(play_owner=None, play_until=None)
        )


def _renew_play(session: Session, league_id: int) -> None:
    from app.db.leases import owner_id

    session.execute(
        update(League)
        .where(League.id == league_id, League.play_owner == owner_id())
        .values(play_until=dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=PLAY_LEASE_S))
        .execution_options(synchronize_session=False)
    )


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


def _play_rounds(
    factory: sessionmaker[Session],
    mail: Notices | None,
    todo: list[tuple[int, str, int, int]],
    now: dt.datetime,
    stop: Any = None,
    *,
    force: bool = False,
) -> list[tuple[int, str, int]]:
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
    run resumes it with the battles left. A battle of a ruleset with orders may stop at a
    checkpoint (state ``paused``); its round stays open and is not returned, and a later run
    goes on with it when it is due (``force``: now, whatever its players said)."""
    if not todo:
        return []
    with transaction(factory) as session:
        pending = (
            session.scalar(
                select(func.count())
                .select_from(Battle)
                .where(
                    Battle.round_id.in_([rid for _, _, rid, _ in todo]), Battle.state == "pending"
                )
            )
            or 0
        )
    workers = _workers(pending)
    casts: dict[int, Cast] = {}
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
            preps += _prepare_rounds(
                factory, lid, [rid for _, _, rid, _ in group], size, casts, now=now, force=force
            )
        caches: dict[int, HistoryCache] = {}
        for prep in preps:
            prep.history = caches.setdefault(prep.league_id, HistoryCache())
        blobs: dict[int, bytes] = {}
        if pool is not None:
            for prep in preps:  # once per cast (every round of a league shares one)
                if id(prep.cast) not in blobs:
                    blobs[id(prep.cast)] = pickle.dumps(prep.cast)
            results: Iterator[list[tuple[int, dict[str, Any], list[dict[str, Any]]]]] = pool.imap(
                _worker_fight,
                [
                    (
                        id(prep.cast),
                        blobs[id(prep.cast)],
                        mail,
                        prep.number,
                        chunk,
                        now,
                        prep.digest,
                    )
                    for prep in preps
                    if not prep.shared
                    for chunk in prep.chunks
                ],
            )
        else:
            results = (
                _fight(prep.cast, mail, prep.number, chunk, now, prep.digest)
                for prep in preps
                if not prep.shared
                for chunk in prep.chunks
            )
        blocked: set[int] = set()  # leagues with a round left open (battles at a checkpoint)
        for prep in preps:
            if prep.shared:  # claimed chunk by chunk, with any other serve (PostgreSQL)
                if prep.league_id in blocked:
                    continue
                got = _play_shared(
                    factory,
                    mail,
                    prep,
                    now,
                    stop,
                    counter,
                    pool,
                    blobs.get(id(prep.cast)) if pool is not None else None,
                )
                if got is None:  # stopped
                    return played
                if got in ("closed", "done"):
                    played.append((prep.league_id, prep.league_name, prep.number))
                continue
            alive = prep.league_id not in blocked  # rounds close in order: a later one waits
            closed = False
            for i in range(len(prep.chunks)):
                if stop is not None and stop.is_set():
                    return played
                chunk_results = next(results)
                if not alive:
                    continue
                if i < len(prep.chunks) - 1:
                    alive = _store_chunk(factory, mail, prep, chunk_results, now, counter)
                else:  # the last chunk closes the round in its transaction
                    alive = closed = _store_chunk(
                        factory, mail, prep, chunk_results, now, counter, last=True
                    )
            if not prep.chunks and alive:  # stored already (a resumed round): close it alone
                if stop is not None and stop.is_set():
                    return played
                closed = _close_round(factory, mail, prep, now)
            if closed:
                played.append((prep.league_id, prep.league_name, prep.number))
            elif prep.cast.rules.takes_orders:  # battles at a checkpoint: the round is open
                blocked.add(prep.league_id)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return played
