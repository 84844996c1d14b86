"""Organizer fixes: disqualifying a player, and resending a round's reports and standings (logs
recomputed; a changed engine version is noted and never changes the recorded result).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import (
    Battle,
    League,
    OutboxMessage,
    Player,
    Round,
)
from app.db.session import transaction
from app.league.battles import side_hp
from app.league.cast import Board, load_cast, lock_league
from app.league.entries import _entry, get_league, normalize_address
from app.league.errors import BadState, NotEntered
from app.league.formats import league_rules, leave
from app.league.notify import Notices
from app.league.orders import fight_board
from app.league.play import digest_round

_log = logging.getLogger("amaryllis.league")


def disqualify(session: Session, league: League, address: str, *, now: dt.datetime) -> None:
    """Disqualify the player at ``address``: the entry is marked ``disqualified``, its pending
    battles and those stopped at a checkpoint are voided (never finished) and its games leave the standings. Idempotent. Raises
    :class:`NotEntered` when the player has no entry in ``league``."""
    addr = normalize_address(address)
    player = session.scalar(select(Player).where(Player.address == addr))
    entry = _entry(session, league, player) if player is not None else None
    if entry is None:
        raise NotEntered(f"{addr} has no entry in {league.name!r}")
    if entry.status == "disqualified":
        return
    entry.status = "disqualified"
    leave(league, entry)  # a kept format state (the hill) stops counting it at once
    round_ids = select(Round.id).where(Round.league_id == league.id)
    session.execute(
        update(Battle)
        .where(
            Battle.round_id.in_(round_ids),
            Battle.state.in_(("pending", "paused")),
            (Battle.entry_a_id == entry.id) | (Battle.entry_b_id == entry.id),
        )
        .values(state="void", reason="disqualified", fought_at=now, stop_turn=None, stop_until=None)
    )


def _same_result(battle: Battle, outcome: Any) -> bool:
    return (
        battle.winner == outcome.winner
        and battle.reason == outcome.termination
        and battle.turns == outcome.turns
        and battle.hp_a == side_hp(outcome, 0)
        and battle.hp_b == side_hp(outcome, 1)
    )


def engine_note(battle: Battle, outcome: Any, lang: str, current: str) -> tuple[str, bool]:
    """Compare a recomputed result's ``outcome`` (``Ruleset.outcome``) with the recorded
    ``battle``. Returns ``(note, show_log)``:
    no note when the engine version is the one recorded; when it changed, a note saying so and
    whether the current engine reproduces the recorded result. When it does not, the log is not
    shown (it would contradict the recorded result, which stands)."""
    from app.reports.league_battle import engine_note as note

    recorded = battle.engine_version or "?"
    if recorded == current:
        return "", True
    same = _same_result(battle, outcome)
    return note(recorded, current, same, lang), same


def resend(
    factory: sessionmaker[Session],
    mail: Notices,
    league_name: str,
    round_number: int,
    *,
    now: dt.datetime | None = None,
    request_key: str | None = None,
) -> int:
    """Queue the battle reports of round ``round_number`` (a round mailed as digests:
    its digests, ``app.league.play.digest_round``) and its standings again, to every
    player (new dedupe keys ending ``:resend<k>``, k = 1, 2, …), through ``mail`` (the mail
    layer's :class:`~app.league.notify.Notices`). The logs are recomputed; a
    changed engine version is noted and never changes the recorded result
    (:func:`engine_note`). Games of disqualified entries are skipped. Returns the number of mails
    queued. With ``request_key`` (an organizer request, ``app.mail.requests``) the keys end
    ``:resend-<request_key>`` instead, so the request re-run after a crash queues nothing twice.
    Raises :class:`NoSuchLeague`, or :class:`BadState` when the round does not exist or
    is not played yet."""
    from app.db.models import utcnow

    now = now or utcnow()
    with transaction(factory) as session:
        league = lock_league(session, get_league(session, league_name).id)
        rules = league_rules(league)
        current = str(rules.engine_version)
        rnd = session.scalar(
            select(Round).where(Round.league_id == league.id, Round.number == round_number)
        )
        if rnd is None:
            raise BadState(f"league {league.name!r} has no round {round_number}", "no-round")
        if rnd.state != "done":
            raise BadState(
                f"round {round_number} of {league.name!r} is not played yet", "round-not-played"
            )
        suffix = (
            f":resend-{request_key}"
            if request_key
            else f":resend{_next_resend(session, league, rnd)}"
        )
        cast = load_cast(session, league)
        queued = 0
        seated: frozenset[int] = frozenset()
        if digest_round(session, cast.fmt, rnd.id):  # one digest a player again, logs fresh
            seated = mail.queue_digests(session, league, rnd, now=now, cast=cast, key_suffix=suffix)
        for b in (
            ()
            if seated
            else session.scalars(
                select(Battle)
                .where(Battle.round_id == rnd.id, Battle.state == "done")
                .order_by(Battle.board)
            )
        ):
            if b.entry_b_id is None or not b.sheet_a_id or not b.sheet_b_id:
                continue
            if (
                cast.entries[b.entry_a_id].status == "disqualified"
                or cast.entries[b.entry_b_id].status == "disqualified"
            ):
                continue
            result = fight_board(rules, cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id), b.inputs)
            outcome = rules.outcome(result)
            notes = {lg: engine_note(b, outcome, lg, current) for lg in ("ja", "en")}
            queued += mail.queue_rows(
                session,
                mail.report_rows(
                    cast, rnd.number, Board.of(b), result, now, key_suffix=suffix, notes=notes
                ),
            )
        queued += mail.queue_standings(
            session,
            league,
            round_number,
            now=now,
            cast=cast,
            key_suffix=suffix,
            skip_entries=seated,
        )
        if seated:
            queued += (
                session.scalar(
                    select(func.count())
                    .select_from(OutboxMessage)
                    .where(
                        OutboxMessage.dedupe_key.like(f"digest:{league.id}:{rnd.number}:%{suffix}")
                    )
                )
                or 0
            )
        return queued


def _next_resend(session: Session, league: League, rnd: Round) -> int:
    """The next free resend number of a round (1, 2, …), from the keys queued so far."""
    keys = list(
        session.scalars(
            select(OutboxMessage.dedupe_key).where(
                OutboxMessage.dedupe_key.like(f"standings:{league.id}:{rnd.number}:%:resend%")
                | OutboxMessage.dedupe_key.like(f"digest:{league.id}:{rnd.number}:%:resend%")
            )
        )
    )
    battle_ids = [
        str(i)
        for i in session.scalars(
            select(Battle.id)
            .where(Battle.round_id == rnd.id, Battle.entry_b_id.is_not(None))
            .limit(1)
        )
    ]
    if battle_ids:
        keys += session.scalars(
            select(OutboxMessage.dedupe_key).where(
                OutboxMessage.dedupe_key.like(f"report:{battle_ids[0]}:%:resend%")
            )
        )
    used = [int(k.rsplit(":resend", 1)[1]) for k in keys if k.rsplit(":resend", 1)[1].isdigit()]
    return max(used, default=0) + 1
