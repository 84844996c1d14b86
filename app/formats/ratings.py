"""Ratings of players across leagues: OpenSkill (Weng-Lin Bayesian ratings, Plackett-Luce model).

:func:`rate_periods` is a pure function from a sequence of **rating periods** (one per played
round of any league, in the order the rounds were played; each a list of games between two
players) to every player's current rating and a per-player history (one line per period the
player played in). The arithmetic is the ``openskill`` library's (``PlackettLuce.rate``): this
module only feeds it, in a fixed order, and reads the results back.

* A game is rated as a two-team match of one player each: ``ranks=[1, 2]`` for a win of side A,
  ``[2, 1]`` for side B, ``[1, 1]`` for a draw. Byes and unfought battles are not games.
* Inside a period the games are rated one after another in the order given (the league passes
  them in board order). In a round of round robin, Swiss or knockout every player has at most
  one game, so that order changes nothing; in a hill challenge (the challenger meets every
  member) and an accumulating update it is the board order.
* A player who does not play in a period keeps the rating (OpenSkill has no inactivity decay;
  ``tau``, the additive dynamics term, widens sigma a little before every game instead).
* The number shown in standings is the library's **ordinal**, ``mu - 3 * sigma`` (a
  conservative estimate that rises as sigma shrinks): 0 for a new player with the defaults.

Why OpenSkill and not Glicko-2: ``README.md``, Dependencies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One fought game between players ``a`` and ``b`` (player ids, not entry ids).

    ``winner`` is 0 (``a`` won), 1 (``b`` won) or ``None`` (a draw). Raises ``ValueError`` for
    another winner or a player against themself.
    """

    a: int
    b: int
    winner: int | None

    def __post_init__(self) -> None:
        if self.winner not in (0, 1, None):
            raise ValueError(f"winner must be 0, 1 or None, got {self.winner!r}")
        if self.a == self.b:
            raise ValueError(f"player {self.a} cannot play themself")


@dataclass(frozen=True, slots=True)
class RatingPeriod:
    """One rating period: a played round. ``key`` names it in histories (e.g.
    ``"spring/3"``: league and round); ``games`` in board order."""

    key: str
    games: tuple[RatedGame, ...]


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating: ``mu`` (skill estimate) and ``sigma`` (its uncertainty), OpenSkill
    units (defaults 25 and 25/3)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """``mu - 3 * sigma``: the number shown in standings (the library's ``ordinal()``)."""
        return self.mu - 3.0 * self.sigma

    def to_json(self) -> dict[str, float]:
        """``{"mu", "sigma", "ordinal"}``."""
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


@dataclass(frozen=True, slots=True)
class RatingSettings:
    """The model's parameters (the library's defaults unless set).

    Attributes:
        mu, sigma: a new player's rating.
        beta: the performance spread (default ``sigma / 2`` of the default prior, 25/6).
        tau: the additive dynamics term added to sigma before each game (default 25/300).
        limit_sigma: never let a game raise sigma.
    """

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    limit_sigma: bool = False

    def model(self) -> PlackettLuce:
        """The library's model with these parameters."""
        return PlackettLuce(
            mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau, limit_sigma=self.limit_sigma
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (``model`` names the OpenSkill model)."""
        return {
            "model": "plackett-luce",
            "mu": self.mu,
            "sigma": self.sigma,
            "beta": self.beta,
            "tau": self.tau,
            "limit_sigma": self.limit_sigma,
        }


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One line of a player's history: the period, the rating before and after it, and the
    player's games in it."""

    period: str
    before: Rating
    after: Rating
    games: int
    wins: int
    draws: int
    losses: int

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "period": self.period,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
        }


@dataclass(frozen=True)
class Ratings:
    """The result of :func:`rate_periods`: ``current`` rating and ``history`` per player."""

    current: Mapping[int, Rating] = field(default_factory=dict)
    history: Mapping[int, tuple[RatingChange, ...]] = field(default_factory=dict)

    def leaderboard(self) -> list[tuple[int, Rating]]:
        """Players by descending ordinal (ties: lower player id first)."""
        return sorted(self.current.items(), key=lambda kv: (-kv[1].ordinal, kv[0]))


def rate_periods(
    periods: Iterable[RatingPeriod],
    *,
    settings: RatingSettings = RatingSettings(),
    initial: Mapping[int, Rating] | None = None,
) -> Ratings:
    """Rate ``periods`` in order; ``initial`` gives players a starting rating (else the
    settings' ``mu``/``sigma``). Deterministic; raises ``ValueError`` on a bad game."""
    model = settings.model()
    now: dict[int, PlackettLuceRating] = {}
    for pid, start in (initial or {}).items():
        now[pid] = model.rating(mu=start.mu, sigma=start.sigma)
    history: dict[int, list[RatingChange]] = {}

    def get(pid: int) -> PlackettLuceRating:
        if pid not in now:
            now[pid] = model.rating()
        return now[pid]

    for period in periods:
        before: dict[int, Rating] = {}
        counts: dict[int, list[int]] = {}
        for g in period.games:
            for pid in (g.a, g.b):
                cur = get(pid)
                before.setdefault(pid, Rating(cur.mu, cur.sigma))
                counts.setdefault(pid, [0, 0, 0])
            ranks = (
                [1.0, 1.0] if g.winner is None else ([1.0, 2.0] if g.winner == 0 else [2.0, 1.0])
            )
            [[ra], [rb]] = model.rate([[now[g.a]], [now[g.b]]], ranks=ranks)
            now[g.a], now[g.b] = ra, rb
            for side, pid in ((0, g.a), (1, g.b)):
                slot = 1 if g.winner is None else (0 if g.winner == side else 2)
                counts[pid][slot] += 1
        for pid, b in before.items():
            w, d, l_ = counts[pid]
            history.setdefault(pid, []).append(
                RatingChange(
                    period.key, b, Rating(now[pid].mu, now[pid].sigma), w + d + l_, w, d, l_
                )
            )
    return Ratings(
        {pid: Rating(x.mu, x.sigma) for pid, x in now.items()},
        {pid: tuple(h) for pid, h in history.items()},
    )
