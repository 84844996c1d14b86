"""Scores, named tiebreaks and ranking, shared by every format.

A format turns its history into a :class:`ScoreTable` (per entry: points, and one
:class:`GameRecord` per game with the points it earned) and ranks it with :func:`rank`: first by a
primary score (league points; a knockout's rounds survived), then by the format's tiebreaks in
order, each a name in :data:`TIEBREAKS`:

``head_to_head``
    the points an entry scored in the games between the entries tied with it on every earlier
    criterion (a mini-league of the tied group; 0 when it is tied with nobody).
``sonneborn_berger``
    the final points of every opponent beaten plus half those of every opponent drawn, per game.
``buchholz``
    the sum of the final points of every opponent met, per game.
``buchholz_cut1``
    Buchholz without its least significant term.
``margin``
    the sum over all games of the entry's HP margin (own final HP − the opponent's).
``wins``
    the number of games won.

**Unplayed rounds.** In a Swiss table (``ScoreTable.build(..., swiss=True)``) Buchholz,
Sonneborn-Berger and the cut follow Article 16 ("Unplayed Rounds Management in Swiss
Tournaments") of the FIDE Play-Off and Tie-Break Regulations, Handbook C.07, in force since
1 March 2026 (the article's structure dates from the 2023/2024 texts; 2026 added the caps of
16.4.1/16.4.2):

* 16.3: for the tie-breaks of its *opponents*, an entry's score is adjusted only for requested
  byes at its end (16.2.5, "evaluated as draws"); pairing-allocated byes and forfeits count as
  scored (16.3.1). This server has no requested byes, so the opponents' final points are used.
* 16.4: "each of their unplayed rounds is evaluated as if the participant had played against a
  dummy, with the result (win, draw, loss) corresponding to the points awarded. The dummy's score
  for the tie-break calculation is the participant's own score", capped (16.4.2) at "the points
  awarded for a draw multiplied by the number of rounds in the tournament" (the rounds played so
  far). The entry's bye (16.2.1) and a round voided because its opponent is out (the league's
  walkover: every game of a disqualified entry is void, so it scores nothing and has no scheduled
  opponent's score to cap by 16.4.1) are such rounds: :class:`Unplayed`.
* 16.5.1: cut-1 of an entry with voluntary unplayed rounds (VURs, 16.1.2: requested byes and
  forfeit losses) cuts the lowest VUR contribution "as long as such contribution is not lower
  than the least significant value"; without VURs it cuts the least significant value (14.1).
  A pairing-allocated bye is not a VUR, and this server produces none.

Other tables (round robin, knockout, accumulating: pre-determined or no Swiss pairings, Article
15.2) keep the rule they always had: a bye adds the entry's own final points to Buchholz and
nothing to Sonneborn-Berger.

Higher is better for every tiebreak. Entries equal on the primary score and every tiebreak share
a rank (standard competition ranking: 1, 2, 2, 4) and keep seed order. Source for the first and
the last two: the league's standings since issue #3 (``docs/league.md``); Buchholz and
Sonneborn-Berger: FIDE Handbook C.07, Articles 8.1, 9.1, 14.1 and 16.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

from app.formats.base import TIEBREAK_COLUMNS, Column, Points, Round, StandingRow

ONE = Fraction(1)
HALF = Fraction(1, 2)
ZERO = Fraction(0)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game from one entry's side.

    Attributes:
        round: the round number.
        opponent: the opponent's entry id.
        score: 1 (won), 1/2 (drawn) or 0 (lost).
        margin: this entry's HP margin in the game.
        points: the points this game earned it (the format's points rule).
        halves: ``2 * score`` as an int (2 won, 1 drawn, 0 lost), for fast counting.
    """

    round: int
    opponent: int
    score: Fraction
    margin: int
    points: Fraction
    halves: int


@dataclass(frozen=True, slots=True)
class Unplayed:
    """One unplayed round of an entry in a Swiss table (FIDE C.07 Article 16).

    Attributes:
        round: the round number.
        score: the result against the dummy of Article 16.4 "corresponding to the points
            awarded": 1 (won), 1/2 (drawn) or 0 (lost).
        points: the points the round earned the entry.
        vur: a voluntary unplayed round (16.1.2: a requested bye or a forfeit loss), cut first
            by 16.5.1. The server has none: a bye is pairing-allocated (16.2.1) and a voided
            round was not the entry's choice.
        kind: ``bye`` (the pairing-allocated bye) or ``void`` (the game was voided: its opponent
            is out of the league).
    """

    round: int
    score: Fraction
    points: Fraction
    vur: bool = False
    kind: str = "bye"


