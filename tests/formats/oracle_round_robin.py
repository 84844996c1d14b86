"""An oracle for the round robin's standings: the league's standings code of issue #3, written
apart from ``app.formats`` (points, then head-to-head, Sonneborn-Berger, total HP margin), kept
here to test :class:`app.formats.round_robin.RoundRobin` against. The order (``docs/league.md``):

1. **points**: the league's points per win, draw and loss (default 3/1/0); a bye scores nothing
   (with an odd field every entry has exactly one bye per cycle, so it is even for all);
2. **head-to-head**: the points scored in the games *between the entries tied on points* (a
   mini-league of the tied group; computed once per group of equal points);
3. **Sonneborn-Berger**: the sum of the final points of every opponent beaten, plus half the final
   points of every opponent drawn (counted per game, so twice in a double round-robin);
4. **HP margin**: the sum over all games of the ruleset's tiebreak margin (``Outcome.margin``:
   for Amaryllis and Margaret own final HP − opponent's final HP, which may be negative
   (overkill); for Margaret Hundred the judge's totals);

entries still equal on all four share a rank (standard competition ranking: 1, 2, 2, 4).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class GameResult:
    """One fought battle between entries ``a`` and ``b`` (entry ids).

    ``winner`` is 0 (a won), 1 (b won) or ``None`` (draw); ``hp_a``/``hp_b`` the final HP;
    ``margin`` side a's tiebreak margin (``Outcome.margin``, HP), ``None`` for ``hp_a - hp_b``.
    """

    a: int
    b: int
    winner: int | None
    hp_a: int
    hp_b: int
    margin: int | None = None

    @property
    def diff(self) -> int:
        """Side a's margin: :attr:`margin`, or ``hp_a - hp_b`` when it is not known."""
        return self.hp_a - self.hp_b if self.margin is None else self.margin


@dataclass(frozen=True, slots=True)
class Points:
    """Points per win, draw and loss (``--points 3/1/0``)."""

    win: int = 3
    draw: int = 1
    loss: int = 0

    @classmethod
    def parse(cls, text: str) -> Points:
        """Parse ``W/D/L`` (e.g. ``3/1/0``). Raises ``ValueError`` on anything else, including
        negative numbers or a win worth less than a draw or a draw less than a loss."""
        parts = text.strip().split("/")
        if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"points must look like 3/1/0 (win/draw/loss), got {text!r}")
        w, d, l_ = (int(p) for p in parts)
        if not w >= d >= l_:
            raise ValueError(f"points must satisfy win >= draw >= loss, got {text!r}")
        return cls(w, d, l_)

    def __str__(self) -> str:
        return f"{self.win}/{self.draw}/{self.loss}"


@dataclass(frozen=True, slots=True)
class Score:
    """An entry's line in the standings before names are attached.

    Attributes:
        entry: the entry id.
        rank: 1-based rank; equal for entries that tie on every criterion (``shared`` is True).
        played, wins, draws, losses, byes: counts of games (a bye is not a game played).
        points: league points.
        head_to_head: points scored against the entries tied with it on points (0 when untied).
        sonneborn_berger: see the module docstring (a ``Fraction``: halves occur).
        hp_margin: total own HP − opponent HP over all games.
        shared: True when another entry has the same rank.
        tiebreaks: a non-round-robin format's own tiebreaks after the points, ``(name, text)``
            in the format's order (``buchholz``, ``sonneborn_berger``, ``margin``…; ``()`` for a
            round robin, whose columns are the fields above).
    """

    entry: int
    rank: int
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: int
    head_to_head: int
    sonneborn_berger: Fraction
    hp_margin: int
    shared: bool
    tiebreaks: tuple[tuple[str, str], ...] = ()


def compute(
    entries: list[int],
    games: list[GameResult],
    points: Points = Points(),
    byes: dict[int, int] | None = None,
) -> list[Score]:
    """Rank ``entries`` (entry ids, in seat order for a stable listing) from ``games``.

    Games involving an entry not in ``entries`` (e.g. a disqualified one) are ignored.
    ``byes`` maps entry id to the number of byes taken (shown only; a bye scores nothing).
    Returns one :class:`Score` per entry, best first; ties on every criterion keep the order of
    ``entries``. Raises ``ValueError`` when ``entries`` has duplicates.
    """
    if len(set(entries)) != len(entries):
        raise ValueError("duplicate entry ids")
    known = set(entries)
    games = [g for g in games if g.a in known and g.b in known and g.a != g.b]
    pts: dict[int, int] = defaultdict(int)
    wins: dict[int, int] = defaultdict(int)
    draws: dict[int, int] = defaultdict(int)
    losses: dict[int, int] = defaultdict(int)
    margin: dict[int, int] = defaultdict(int)

    def game_points(g: GameResult, side: int) -> int:
        if g.winner is None:
            return points.draw
        return points.win if g.winner == side else points.loss

    win, draw, loss = points.win, points.draw, points.loss
    for g in games:
        a, b, w = g.a, g.b, g.winner
        if w is None:
            draws[a] += 1
            draws[b] += 1
            pts[a] += draw
            pts[b] += draw
        elif w == 0:
            wins[a] += 1
            losses[b] += 1
            pts[a] += win
            pts[b] += loss
        elif w == 1:
            losses[a] += 1
            wins[b] += 1
            pts[a] += loss
            pts[b] += win
        else:  # no side won: a loss for both, as game_points says
            losses[a] += 1
            losses[b] += 1
            pts[a] += loss
            pts[b] += loss
        diff = g.hp_a - g.hp_b if g.margin is None else g.margin  # GameResult.diff
        margin[a] += diff
        margin[b] -= diff

    # Sonneborn-Berger doubled, in integers (a draw adds half the opponent's points): exact,
    # and ordered like the halves it stands for
    sb2: dict[int, int] = defaultdict(int)
    for g in games:
        if g.winner is None:
            sb2[g.a] += pts[g.b]
            sb2[g.b] += pts[g.a]
        elif g.winner == 0:
            sb2[g.a] += 2 * pts[g.b]
        elif g.winner == 1:
            sb2[g.b] += 2 * pts[g.a]

    groups: dict[int, int] = defaultdict(int)
    for e in entries:
        groups[pts[e]] += 1
    h2h: dict[int, int] = defaultdict(int)
    for g in games:
        if pts[g.a] == pts[g.b] and groups[pts[g.a]] > 1:
            h2h[g.a] += game_points(g, 0)
            h2h[g.b] += game_points(g, 1)

    def key(e: int) -> tuple[int, int, int, int]:
        return (pts[e], h2h[e], sb2[e], margin[e])

    order = sorted(entries, key=key, reverse=True)  # sorted() is stable: ties keep seat order
    keys = [key(e) for e in order]
    # equal keys are adjacent once sorted: each shares the rank of the first of its run
    first = [0] * len(order)
    for i in range(1, len(order)):
        first[i] = first[i - 1] if keys[i] == keys[i - 1] else i
    count = Counter(keys)
    scores: list[Score] = []
    for i, e in enumerate(order):
        scores.append(
            Score(
                entry=e,
                rank=1 + first[i],
                played=wins[e] + draws[e] + losses[e],
                wins=wins[e],
                draws=draws[e],
                losses=losses[e],
                byes=(byes or {}).get(e, 0),
                points=pts[e],
                head_to_head=h2h[e],
                sonneborn_berger=Fraction(sb2[e], 2),
                hp_margin=margin[e],
                shared=count[keys[i]] > 1,
            )
        )
    return scores
