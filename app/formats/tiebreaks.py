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
    the sum of the final points of every opponent met, per game; a bye counts as a game against
    an opponent with the entry's own final points (the "dummy opponent" of the FIDE tie-break
    regulations of 2023).
``buchholz_cut1``
    Buchholz without its lowest term.
``margin``
    the sum over all games of the entry's HP margin (own final HP − the opponent's).
``wins``
    the number of games won.

Higher is better for every tiebreak. Entries equal on the primary score and every tiebreak share
a rank (standard competition ranking: 1, 2, 2, 4) and keep seed order. Source for the first and
the last two: the league's standings since issue #3 (``docs/league.md``); Buchholz and
Sonneborn-Berger: FIDE Handbook C.07.
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


@dataclass
class ScoreTable:
    """Per-entry scores of a history, the input of every tiebreak.

    Attributes:
        entries: the ranked entries in seed order.
        points: total points per entry (games and byes).
        games: the games per entry (only games between two entries of ``entries``).
        byes: the number of byes per entry.
    """

    entries: tuple[int, ...]
    points: dict[int, Fraction] = field(default_factory=dict)
    games: dict[int, list[GameRecord]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)

    @classmethod
    def build(cls, entries: Sequence[int], history: Iterable[Round], points: Points, *,
              bye_points: Fraction = ZERO, inactive: Iterable[int] = ()) -> ScoreTable:
        """The table of ``history`` scored by ``points``; a bye earns ``bye_points``.

        Games with an entry that is not in ``entries`` or is ``inactive`` are ignored (a
        disqualification voids every game of the entry); games without a result are skipped.
        """
        out = set(inactive)
        ranked = tuple(e for e in entries if e not in out)
        known = set(ranked)
        games: dict[int, list[GameRecord]] = {e: [] for e in ranked}
        byes = {e: 0 for e in ranked}
        counts = {e: [0, 0, 0] for e in ranked}  # wins, draws, losses
        pw, pd, pl = points.win, points.draw, points.loss
        for rnd in history:
            n = rnd.number
            for g in rnd.games:
                a, b = g.pairing.a, g.pairing.b
                if b is None:
                    if a in known:
                        byes[a] += 1
                    continue
                res = g.result
                if res is None or a not in known or b not in known or a == b:
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
        pts = {e: pw * c[0] + pd * c[1] + pl * c[2] + bye_points * byes[e]
               for e, c in counts.items()}
        return cls(ranked, pts, games, byes)

    def add(self, round_number: int, me: int, opponent: int, score: Fraction, margin: int,
            points: Fraction) -> None:
        """Record one side of a game (both sides are recorded separately)."""
        self.games[me].append(GameRecord(round_number, opponent, score, margin, points,
                                         int(score * 2)))
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
    scale = 2 * lcm(1, *(p.denominator for p in table.points.values()))
    return {e: int(p * scale) for e, p in table.points.items()}, scale


def _sonneborn_berger(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    ip, scale = _scaled_points(table)
    out: dict[int, Fraction] = {}
    for e in group:
        won = sum(ip[g.opponent] for g in table.games[e] if g.halves == 2)
        drawn = sum(ip[g.opponent] for g in table.games[e] if g.halves == 1)
        out[e] = Fraction(2 * won + drawn, 2 * scale)
    return out


def _buchholz_terms(table: ScoreTable, ip: Mapping[int, int], e: int) -> list[int]:
    return [ip[g.opponent] for g in table.games[e]] + [ip[e]] * table.byes[e]


def _buchholz(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    ip, scale = _scaled_points(table)
    return {e: Fraction(sum(_buchholz_terms(table, ip, e)), scale) for e in group}


def _buchholz_cut1(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    ip, scale = _scaled_points(table)
    out: dict[int, Fraction] = {}
    for e in group:
        terms = _buchholz_terms(table, ip, e)
        out[e] = Fraction(sum(terms) - (min(terms) if terms else 0), scale)
    return out


def _margin(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    return {e: Fraction(sum(g.margin for g in table.games[e])) for e in group}


def _wins(table: ScoreTable, group: Sequence[int]) -> dict[int, Fraction]:
    return {e: Fraction(table.wins(e)) for e in group}


TIEBREAKS: dict[str, Tiebreak] = {t.name: t for t in (
    Tiebreak("head_to_head", {"ja": "直接対決", "en": "head-to-head"},
             {"ja": "直接", "en": "H2H"}, _head_to_head, grouped=True),
    Tiebreak("sonneborn_berger", {"ja": "ゾンネボルン・ベルガー", "en": "Sonneborn-Berger"},
             {"ja": "SB", "en": "SB"}, _sonneborn_berger),
    Tiebreak("buchholz", {"ja": "ブッフホルツ", "en": "Buchholz"},
             {"ja": "Bu", "en": "Bu"}, _buchholz),
    Tiebreak("buchholz_cut1", {"ja": "ブッフホルツ（最低1除外）", "en": "Buchholz cut 1"},
             {"ja": "Bu-1", "en": "Bu-1"}, _buchholz_cut1),
    Tiebreak("margin", {"ja": "HP差", "en": "HP margin"},
             {"ja": "HP差", "en": "HP"}, _margin),
    Tiebreak("wins", {"ja": "勝数", "en": "wins"},
             {"ja": "勝", "en": "W"}, _wins),
)}
"""Every tiebreak by name."""

TIEBREAK_COLUMNS.update({t.name: Column(t.name, t.titles, t.short,
                                        "signed" if t.name == "margin" else "number")
                         for t in TIEBREAKS.values()})


def find_tiebreak(name: str) -> Tiebreak:
    """The tiebreak called ``name``. Raises ``ValueError`` listing the known names."""
    key = name.strip().lower().replace("-", "_")
    if key not in TIEBREAKS:
        raise ValueError(f"unknown tiebreak {name!r} (known: {', '.join(TIEBREAKS)})")
    return TIEBREAKS[key]


def rank(table: ScoreTable, tiebreaks: Sequence[str], *,
         primary: Mapping[int, Fraction] | None = None,
         detail: Mapping[int, Mapping[str, Any]] | None = None) -> list[StandingRow]:
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
        rows.append(StandingRow(
            entry=e, rank=first[k], shared=counts[k] > 1,
            played=len(table.games[e]), wins=table.wins(e), draws=table.draws(e),
            losses=table.losses(e), byes=table.byes[e], points=prim[e],
            tiebreaks=tuple(zip(tiebreaks, keys[e][1:], strict=True)),
            detail=dict((detail or {}).get(e, {})),
        ))
    return rows


def tiebreak_column(name: str) -> Column:
    """The standings column of tiebreak ``name`` (its titles and short header). Raises
    ``ValueError`` for an unknown name."""
    return TIEBREAK_COLUMNS[find_tiebreak(name).name]


def tiebreak_titles(names: Iterable[str], lang: str) -> list[str]:
    """The titles of the tiebreaks ``names`` in ``lang`` (``en`` for an unknown language)."""
    key = lang if lang in ("ja", "en") else "en"
    return [find_tiebreak(n).titles[key] for n in names]
