"""Swiss system: ``rounds`` rounds, each paired within score groups by a maximum-weight matching.

The pairing rules (a simplified FIDE Dutch system, Handbook C.04.3; ``docs/formats.md``):

1. **Absolute**: two entries never meet twice; an entry gets at most one bye (odd fields only).
2. The **bye** goes to the lowest-ranked entry that has had none, among those for whom the others
   can still all be paired (rank: points, then seed order).
3. **Score groups**: the sum over the pairs of the squared score difference is as small as
   possible (pairs within a score group; the fewest, smallest floats).
4. **Floats**: the Dutch system's quality criteria on repeated floats, in their order (C.04.3,
   numbering of the 2017 text): minimize the number of entries who receive the same downfloat
   as in the previous round (C.12), the same upfloat as in the previous round (C.13), the same
   downfloat as two rounds before (C.14), the same upfloat as two rounds before (C.15). Floats
   as C.04.3 A.4.b defines them: "After two players with different scores have played each
   other in a round, the higher ranked player receives a downfloat, the lower one an upfloat. A
   player who, for whatever reason, does not play in a round, also receives a downfloat" (a
   bye, a voided game): :func:`floats`.
5. **Dutch order**: within a score group of ``s`` entries ranked ``0 .. s-1``, entry ``p`` is
   meant for ``p ± s/2`` (top half against bottom half); a pair across two groups is meant for
   the lowest of the upper group and the highest of the lower one. The sum of the squared
   deviations is as small as possible.

Each rule strictly outranks the next: the floats come after the score spread and before the
Dutch order, as in C.04.3, where the order of S1/S2 transpositions only chooses among pairings
equal on every quality criterion; so a pairing of equal score spread that repeats fewer floats is
preferred to one closer to the Dutch order. The rules are the weights of one maximum-cardinality,
maximum-weight matching (networkx ``max_weight_matching``, Edmonds' blossom algorithm, exact
integer weights) on the graph of allowed pairs plus one "bye" node. To keep 1,000-entry rounds
fast, the matching first uses **candidate pairs** only: pairs of one score group whose Dutch
deviation is at most ``w``, and pairs of two groups at most ``2w + 1`` ranks apart, for
``w`` = :data:`WINDOW`; when they admit no complete pairing, or the bye would not go where rule 2
says, it runs again with ``w = 4 * WINDOW``, then on every allowed pair. Side A is the
higher-ranked entry of a pair; boards go in rank order, the bye last. Not modelled: colours
(sides do not matter to the engine); the criteria on the score differences of repeated floaters
(C.16-C.19).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, ClassVar

from app.formats.base import (
    REQUIRED,
    Finished,
    Format,
    Game,
    NextRound,
    Option,
    Pairing,
    Points,
    Round,
    RoundPairings,
    Standings,
    check_history,
    int_parser,
    parse_points,
    pending_round,
    register,
    tiebreaks_parser,
)
from app.formats.tiebreaks import TIEBREAKS, ScoreTable, rank, tiebreak_titles

if TYPE_CHECKING:
    import networkx as nx

#: the Dutch deviation (in places) of a candidate pair within a score group
WINDOW = 8

DOWN = "down"
UP = "up"
Floats = tuple[str | None, str | None]
"""An entry's floats (:data:`DOWN`, :data:`UP` or ``None``) in the last round and the one before."""

SWISS_TIEBREAKS = ("buchholz", "sonneborn_berger", "margin")
BYE_POINTS = ("win", "draw", "loss")


def _bye_points(value: object) -> str:
    text = str(value).strip().lower()
    if text not in BYE_POINTS:
        raise ValueError(f"expected one of {', '.join(BYE_POINTS)}, got {value!r}")
    return text


class NoPairing(Exception):
    """No pairing of the round satisfies the absolute rules."""