@dataclass
class ScoreTable:
    """Per-entry scores of a history, the input of every tiebreak.

    Attributes:
        entries: the ranked entries in seed order.
        points: total points per entry (games and byes).
        games: the games per entry (only games between two entries of ``entries``).
        byes: the number of byes per entry.
        swiss: True when the unplayed rounds follow FIDE C.07 Article 16 (a Swiss: see the
            module docstring); False keeps the rule of pre-determined pairings.
        unplayed: the unplayed rounds per entry (filled when ``swiss``).
        rounds: the number of rounds of the history (16.4.2's "number of rounds").
        draw: the points of a draw (16.4.2).
    """

    entries: tuple[int, ...]
    points: dict[int, Fraction] = field(default_factory=dict)
    games: dict[int, list[GameRecord]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)
    swiss: bool = False
    unplayed: dict[int, list[Unplayed]] = field(default_factory=dict)
    rounds: int = 0
    draw: Fraction = HALF

    @classmethod
    def build(
        cls,
        entries: Sequence[int],
        history: Iterable[Round],
        points: Points,
        *,
        bye_points: Fraction = ZERO,
        inactive: Iterable[int] = (),
        swiss: bool = False,
    ) -> ScoreTable:
        """The table of ``history`` scored by ``points``; a bye earns ``bye_points``.

        Games with an entry that is not in ``entries`` or is ``inactive`` are ignored (a
        disqualification voids every game of the entry); games without a result are skipped.
        With ``swiss`` the byes and the voided games of the ranked entries are recorded as
        :class:`Unplayed` rounds (FIDE C.07 Article 16): a bye scores ``bye_points`` against the
        dummy, a voided game (the league's walkover against an entry now out) nothing.
        """
        out = set(inactive)
        ranked = tuple(e for e in entries if e not in out)
        known = set(ranked)
        games: dict[int, list[GameRecord]] = {e: [] for e in ranked}
        byes = {e: 0 for e in ranked}
        unplayed: dict[int, list[Unplayed]] = {e: [] for e in ranked}
        counts = {e: [0, 0, 0] for e in ranked}  # wins, draws, losses
        pw, pd, pl = points.win, points.draw, points.loss
        bye_score = ONE if bye_points >= pw else HALF if bye_points >= pd else ZERO
        rounds = 0
        for rnd in history:
            n = rnd.number
            rounds += 1
            for g in rnd.games:
                a, b = g.pairing.a, g.pairing.b
                if b is None:
                    if a in known:
                        byes[a] += 1
                        if swiss:
                            unplayed[a].append(Unplayed(n, bye_score, bye_points))
                    continue
                res = g.result
                if res is None or a == b:
                    continue
                if a not in known or b not in known:
                    if swiss:  # voided: its opponent is out (16.4: a round lost to the dummy)
                        for e in (a, b):
                            if e in known:
                                unplayed[e].append(Unplayed(n, ZERO, ZERO, kind="void"))
                    continue
                m = res.margin
                if res.winner is None:
                    games[a].append(GameRecord(n, b, HALF, m, pd, 1))
                    games[b].append(GameRecord(n, a, HALF, -m, pd, 1))
                    counts[a][1] += 1
                    counts[b][1] += 1
                elif res.winner == 0:
                    games[a].append(GameRecord(n, b, ONE, m, pw, 2))
                    games[b].append(GameRecord(n, a, ZERO, -m, pl, 0))
                    counts[a][0] += 1
                    counts[b][2] += 1
                else:
                    games[a].append(GameRecord(n, b, ZERO, m, pl, 0))
                    games[b].append(GameRecord(n, a, ONE, -m, pw, 2))
                    counts[a][2] += 1
                    counts[b][0] += 1
        pts = {
            e: pw * c[0] + pd * c[1] + pl * c[2] + bye_points * byes[e] for e, c in counts.items()
        }
        return cls(ranked, pts, games, byes, swiss, unplayed, rounds, pd)

    def add(
        self,
        round_number: int,
        me: int,
        opponent: int,
        score: Fraction,
        margin: int,
        points: Fraction,
    ) -> None:
        """Record one side of a game (both sides are recorded separately)."""
        self.games[me].append(
            GameRecord(round_number, opponent, score, margin, points, int(score * 2))
        )
        self.points[me] += points

    def wins(self, e: int) -> int:
        """Games won by ``e``."""
        return sum(1 for g in self.games[e] if g.halves == 2)

    def draws(self, e: int) -> int:
        """Games drawn by ``e``."""
        return sum(1 for g in self.games[e] if g.halves == 1)

    def losses(self, e: int) -> int:
        """Games lost by ``e``."""
        return sum(1 for g in self.games[e] if g.halves == 0)


