"""Player ratings across leagues, stored, one rating per player and game: one rating period per
played round of any league (``app.formats.ratings``, OpenSkill), one
:class:`app.db.models.RatingChange` row per player who fought in it, marked with the league's
ruleset. A round of a Margaret Hundred league moves its players' Margaret Hundred ratings only
(issue 19.6): playing another game never changes a rating.

:func:`rate_round` is called in the transaction that marks a round done, so a round is rated
exactly once (``UniqueConstraint(player_id, round_id)``; a second call finds its rows and does
nothing). A player's current rating is the ``mu``/``sigma`` of their latest row, so rating a
round reads only the rows of its own players. Byes and unfought boards are not games; a game
against oneself (one player with two entries) is not rated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Player, RatingChange, Round
from app.db.session import bulk_insert
from app.formats.ratings import RatedGame, Rating, RatingPeriod, rate_periods
from app.rules import DEFAULT_RULESET


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's current rating: ``mu``, ``sigma``, ``ordinal`` (``mu − 3σ``, the number
    shown), the number of rated ``periods`` and ``games``."""

    player_id: int
    mu: float
    sigma: float
    periods: int
    games: int

    @property
    def ordinal(self) -> float:
        """``mu - 3 * sigma`` (OpenSkill's ``ordinal()``)."""
        return self.mu - 3.0 * self.sigma


def latest(session: Session, player_ids: list[int] | set[int], ruleset: str) -> dict[int, Rating]:
    """The ``mu``/``sigma`` of the latest row (highest id) of ``ruleset`` of each of
    ``player_ids`` that has been rated in that game (others are absent: a new player): one
    query, in which each player's latest row is a probe of the ``(player_id, ruleset, id)``
    index (migration 0009), whatever the length of the player's history (a scalar subquery per
    column, not a join the planner may turn into a scan of every rating row)."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}

    def last(column: Any) -> Any:
        return (
            select(column)
            .where(RatingChange.player_id == Player.id, RatingChange.ruleset == ruleset)
            .order_by(RatingChange.id.desc())
            .limit(1)
            .correlate(Player)
            .scalar_subquery()
        )

    return {
        pid: Rating(mu, sigma)
        for pid, mu, sigma in session.execute(
            select(Player.id, last(RatingChange.mu), last(RatingChange.sigma)).where(
                Player.id.in_(ids)
            )
        )
        if mu is not None
    }


def current(
    session: Session, player_ids: list[int] | set[int], ruleset: str
) -> dict[int, PlayerRating]:
    """The current rating in ``ruleset`` of each of ``player_ids`` that has been rated in it
    (others are absent: a new player, ordinal 0): the latest row's ``mu``/``sigma``
    (:func:`latest`) with the number of periods and games rated."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    latest_of = latest(session, ids, ruleset)
    counts = {
        pid: (int(p), int(g or 0))
        for pid, p, g in session.execute(
            select(RatingChange.player_id, func.count(), func.sum(RatingChange.games))
            .where(RatingChange.player_id.in_(ids), RatingChange.ruleset == ruleset)
            .group_by(RatingChange.player_id)
        )
    }
    return {pid: PlayerRating(pid, r.mu, r.sigma, *counts[pid]) for pid, r in latest_of.items()}


def rulesets_of(session: Session, player_id: int) -> list[str]:
    """The rulesets the player has a rating in, in the order they were first rated."""
    first = (
        select(RatingChange.ruleset, func.min(RatingChange.id).label("first"))
        .where(RatingChange.player_id == player_id)
        .group_by(RatingChange.ruleset)
        .subquery()
    )
    return list(session.scalars(select(first.c.ruleset).order_by(first.c.first)))


def rate_round(session: Session, league: League, rnd: Round) -> int:
    """Rate the fought battles of ``rnd`` (board order) as one period ``"<league>/<round>"``,
    from each player's current rating in the league's ruleset; store one row per player, marked
    with that ruleset. Returns the rows written (0 when the round was rated already or has no
    game)."""
    if session.scalar(
        select(func.count()).select_from(RatingChange).where(RatingChange.round_id == rnd.id)
    ):
        return 0
    rows = session.execute(
        select(Battle.entry_a_id, Battle.entry_b_id, Battle.winner)
        .where(
            Battle.round_id == rnd.id,
            Battle.state == "done",
            Battle.entry_b_id.is_not(None),
            Battle.reason != "bye",
        )
        .order_by(Battle.board)
    ).all()
    eids = {e for a, b, _ in rows for e in (a, b)}
    if not eids:
        return 0
    owner: dict[int, int] = {
        eid: pid
        for eid, pid in session.execute(select(Entry.id, Entry.player_id).where(Entry.id.in_(eids)))
    }
    games = tuple(
        RatedGame(owner[a], owner[b], w)
        for a, b, w in rows
        if owner[a] != owner[b] and w in (0, 1, None)
    )
    if not games:
        return 0
    players = {p for g in games for p in (g.a, g.b)}
    game = league.ruleset or DEFAULT_RULESET
    start = latest(session, players, game)
    key = f"{league.name}/{rnd.number}"
    result = rate_periods([RatingPeriod(key, games)], initial=start)
    values = []
    for pid, changes in sorted(result.history.items()):
        (c,) = changes
        values.append(
            dict(
                player_id=pid,
                round_id=rnd.id,
                period=key,
                ruleset=game,
                mu_before=c.before.mu,
                sigma_before=c.before.sigma,
                mu=c.after.mu,
                sigma=c.after.sigma,
                games=c.games,
                wins=c.wins,
                draws=c.draws,
                losses=c.losses,
            )
        )
    # one COPY on PostgreSQL, one executemany elsewhere (Core: no ORM objects), ids in player order
    bulk_insert(session, RatingChange, values)
    return len(values)


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One period of a player's history (``period`` is ``"<league>/<round>"``) in one ruleset:
    ordinal before and after, ``mu``/``sigma`` after, and the games."""

    ruleset: str
    period: str
    league: str
    round: int
    ordinal_before: float
    ordinal: float
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int


def history(session: Session, player_id: int, ruleset: str | None = None) -> list[HistoryLine]:
    """The player's rating history, oldest first: in ``ruleset``, or in every ruleset."""
    q = (
        select(RatingChange, League.name, Round.number)
        .join(Round, RatingChange.round_id == Round.id)
        .join(League, Round.league_id == League.id)
        .where(RatingChange.player_id == player_id)
        .order_by(RatingChange.id)
    )
    if ruleset is not None:
        q = q.where(RatingChange.ruleset == ruleset)
    return [
        HistoryLine(
            c.ruleset,
            c.period,
            name,
            number,
            c.mu_before - 3 * c.sigma_before,
            c.mu - 3 * c.sigma,
            c.mu,
            c.sigma,
            c.games,
            c.wins,
            c.draws,
            c.losses,
        )
        for c, name, number in session.execute(q)
    ]