@register
class Swiss(Format):
    """Swiss system over ``rounds`` rounds (see the module docstring for the pairing rules).

    Options: ``rounds`` (required, 1..1000), ``points`` (default ``3/1/0``), ``bye_points``
    (``win``, ``draw`` or ``loss``: what a bye scores; default ``win``, as FIDE's pairing-allocated
    bye), ``tiebreaks`` (default ``buchholz, sonneborn_berger, margin``), ``seed`` (unused).
    """

    name: ClassVar[str] = "swiss"
    aliases: ClassVar[tuple[str, ...]] = ("swiss-system", "スイス")
    titles: ClassVar[Mapping[str, str]] = {"ja": "スイス式", "en": "Swiss system"}
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option("rounds", int_parser(1, 1000), REQUIRED, {"ja": "回戦数", "en": "number of rounds"}),
        Option(
            "points",
            parse_points,
            "3/1/0",
            {"ja": "勝ち／引き分け／負けの勝ち点", "en": "points per win/draw/loss"},
        ),
        Option(
            "bye_points",
            _bye_points,
            "win",
            {"ja": "不戦勝の扱い（win/draw/loss）", "en": "what a bye scores (win/draw/loss)"},
        ),
        Option(
            "tiebreaks",
            tiebreaks_parser(TIEBREAKS),
            list(SWISS_TIEBREAKS),
            {"ja": "同点時の順位決定方法（順に）", "en": "tiebreaks, in order"},
        ),
    )

    @property
    def rounds(self) -> int:
        """The number of rounds."""
        return int(self._options["rounds"])

    @property
    def points(self) -> Points:
        """The W/D/L points."""
        return Points.parse(self._options["points"])

    @property
    def bye_value(self) -> Fraction:
        """The points of a bye."""
        p = self.points
        return {"win": p.win, "draw": p.draw, "loss": p.loss}[self._options["bye_points"]]

    def rounds_planned(self, n_entries: int) -> int:
        """``rounds`` (fewer only if the field runs out of new pairs: then it finishes early)."""
        return self.rounds if n_entries >= 2 else 0

    def _table(
        self, entries: Sequence[int], history: Sequence[Round], inactive: Iterable[int]
    ) -> ScoreTable:
        return ScoreTable.build(
            entries, history, self.points, bye_points=self.bye_value, inactive=inactive, swiss=True
        )

    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        check_history(entries, history)
        waiting = pending_round(history)
        if waiting is not None:
            return waiting
        out = set(inactive)
        active = [e for e in entries if e not in out]
        if len(active) < 2:
            return Finished("too-few-entries")
        k = len(history) + 1
        if k > self.rounds:
            return Finished("all-rounds-played")
        table = self._table(entries, history, out)
        met: set[frozenset[int]] = set()
        had_bye: set[int] = set()
        for rnd in history:
            for g in rnd.games:
                if g.b is None:
                    had_bye.add(g.a)
                else:
                    met.add(frozenset((g.a, g.b)))
        seed_index = {e: i for i, e in enumerate(entries)}
        ranked = sorted(active, key=lambda e: (-table.points[e], seed_index[e]))
        try:
            pairs = pair_round(
                ranked,
                table.points,
                met,
                had_bye,
                floats(history, self.points, self.bye_value, table.entries),
            )
        except NoPairing:
            return Finished("no-legal-pairing")
        return RoundPairings(k, tuple(Pairing(i, a, b) for i, (a, b) in enumerate(pairs, 1)))

    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: object = None,
    ) -> Standings:
        check_history(entries, history)
        table = self._table(entries, history, inactive)
        return Standings(tuple(rank(table, self.tiebreaks)), self.tiebreaks)

    def describe(self, lang: str) -> list[str]:
        tbs = tiebreak_titles(self.tiebreaks, lang)
        bye = {
            "win": ("勝ち", "a win"),
            "draw": ("引き分け", "a draw"),
            "loss": ("負け", "a loss"),
        }[self._options["bye_points"]]
        if lang == "ja":
            return [
                f"スイス式 全{self.rounds}回戦",
                f"勝ち点 {self.points}（勝ち／引き分け／負け）。不戦勝は{bye[0]}扱い",
                "次の回戦は同じ勝ち点の組の中で組み合わせます（組の上位半分対下位半分、"
                "同じ相手とは二度当たりません）",
                "奇数のときは、まだ不戦勝のない最下位の参加者が不戦勝になります（一人一回まで）",
                "同点時：" + ("、".join(tbs) if tbs else "同順位"),
            ]
        return [
            f"Swiss system, {self.rounds} rounds",
            f"points {self.points} (win/draw/loss); a bye scores as {bye[1]}",
            "the next round pairs entries within score groups (top half against bottom half); "
            "no pair meets twice",
            "with an odd field the lowest-ranked entry without a bye has the bye (one per entry)",
            "ties: " + (", ".join(tbs) if tbs else "shared rank"),
        ]