@dataclass(frozen=True, slots=True)
class Tiebreak:
    """A named tiebreak.

    Attributes:
        name: the registry key.
        titles: ``{"ja": …, "en": …}`` (standings column headers).
        short: ``{"ja": …, "en": …}`` short column headers.
        compute: ``(table, group) -> value per entry of group``; ``group`` is the set of entries
            tied on every earlier criterion when ``grouped``, else every entry.
        grouped: True when the value depends on the tied group (head-to-head).
    """

    name: str
    titles: Mapping[str, str]
    short: Mapping[str, str]
    compute: Callable[[ScoreTable, Sequence[int]], dict[int, Fraction]]
    grouped: bool = False


def _head_to_head(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    members = set(group)
    out = {e: ZERO for e in group}
    if len(members) < 2:
        return out
    for e in group:
        out[e] = sum((g.points for g in table.games[e] if g.opponent in members), ZERO)
    return out


def _scaled_points(table: ScoreTable) -> tuple[dict[int, int], int]:
    """Every entry's points times ``scale`` (exact integers: sums of them are fast)."""
    dens = [p.denominator for p in table.points.values()]
    scale = 2 * lcm(1, table.draw.denominator if table.swiss else 1, *dens)
    return {e: int(p * scale) for e, p in table.points.items()}, scale


def _dummy(table: ScoreTable, ip: Mapping[int, int], scale: int, e: int) -> int:
    """The scaled score of ``e``'s dummy opponent (FIDE C.07 Article 16.4): ``e``'s own score,
    at most the points of a draw times the number of rounds (16.4.2)."""
    return min(ip[e], int(table.draw * table.rounds * scale))


def _sonneborn_berger(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    """FIDE C.07 Article 9.1 per game; in a Swiss table each unplayed round adds the dummy's
    score times the result awarded against it (Article 16.4: a bye scored as a win adds the
    entry's own score, capped by 16.4.2)."""
    ip, scale = _scaled_points(table)
    out: dict[int, Fraction] = {}
    for e in group:
        won = sum(ip[g.opponent] for g in table.games[e] if g.halves == 2)
        drawn = sum(ip[g.opponent] for g in table.games[e] if g.halves == 1)
        if table.swiss and table.unplayed[e]:
            dummy = _dummy(table, ip, scale, e)
            won += sum(dummy for u in table.unplayed[e] if u.score == ONE)
            drawn += sum(dummy for u in table.unplayed[e] if u.score == HALF)
        out[e] = Fraction(2 * won + drawn, 2 * scale)
    return out


def _buchholz_terms(
    table: ScoreTable, ip: Mapping[int, int], scale: int, e: int
) -> list[tuple[int, bool]]:
    """``(value, is a VUR)`` per round of ``e``: the opponents' scores (FIDE C.07 Article 8.1;
    16.3.1: an opponent's pairing-allocated byes and forfeits count as scored), then one term per
    unplayed round: the dummy's score of Article 16.4 in a Swiss table, else ``e``'s own
    points per bye."""
    terms = [(ip[g.opponent], False) for g in table.games[e]]
    if table.swiss:
        if table.unplayed[e]:
            dummy = _dummy(table, ip, scale, e)
            terms += [(dummy, u.vur) for u in table.unplayed[e]]
    else:
        terms += [(ip[e], False)] * table.byes[e]
    return terms


def _buchholz(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    ip, scale = _scaled_points(table)
    return {
        e: Fraction(sum(v for v, _ in _buchholz_terms(table, ip, scale, e)), scale) for e in group
    }


def _cut1(terms: Sequence[tuple[int, bool]]) -> int:
    """The value cut-1 removes (FIDE C.07 Article 14.1: the least significant value; 16.5.1:
    with VURs, "the lowest contribution coming from such rounds shall be cut, as long as such
    contribution is not lower than the least significant value")."""
    if not terms:
        return 0
    least = min(v for v, _ in terms)
    vurs = [v for v, vur in terms if vur]
    return min(vurs) if vurs and min(vurs) >= least else least


def _buchholz_cut1(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    ip, scale = _scaled_points(table)
    out: dict[int, Fraction] = {}
    for e in group:
        terms = _buchholz_terms(table, ip, scale, e)
        out[e] = Fraction(sum(v for v, _ in terms) - _cut1(terms), scale)
    return out


def _margin(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    return {e: Fraction(sum(g.margin for g in table.games[e])) for e in group}


def _wins(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    return {e: Fraction(table.wins(e)) for e in group}


TIEBREAKS: dict[str, Tiebreak] = {
    t.name: t
    for t in (
        Tiebreak(
            "head_to_head",
            {"ja": "直接対決", "en": "head-to-head"},
            {"ja": "直接", "en": "H2H"},
            _head_to_head,
            grouped=True,
        ),
        Tiebreak(
            "sonneborn_berger",
            {"ja": "ゾンネボルン・ベルガー", "en": "Sonneborn-Berger"},
            {"ja": "SB", "en": "SB"},
            _sonneborn_berger,
        ),
        Tiebreak(
            "buchholz",
            {"ja": "ブッフホルツ", "en": "Buchholz"},
            {"ja": "Bu", "en": "Bu"},
            _buchholz,
        ),
        Tiebreak(
            "buchholz_cut1",
            {"ja": "ブッフホルツ（最低1除外）", "en": "Buchholz cut 1"},
            {"ja": "Bu-1", "en": "Bu-1"},
            _buchholz_cut1,
        ),
        Tiebreak("margin", {"ja": "HP差", "en": "HP margin"}, {"ja": "HP差", "en": "HP"}, _margin),
        Tiebreak("wins", {"ja": "勝数", "en": "wins"}, {"ja": "勝", "en": "W"}, _wins),
    )
}
"""Every tiebreak by name."""

TIEBREAK_COLUMNS.update(
    {
        t.name: Column(t.name, t.titles, t.short, "signed" if t.name == "margin" else "number")
        for t in TIEBREAKS.values()
    }
)


def find_tiebreak(name: str) -> Tiebreak:
    """The tiebreak called ``name``. Raises ``ValueError`` listing the known names."""
    key = name.strip().lower().replace("-", "_")
    if key not in TIEBREAKS:
        raise ValueError(f"unknown tiebreak {name!r} (known: {', '.join(TIEBREAKS)})")
    return TIEBREAKS[key]


def rank(
    table: ScoreTable,
    tiebreaks: Sequence[str],
    *,
    primary: Mapping[int, Fraction] | None = None,
    detail: Mapping[int, Mapping[str, Any]] | None = None,
) -> list[StandingRow]:
    """Rank ``table.entries``: by ``primary`` (default: the table's points), then ``tiebreaks``.

    Grouped tiebreaks (head-to-head) are computed per group of entries tied on everything
    before them. Returns one row per entry, best first; full ties share the rank and keep the
    order of ``table.entries``. Raises ``ValueError`` for an unknown tiebreak name.
    """
    entries = table.entries
    prim = dict(primary) if primary is not None else dict(table.points)
    keys: dict[int, list[Fraction]] = {e: [prim[e]] for e in entries}
    for name in tiebreaks:
        tb = find_tiebreak(name)
        if tb.grouped:
            groups: dict[tuple[Fraction, ...], list[int]] = defaultdict(list)
            for e in entries:
                groups[tuple(keys[e])].append(e)
            values: dict[int, Fraction] = {}
            for members in groups.values():
                values.update(tb.compute(table, members))
        else:
            values = tb.compute(table, entries)
        for e in entries:
            keys[e].append(values[e])
    order = sorted(entries, key=lambda e: keys[e], reverse=True)  # stable: ties keep seed order
    rows: list[StandingRow] = []
    counts: dict[tuple[Fraction, ...], int] = defaultdict(int)
    for e in order:
        counts[tuple(keys[e])] += 1
    first: dict[tuple[Fraction, ...], int] = {}
    for i, e in enumerate(order):
        k = tuple(keys[e])
        first.setdefault(k, i + 1)
        rows.append(
            StandingRow(
                entry=e,
                rank=first[k],
                shared=counts[k] > 1,
                played=len(table.games[e]),
                wins=table.wins(e),
                draws=table.draws(e),
                losses=table.losses(e),
                byes=table.byes[e],
                points=prim[e],
                tiebreaks=tuple(zip(tiebreaks, keys[e][1:], strict=True)),
                detail=dict((detail or {}).get(e, {})),
            )
        )
    return rows


def tiebreak_column(name: str) -> Column:
    """The standings column of tiebreak ``name`` (its titles and short header). Raises
    ``ValueError`` for an unknown name."""
    return TIEBREAK_COLUMNS[find_tiebreak(name).name]


def tiebreak_titles(names: Iterable[str], lang: str) -> list[str]:
    """The titles of the tiebreaks ``names`` in ``lang`` (``en`` for an unknown language)."""
    key = lang if lang in ("ja", "en") else "en"
    return [find_tiebreak(n).titles[key] for n in names]
