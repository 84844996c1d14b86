"""Knockout: single elimination (a fixed bracket, or re-drawn every round), or double elimination.

Every draw comes from the league's published seed by :mod:`app.formats.seeding` (SHA-256 draw
keys), so anyone can re-check it:

* **single elimination, fixed bracket** (default): the seeds are the active entries in draw
  order (``knockout-draw`` keys of round 1; option ``seeding = entry``: entry order). They are
  placed in a bracket of ``P`` slots (``P`` the next power of two) in the standard order that
  keeps seeds 1 and 2 apart until the final (for 8: 1 v 8, 4 v 5, 2 v 7, 3 v 6, see
  :func:`bracket_order`); the ``P - n`` highest seeds get a first-round bye. Later rounds pair the winners of neighbouring boards.
* **re-drawn every round** (``reseed_every_round``): each round the survivors are put in the
  order of their ``knockout-draw`` keys for that round and paired first v second, third v
  fourth, …; with an odd number one bye goes first, to the survivor with the fewest byes so far,
  the lowest ``knockout-bye`` key among them.
* **double elimination** (``double_elimination``; always re-drawn every round): an entry is out
  after its second loss. Each round pairs the entries without a loss among themselves (winners'
  bracket) and those with one loss among themselves (losers' bracket), each group drawn as
  above; when one entry is left in each, they meet in the grand final; if the losers' bracket
  entry wins it, both have one loss and they play once more.

A drawn battle is decided by the rule :meth:`Knockout.draw_rule` states: the greater HP margin
goes through; with an equal margin, the lower ``knockout-lot`` key of that round. An inactive
(disqualified) entry is not paired: its opponent has a bye (a walkover).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from app.formats.base import (
    Column,
    Decision,
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
    parse_bool,
    pending_round,
    register,
    tiebreaks_parser,
)
from app.formats.seeding import draw_lot, draw_order
from app.formats.tiebreaks import TIEBREAKS, ScoreTable, rank, tiebreak_titles

SEEDINGS = ("draw", "entry")


def _seeding(value: object) -> str:
    text = str(value).strip().lower()
    if text not in SEEDINGS:
        raise ValueError(f"expected one of {', '.join(SEEDINGS)}, got {value!r}")
    return text


SURVIVED_COLUMN = Column(
    "points", {"ja": "勝ち抜いた回戦数", "en": "rounds survived"}, {"ja": "勝抜", "en": "Rds"}
)
STATUS_COLUMN = Column(
    "status",
    {"ja": "状態", "en": "status"},
    {"ja": "状態", "en": "status"},
    "code",
    {
        "champion": {"ja": "優勝", "en": "champion"},
        "in": {"ja": "勝ち残り", "en": "still in"},
        "out": {"ja": "敗退", "en": "eliminated"},
    },
)
OUT_COLUMN = Column(
    "eliminated_in",
    {"ja": "敗退した回戦", "en": "eliminated in round"},
    {"ja": "敗退", "en": "out in"},
    "round",
)
LOSSES_COLUMN = Column("losses", {"ja": "敗数", "en": "losses"}, {"ja": "敗", "en": "L"})


def bracket_order(size: int) -> list[int]:
    """The seed numbers (1-based) of a bracket of ``size`` slots (a power of two) in slot order:
    ``[1, 2]``, ``[1, 4, 2, 3]``, ``[1, 8, 4, 5, 2, 7, 3, 6]``, … (seed ``s`` meets ``size + 1 -
    s`` in round 1; seeds 1 and 2 only in the final). Raises ``ValueError`` unless ``size`` is a
    power of two."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket size must be a power of two, got {size}")
    order = [1]
    while len(order) < size:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m + 1 - s)]
    return order