def floats(
    history: Sequence[Round], points: Points, bye_points: Fraction, entries: Iterable[int]
) -> dict[int, Floats]:
    """The floats of ``entries`` in the last two rounds of ``history`` (C.04.3 A.4.b; scores as
    the Swiss counts them: games with an entry not in ``entries`` are void). An entry with a bye
    or a voided game did not play: a downfloat."""
    known = set(entries)
    score: dict[int, Fraction] = {e: Fraction(0) for e in known}
    out: dict[int, list[str | None]] = {e: [None, None] for e in known}
    last = len(history)
    for k, rnd in enumerate(history, start=1):
        gained: dict[int, Fraction] = {}
        slot = last - k  # 0: the last round, 1: the one before
        for g in rnd.games:
            a, b = g.a, g.b
            if b is None:
                if a in known:
                    gained[a] = bye_points
                    if slot < 2:
                        out[a][slot] = DOWN
                continue
            played = a in known and b in known and g.result is not None and a != b
            if played:
                gained[a], gained[b] = _game_points(g, points)
            if slot < 2:
                for e, o in ((a, b), (b, a)):
                    if e in known:
                        out[e][slot] = _float(score, e, o) if played else DOWN
        for e, p in gained.items():
            score[e] += p
    return {e: (f[0], f[1]) for e, f in out.items()}


def _game_points(g: Game, points: Points) -> tuple[Fraction, Fraction]:
    res = g.result
    assert res is not None
    if res.winner is None:
        return points.draw, points.draw
    return (points.win, points.loss) if res.winner == 0 else (points.loss, points.win)


def _float(score: Mapping[int, Fraction], e: int, opponent: int) -> str | None:
    if score[e] == score[opponent]:
        return None
    return DOWN if score[e] > score[opponent] else UP


