"""Accumulating round robin (「プロフェシー」): ``updates`` updates, each a full round robin.

At every update every active entry plays every other once (one round of the history holds the
whole update: ``n (n - 1) / 2`` boards, pairs in seed order, the earlier entry on side A). Between
updates players may replace their unit (the league fights the entry's active sheet; the format
only sees entry ids) and new entries may join (they score from their first update on). Each
update's points are added up; the standings show each update's points and the total.

Points (option ``points``):

* ``W/D/L`` (default ``3/1/0``): league points per game;
* ``win-rate`` ("as in the draw server's rooms"): in each update, an entry's *win rate* is
  ``(wins + draws / 2) / games`` of that update, and an entry scores, for every unit it beat,
  that unit's win rate (half of it for a draw: the project's ruling, as Sonneborn-Berger counts
  draws). Beating a strong unit is worth more than beating a weak one.

Tiebreaks (default ``wins, margin``) are computed over all updates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from app.formats.base import (
    REQUIRED,
    Column,
    Finished,
    Format,
    NextRound,
    Option,
    Pairing,
    Points,
    Round,
    RoundPairings,
    Standings,
    check_history,
    fraction_json,
    int_parser,
    parse_points,
    pending_round,
    register,
    tiebreaks_parser,
)
from app.formats.tiebreaks import HALF, ONE, TIEBREAKS, ZERO, ScoreTable, rank, tiebreak_titles

ACC_TIEBREAKS = ("wins", "margin")
UPDATES_COLUMN = Column(
    "updates",
    {"ja": "各更新の得点", "en": "points per update"},
    {"ja": "更新ごと", "en": "updates"},
    "list",
)
WIN_RATE = "win-rate"


def _acc_points(value: Any) -> str:
    text = str(value).strip().lower().replace("_", "-")
    if text in (WIN_RATE, "winrate", "rooms"):
        return WIN_RATE
    return parse_points(value)


@register
class Accumulating(Format):
    """Accumulating round robin over ``updates`` updates (see the module docstring).

    Options: ``updates`` (required, 1..1000), ``points`` (``W/D/L``, default ``3/1/0``, or
    ``win-rate``), ``tiebreaks`` (default ``wins, margin``), ``seed`` (unused). Standings
    ``detail["updates"]``: the points of each update (``None`` for an update the entry was not
    in), JSON numbers.
    """

    name: ClassVar[str] = "accumulating"
    aliases: ClassVar[tuple[str, ...]] = ("accumulating-round-robin", "prophecy", "プロフェシー")
    titles: ClassVar[Mapping[str, str]] = {"ja": "累積総当たり戦", "en": "accumulating round robin"}
    replaces_between_rounds: ClassVar[bool] = True
    all_play_all: ClassVar[bool] = True
    cross_table: ClassVar[bool] = True
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option(
            "updates",
            int_parser(1, 1000),
            REQUIRED,
            {"ja": "更新（総当たり）の回数", "en": "number of updates"},
        ),
        Option(
            "points",
            _acc_points,
            "3/1/0",
            {"ja": "勝ち点（W/D/L または win-rate）", "en": "points: W/D/L or win-rate"},
        ),
        Option(
            "tiebreaks",
            tiebreaks_parser(TIEBREAKS),
            list(ACC_TIEBREAKS),
            {"ja": "同点時の順位決定方法（順に）", "en": "tiebreaks, in order"},
        ),
    )

    @property
    def updates(self) -> int:
        """The number of updates."""
        return int(self._options["updates"])

    @property
    def win_rate(self) -> bool:
        """True for the draw server's win-rate points."""
        return bool(self._options["points"] == WIN_RATE)

    def rounds_planned(self, n_entries: int) -> int:
        """``updates`` (each update is one round of the history)."""
        return self.updates if n_entries >= 2 else 0

    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        check_history(entries, history)
        waiting = pending_round(history)
        if waiting is not None:
            return waiting
        out = set(inactive)
        active = [e for e in entries if e not in out]
        if len(history) >= self.updates:
            return Finished("all-rounds-played")
        if len(active) < 2:
            return Finished("too-few-entries")
        pairs = [
            (active[i], active[j]) for i in range(len(active)) for j in range(i + 1, len(active))
        ]
        return RoundPairings(
            len(history) + 1, tuple(Pairing(k, a, b) for k, (a, b) in enumerate(pairs, 1)), "update"
        )

    def update_points(
        self, entries: Sequence[int], rnd: Round, *, inactive: Iterable[int] = ()
    ) -> dict[int, Fraction]:
        """The points of one update per entry that played in it (games with an inactive entry
        are void)."""
        out = set(inactive)
        table = ScoreTable.build(entries, [rnd], self._game_points(), inactive=out)
        played = {e for e in table.entries if table.games[e]}
        if not self.win_rate:
            return {e: table.points[e] for e in played}
        rate = {
            e: sum((g.score for g in table.games[e]), ZERO) / len(table.games[e]) for e in played
        }
        return {
            e: sum(
                (
                    rate[g.opponent] * (ONE if g.halves == 2 else HALF)
                    for g in table.games[e]
                    if g.halves
                ),
                ZERO,
            )
            for e in played
        }

    def _game_points(self) -> Points:
        if self.win_rate:
            return Points(ONE, HALF, ZERO)
        return Points.parse(self._options["points"])

    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: object = None,
    ) -> Standings:
        """Ranked by the total of the update points, then the tiebreaks over all updates."""
        check_history(entries, history)
        out = set(inactive)
        per_update = [self.update_points(entries, rnd, inactive=out) for rnd in history]
        table = ScoreTable.build(entries, history, self._game_points(), inactive=out)
        total = {e: sum((u.get(e, ZERO) for u in per_update), ZERO) for e in table.entries}
        if self.win_rate:
            # Sonneborn-Berger and Buchholz read the opponents' totals: the win-rate points
            # (head-to-head counts the game scores 1, 1/2, 0 among the tied)
            for e in table.entries:
                table.points[e] = total[e]
        detail = {
            e: {"updates": [fraction_json(u[e]) if e in u else None for u in per_update]}
            for e in table.entries
        }
        rows = rank(table, self.tiebreaks, primary=total, detail=detail)
        return Standings(tuple(rows), self.tiebreaks)

    def detail_columns(self) -> tuple[Column, ...]:
        """The points of each update, in order (``-`` where the entry did not play)."""
        return (UPDATES_COLUMN,)

    def describe(self, lang: str) -> list[str]:
        tbs = tiebreak_titles(self.tiebreaks, lang)
        pts = self._options["points"]
        if lang == "ja":
            scoring = (
                "得点：各更新で倒した相手の勝率の合計（引き分けは半分）"
                if self.win_rate
                else f"勝ち点 {pts}（勝ち／引き分け／負け）"
            )
            return [
                f"累積総当たり戦：全{self.updates}回の更新",
                "各更新で、その時点の全ユニットが総当たりで1戦ずつ戦います。"
                "更新の間にユニットを差し替えられます",
                scoring + "。各更新の得点を合計します",
                "同点時：" + ("、".join(tbs) if tbs else "同順位"),
            ]
        scoring = (
            "points: the sum of the win rates of the units beaten in each update (half for a draw)"
            if self.win_rate
            else f"points {pts} (win/draw/loss)"
        )
        return [
            f"accumulating round robin: {self.updates} updates",
            "at each update every current unit plays every other once; units may be "
            "replaced between updates",
            scoring + "; the points of all updates are added up",
            "ties: " + (", ".join(tbs) if tbs else "shared rank"),
        ]