@register
class Knockout(Format):
    """Single elimination (fixed bracket or re-drawn each round) or double elimination.

    Options: ``seed`` (the published seed of every draw), ``reseed_every_round`` (bool, default
    false), ``double_elimination`` (bool, default false), ``seeding`` (``draw``: by the seeded
    draw, default; ``entry``: entry order is the seed order; for the fixed bracket),
    ``tiebreaks`` (among entries out in the same round; default none: they share the rank).
    """

    name: ClassVar[str] = "knockout"
    aliases: ClassVar[tuple[str, ...]] = ("ko", "elimination", "single-elimination", "トーナメント")
    titles: ClassVar[Mapping[str, str]] = {"ja": "勝ち抜きトーナメント", "en": "knockout"}
    decides_draws: ClassVar[bool] = True
    view: ClassVar[str] = "bracket"
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option(
            "reseed_every_round",
            parse_bool,
            False,
            {"ja": "毎回戦ごとに抽選し直す", "en": "draw every round anew"},
        ),
        Option(
            "double_elimination",
            parse_bool,
            False,
            {"ja": "ダブルエリミネーション（2敗で敗退）", "en": "out after two losses"},
        ),
        Option(
            "seeding",
            _seeding,
            "draw",
            {
                "ja": "シード順（draw: 抽選、entry: 登録順）",
                "en": "seed order (draw: seeded draw, entry: entry order)",
            },
        ),
        Option(
            "tiebreaks",
            tiebreaks_parser(TIEBREAKS),
            [],
            {
                "ja": "同じ回戦で敗退した者の順位決定方法",
                "en": "tiebreaks among entries out in the same round",
            },
        ),
    )

    @property
    def reseed(self) -> bool:
        """True when every round is drawn anew (always for double elimination)."""
        return bool(self._options["reseed_every_round"] or self._options["double_elimination"])

    @property
    def double(self) -> bool:
        """True for double elimination."""
        return bool(self._options["double_elimination"])

    def rounds_planned(self, n_entries: int) -> int | None:
        """``ceil(log2 n)`` for single elimination; ``None`` for double (it depends on the
        grand final)."""
        if self.double:
            return None
        if n_entries < 2:
            return 0
        return (n_entries - 1).bit_length()

    # -- columns ------------------------------------------------------------------------------

    def primary_column(self) -> Column:
        """Rounds survived (the knockout's primary score)."""
        return SURVIVED_COLUMN

    def detail_columns(self) -> tuple[Column, ...]:
        """The status (champion, still in, out), the round of elimination, and the losses in
        double elimination."""
        return (STATUS_COLUMN, OUT_COLUMN) + ((LOSSES_COLUMN,) if self.double else ())

    # -- decisions ----------------------------------------------------------------------------

    def decide(self, round_number: int, game: Game) -> Decision | None:
        """Who goes through ``game`` of round ``round_number``, or ``None`` without a result."""
        if game.b is None:
            return Decision(game.a, None, "bye")
        if game.result is None:
            return None
        a, b, res = game.a, game.b, game.result
        if res.winner is not None:
            w = a if res.winner == 0 else b
            return Decision(w, b if w == a else a, "win", res.margin)
        if res.margin != 0:
            w = a if res.margin > 0 else b
            return Decision(w, b if w == a else a, "margin", res.margin)
        w = draw_lot(self.seed, round_number, a, b)
        return Decision(w, b if w == a else a, "lot", res.margin)

    def draw_rule(self, lang: str) -> str:
        """The stated rule for drawn battles, in ``lang``, for reports."""
        if lang == "ja":
            return (
                "引き分けの場合はHP差（A側の最終HP−B側の最終HP）の大きい側が勝ち上がります。"
                "HP差も同じなら、公開シードによる抽選（SHA-256の抽選キーが小さい側）で決めます"
            )
        return (
            "A drawn battle is decided by the HP margin (A's final HP - B's): the greater "
            "margin goes through; with equal margins, the lot of the published seed (the "
            "lower SHA-256 draw key) decides"
        )

    def decision_text(self, decision: Decision, lang: str) -> str:
        """Why ``decision.winner`` went through, in ``lang`` (``{winner}``/``{loser}`` are left
        for the caller to fill with names)."""
        ja = {
            "win": "{winner}の勝利",
            "bye": "{winner}は不戦勝",
            "margin": "引き分け：HP差で{winner}が勝ち上がり",
            "lot": "引き分け・HP差も同じ：公開シードの抽選で{winner}が勝ち上がり",
        }
        en = {
            "win": "{winner} wins",
            "bye": "{winner} has a bye",
            "margin": "a draw: {winner} goes through on HP margin",
            "lot": "a draw with equal HP margins: {winner} goes through by the seeded lot",
        }
        return (ja if lang == "ja" else en)[decision.by]

    # -- state --------------------------------------------------------------------------------

    def _first_bracket(self, active: Sequence[int]) -> list[int | None]:
        seeds = (
            list(active)
            if self._options["seeding"] == "entry"
            else draw_order(self.seed, "knockout-draw", 1, active)
        )
        size = 1
        while size < len(seeds):
            size *= 2
        return [seeds[s - 1] if s <= len(seeds) else None for s in bracket_order(size)]

    def _replay(self, entries: Sequence[int], history: Sequence[Round], out: set[int]) -> _State:
        """Losses, byes and (fixed bracket) the current bracket after ``history``."""
        losses: dict[int, int] = {e: 0 for e in entries}
        byes: dict[int, int] = {e: 0 for e in entries}
        out_round: dict[int, int] = {}
        decisions: list[list[Decision]] = []
        for rnd in history:
            ds: list[Decision] = []
            for g in rnd.games:
                d = self.decide(rnd.number, g)
                if d is None:
                    continue
                ds.append(d)
                if d.loser is None:
                    byes[d.winner] += 1
                else:
                    losses[d.loser] += 1
                    if losses[d.loser] >= (2 if self.double else 1):
                        out_round.setdefault(d.loser, rnd.number)
            decisions.append(ds)
        bracket: list[int | None] | None = None
        if not self.reseed and history:
            first_active = [e for e in entries if not _paired_late(e, history)]
            bracket = self._first_bracket(first_active)
            for ds in decisions:
                through = {d.winner for d in ds}
                nxt: list[int | None] = []
                for i in range(0, len(bracket), 2):
                    pair = [x for x in bracket[i : i + 2] if x is not None]
                    nxt.append(next((x for x in pair if x in through), None))
                bracket = nxt
        return _State(losses, byes, out_round, bracket)

    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        check_history(entries, history)
        waiting = pending_round(history)
        if waiting is not None:
            return waiting
        out = set(inactive)
        st = self._replay(entries, history, out)
        limit = 2 if self.double else 1
        alive = [e for e in entries if e not in out and st.losses[e] < limit]
        if len(alive) < 2:
            if not history and len([e for e in entries if e not in out]) < 2:
                return Finished("too-few-entries")
            return Finished("champion" if alive else "too-few-entries")
        k = len(history) + 1
        if self.double:
            return self._double_round(k, alive, st)
        if self.reseed:
            return RoundPairings(
                k, _boards(self._drawn(k, alive, st.byes)), "final" if len(alive) == 2 else ""
            )
        bracket = st.bracket if st.bracket is not None else self._first_bracket(alive)
        pairs: list[tuple[int, int | None]] = []
        for i in range(0, len(bracket), 2):
            slot = [x for x in bracket[i : i + 2] if x is not None and x not in out]
            if len(slot) == 2:
                pairs.append((slot[0], slot[1]))
            elif slot:
                pairs.append((slot[0], None))
        return RoundPairings(k, _boards(pairs), "final" if len(bracket) == 2 else "")

    def _drawn(
        self, k: int, group: Sequence[int], byes: Mapping[int, int]
    ) -> list[tuple[int, int | None]]:
        rest = list(group)
        pairs: list[tuple[int, int | None]] = []
        bye: int | None = None
        if len(rest) % 2:
            fewest = min(byes[e] for e in rest)
            bye = draw_order(self.seed, "knockout-bye", k, [e for e in rest if byes[e] == fewest])[
                0
            ]
            rest.remove(bye)
        order = draw_order(self.seed, "knockout-draw", k, rest)
        pairs += [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
        if bye is not None:
            pairs.append((bye, None))
        return pairs

    def _double_round(self, k: int, alive: Sequence[int], st: _State) -> RoundPairings:
        winners = [e for e in alive if st.losses[e] == 0]
        losers = [e for e in alive if st.losses[e] == 1]
        if len(winners) == 1 and len(losers) == 1:
            return RoundPairings(k, _boards([(winners[0], losers[0])]), "grand-final")
        if not winners and len(losers) == 2:
            return RoundPairings(k, _boards([(losers[0], losers[1])]), "grand-final-reset")
        pairs: list[tuple[int, int | None]] = []
        for group in (winners, losers):
            if len(group) >= 2:
                pairs += self._drawn(k, group, st.byes)
            elif group:
                pairs.append((group[0], None))
        return RoundPairings(k, _boards(pairs))

    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: object = None,
    ) -> Standings:
        """Ranked by rounds survived (the champion first, then the finalist, the entries out in
        the semifinals sharing third place, …); ``detail``: ``status`` (``champion``, ``in``,
        ``out``), ``eliminated_in`` (round or ``None``), ``losses``."""
        check_history(entries, history)
        out = set(inactive)
        st = self._replay(entries, history, out)
        table = ScoreTable.build(
            entries, history, Points(Fraction(1), Fraction(0), Fraction(0)), inactive=out
        )
        nxt = self.next_round(entries, history, inactive=out)
        finished = isinstance(nxt, Finished) and nxt.reason == "champion"
        survived: dict[int, Fraction] = {}
        detail: dict[int, dict[str, object]] = {}
        for e in table.entries:
            r = st.out_round.get(e)
            survived[e] = Fraction(len(history) if r is None else r - 1)
            status = "out" if r is not None else ("champion" if finished else "in")
            detail[e] = {"status": status, "eliminated_in": r, "losses": st.losses[e]}
        rows = rank(table, self.tiebreaks, primary=survived, detail=detail)
        return Standings(tuple(rows), self.tiebreaks)

    def describe(self, lang: str) -> list[str]:
        seed = self.seed or "（なし）" if lang == "ja" else self.seed or "(none)"
        tbs = tiebreak_titles(self.tiebreaks, lang)
        if lang == "ja":
            kind = (
                "ダブルエリミネーション（2敗で敗退）" if self.double else "シングルエリミネーション"
            )
            how = (
                "各回戦の組み合わせは生き残りの中から公開シードで毎回抽選します"
                if self.reseed
                else "組み合わせ表は第1回戦の前に公開シードで抽選し、以後は隣の勝者同士が当たります"
            )
            lines = [
                f"勝ち抜きトーナメント：{kind}",
                how,
                f"公開シード：{seed}（抽選キー＝SHA-256(シード/目的/回戦/参加番号)）",
                self.draw_rule("ja"),
            ]
            if tbs:
                lines.append("同じ回戦で敗退した者の順位：" + "、".join(tbs))
            return lines
        kind = "double elimination (out after two losses)" if self.double else "single elimination"
        how = (
            "each round is drawn anew among the survivors by the published seed"
            if self.reseed
            else "the bracket is drawn by the published seed before round 1; winners of "
            "neighbouring boards meet next"
        )
        lines = [
            f"knockout: {kind}",
            how,
            f"published seed: {seed} (draw key = SHA-256(seed/purpose/round/entry))",
            self.draw_rule("en"),
        ]
        if tbs:
            lines.append("entries out in the same round are ranked by: " + ", ".join(tbs))
        return lines


@dataclass
class _State:
    losses: dict[int, int]
    byes: dict[int, int]
    out_round: dict[int, int]
    bracket: list[int | None] | None


def _paired_late(entry: int, history: Sequence[Round]) -> bool:
    """True when ``entry`` is not in round 1 (it was inactive when the bracket was drawn)."""
    return bool(history) and all(entry not in (g.a, g.b) for g in history[0].games)


def _boards(pairs: Sequence[tuple[int, int | None]]) -> tuple[Pairing, ...]:
    real = [p for p in pairs if p[1] is not None]
    byes = [p for p in pairs if p[1] is None]
    return tuple(Pairing(i, a, b) for i, (a, b) in enumerate(real + byes, start=1))