def pair_round(
    ranked: Sequence[int],
    points: Mapping[int, Fraction],
    met: set[frozenset[int]],
    had_bye: set[int],
    floats: Mapping[int, Floats] | None = None,
) -> list[tuple[int, int | None]]:
    """The pairs of one Swiss round: ``(a, b)`` boards in rank order, then ``(e, None)`` for the
    bye. ``ranked``: the entries to pair, best first; ``points``: their scores; ``met``: pairs
    that already played; ``had_bye``: entries that had a bye; ``floats``: their floats in the
    last two rounds (:func:`floats`; none when not given). Raises :class:`NoPairing` when the
    absolute rules leave no complete pairing. See the module docstring for the rules."""
    n = len(ranked)
    if n < 2:
        raise NoPairing
    scale = lcm(*(points[e].denominator for e in ranked))
    score = [int(points[e] * scale) for e in ranked]
    group: list[int] = []
    pos: list[int] = []
    size: dict[int, int] = {}
    g = -1
    for i in range(n):
        if i == 0 or score[i] != score[i - 1]:
            g += 1
            size[g] = 0
        group.append(g)
        pos.append(size[g])
        size[g] += 1
    eligible_bye = [i for i in range(n) if ranked[i] not in had_bye] if n % 2 else []
    if n % 2 and not eligible_bye:
        raise NoPairing
    want_bye = eligible_bye[-1] if eligible_bye else None

    def allowed(i: int, j: int) -> bool:
        return frozenset((ranked[i], ranked[j])) not in met

    def dutch(i: int, j: int) -> int:  # i < j
        if group[i] == group[j]:
            return (abs(pos[j] - pos[i]) - size[group[i]] // 2) ** 2
        return (size[group[i]] - 1 - pos[i]) ** 2 + pos[j] ** 2

    def candidate(i: int, j: int, window: int) -> bool:
        if group[i] == group[j]:
            return abs(abs(pos[j] - pos[i]) - size[group[i]] // 2) <= window
        return j - i <= 2 * window + 1

    # floats: the higher-ranked entry of a pair of unequal scores downfloats, the lower upfloats
    last_down = [False] * n
    last_up = [False] * n
    prev_down = [False] * n
    prev_up = [False] * n
    for i, e in enumerate(ranked):
        f = floats.get(e, (None, None)) if floats is not None else (None, None)
        last_down[i], last_up[i] = f[0] == DOWN, f[0] == UP
        prev_down[i], prev_up[i] = f[1] == DOWN, f[1] == UP
    any_float = any(last_down) or any(last_up) or any(prev_down) or any(prev_up)
    base = n // 2 + 1  # more than the pairs: each float criterion counts at most one per pair
    f12, f13, f14 = base**3, base**2, base

    def repeated(i: int, j: int) -> int:  # i < j; C.12-C.15, each above the next
        if score[i] == score[j]:
            return 0
        return f12 * last_down[i] + f13 * last_up[j] + f14 * prev_down[i] + prev_up[j]

    max_dutch = n * n * 2 + 1
    max_diff = (score[0] - score[-1]) ** 2 + 1
    c_float = (n // 2 + 1) * max_dutch  # more than any sum of Dutch terms
    c_score = c_float * base**4 if any_float else c_float  # more than any sum of both
    c_bye = (n // 2 + 1) * c_score * (max_diff + 1)
    big = c_bye * n + c_score * max_diff + c_score + 1

    import networkx as nx  # here, not at the top: loading it costs every process ~0.15 s

    def solve(window: int | None) -> tuple[list[tuple[int, int | None]], int | None] | None:
        graph: nx.Graph[int] = nx.Graph()
        graph.add_nodes_from(range(n + (1 if n % 2 else 0)))
        for i in range(n):
            for j in range(i + 1, n):
                if window is not None and not candidate(i, j, window):
                    continue
                if allowed(i, j):
                    w = big - c_score * (score[i] - score[j]) ** 2 - dutch(i, j)
                    if any_float:
                        w -= c_float * repeated(i, j)
                    graph.add_edge(i, j, weight=w)
        if n % 2:
            for i in eligible_bye:
                graph.add_edge(i, n, weight=big - c_bye * (n - 1 - i))
        matching = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
        if 2 * len(matching) != n + (n % 2):
            return None
        boards: list[tuple[int, int]] = []
        bye: int | None = None
        for u, v in matching:
            i, j = min(u, v), max(u, v)
            if j == n:
                bye = i
            else:
                boards.append((i, j))
        boards.sort()
        out: list[tuple[int, int | None]] = [(ranked[i], ranked[j]) for i, j in boards]
        if bye is not None:
            out.append((ranked[bye], None))
        return out, bye

    result = None
    for window in (WINDOW, 4 * WINDOW, None):
        # the full graph (None) last: its weights give the bye to the lowest-ranked eligible
        # entry for whom the others can all be paired, and find a complete pairing if any
        if window is not None and window >= n:
            continue
        result = solve(window)
        if result is not None and result[1] == want_bye:
            break
    if result is None:
        raise NoPairing
    return result[0]
