"""Single and double round robin by Berger tables (the circle method), round by round.

Source: FIDE Handbook C.05, Annex 1 (Berger tables). With ``n`` seats (``n`` even) the last seat
stays in place and the others rotate by ``n / 2`` places each round; the fixed seat alternates
sides. An odd field gets a phantom seat; whoever meets it has the bye, so every entry has exactly
one bye per cycle. ``double`` plays the table twice, sides swapped in the second cycle. Seats are
the places in ``entries`` (seed order): seat 0 is ``entries[0]``. The pairings are exactly those of
``app.league.schedule`` (tested), so leagues keep their schedule when they switch to this format.

An inactive entry (disqualified) plays no more: its opponent of a later round has a bye instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import ClassVar

from app.formats.base import (
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
    parse_bool,
    parse_points,
    pending_round,
    register,
    tiebreaks_parser,
)
from app.formats.tiebreaks import TIEBREAKS, ScoreTable, rank, tiebreak_titles


def berger_rounds(n: int) -> int:
    """Rounds of one cycle for ``n`` seats: ``n - 1`` (even) or ``n`` (odd); 0 for ``n < 2``.
    Raises ``ValueError`` for ``n < 0``."""
    if n < 0:
        raise ValueError(f"negative number of entries: {n}")
    if n < 2:
        return 0
    return n + (n % 2) - 1


def berger_pairs(n: int, round_number: int) -> list[tuple[int, int | None]]:
    """Seat pairs ``(a, b)`` of round ``round_number`` (1-based, within one cycle) of ``n``
    seats: real boards in table order, then the bye ``(seat, None)`` for an odd ``n``.

    Raises ``ValueError`` for ``n < 2`` or a round out of ``1 .. berger_rounds(n)``.
    """
    total = berger_rounds(n)
    if n < 2:
        raise ValueError(f"a round robin needs at least 2 entries, got {n}")
    if not 1 <= round_number <= total:
        raise ValueError(f"round {round_number} out of range 1..{total}")
    seats = n + (n % 2)
    fixed = seats - 1
    half = seats // 2
    r = round_number - 1
    order = [(r * half + k) % (seats - 1) for k in range(seats - 1)]
    raw = [(order[0], fixed) if r % 2 == 0 else (fixed, order[0])]
    raw += [(order[i], order[seats - 1 - i]) for i in range(1, half)]
    boards: list[tuple[int, int | None]] = []
    bye: int | None = None
    for a, b in raw:
        if n % 2 and fixed in (a, b):
            bye = b if a == fixed else a
            continue
        boards.append((a, b))
    if bye is not None:
        boards.append((bye, None))
    return boards


RR_TIEBREAKS = ("head_to_head", "sonneborn_berger", "margin")


@register
class RoundRobin(Format):
    """Everyone meets everyone once (``double``: twice, sides swapped), by Berger tables.

    Options: ``double`` (bool, default false), ``points`` (``W/D/L``, default ``3/1/0``; a bye
    scores nothing), ``tiebreaks`` (default ``head_to_head, sonneborn_berger, margin``), ``seed``
    (unused). Rounds: ``n - 1`` (even ``n``) or ``n`` (odd), twice with ``double``.
    """

    name: ClassVar[str] = "round-robin"
    aliases: ClassVar[tuple[str, ...]] = ("roundrobin", "rr", "berger")
    titles: ClassVar[Mapping[str, str]] = {"ja": "総当たり戦", "en": "round robin"}
    pairs_at_close: ClassVar[bool] = True
    cross_table: ClassVar[bool] = True
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option(
            "double",
            parse_bool,
            False,
            {"ja": "2回総当たり（後半は先後入れ替え）", "en": "play the table twice"},
        ),
        Option(
            "points",
            parse_points,
            "3/1/0",
            {"ja": "勝ち／引き分け／負けの勝ち点", "en": "points per win/draw/loss"},
        ),
        Option(
            "tiebreaks",
            tiebreaks_parser(TIEBREAKS),
            list(RR_TIEBREAKS),
            {"ja": "同点時の順位決定方法（順に）", "en": "tiebreaks, in order"},
        ),
    )

    @property
    def double(self) -> bool:
        """True for a double round robin."""
        return bool(self._options["double"])

    @property
    def points(self) -> Points:
        """The W/D/L points."""
        return Points.parse(self._options["points"])

    def rounds_planned(self, n_entries: int) -> int:
        """``berger_rounds(n)``, twice with ``double``."""
        return berger_rounds(n_entries) * (2 if self.double else 1)

    @property
    def applies_rewrites(self) -> bool:
        """Only a double round robin applies rewrite requests (H58: a single one ignores
        them, since its pairs never meet again)."""
        return self.double

    def round_pairings(self, entries: Sequence[int], round_number: int) -> tuple[Pairing, ...]:
        """The full Berger pairings of round ``round_number`` (1-based, both cycles) as entry
        ids, before any inactive entry is taken out. Raises ``ValueError`` out of range."""
        n = len(entries)
        single = berger_rounds(n)
        if not 1 <= round_number <= self.rounds_planned(n):
            raise ValueError(f"round {round_number} out of range 1..{self.rounds_planned(n)}")
        second = round_number > single
        pairs = berger_pairs(n, round_number - single if second else round_number)
        out: list[Pairing] = []
        for board, (a, b) in enumerate(pairs, start=1):
            if b is None:
                out.append(Pairing(board, entries[a], None))
            elif second:
                out.append(Pairing(board, entries[b], entries[a]))
            else:
                out.append(Pairing(board, entries[a], entries[b]))
        return tuple(out)

    def schedule(self, entries: Sequence[int]) -> tuple[RoundPairings, ...]:
        """Every round of the Berger table(s) of ``entries`` (none for fewer than two)."""
        n = len(entries)
        if n < 2:
            return ()
        return tuple(
            RoundPairings(k, self.round_pairings(entries, k))
            for k in range(1, self.rounds_planned(n) + 1)
        )

    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        check_history(entries, history)
        waiting = pending_round(history)
        if waiting is not None:
            return waiting
        out = set(inactive)
        if len([e for e in entries if e not in out]) < 2:
            return Finished("too-few-entries")
        k = len(history) + 1
        if k > self.rounds_planned(len(entries)):
            return Finished("all-rounds-played")
        full = self.round_pairings(entries, k)
        if not out:
            return RoundPairings(k, full)
        real: list[tuple[int, int | None]] = []
        byes: list[tuple[int, int | None]] = []
        for p in full:
            if p.a in out and (p.b is None or p.b in out):
                continue
            if p.b is None:
                byes.append((p.a, None))
            elif p.a in out:
                byes.append((p.b, None))
            elif p.b in out:
                byes.append((p.a, None))
            else:
                real.append((p.a, p.b))
        return RoundPairings(
            k, tuple(Pairing(i, a, b) for i, (a, b) in enumerate(real + byes, start=1))
        )

    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: object = None,
    ) -> Standings:
        check_history(entries, history)
        table = ScoreTable.build(
            entries, history, self.points, bye_points=Fraction(0), inactive=inactive
        )
        return Standings(tuple(rank(table, self.tiebreaks)), self.tiebreaks)

    def describe(self, lang: str) -> list[str]:
        tbs = tiebreak_titles(self.tiebreaks, lang)
        if lang == "ja":
            return [
                "2回総当たり戦（ベルガー表）" if self.double else "総当たり戦（ベルガー表）",
                f"勝ち点 {self.points}（勝ち／引き分け／負け）。不戦（奇数時の休み）は0点",
                "各回戦の組み合わせは登録順の席によるベルガー表で、開始時に決まっています",
                "同点時：" + ("、".join(tbs) if tbs else "同順位"),
            ]
        return [
            "double round robin (Berger tables)" if self.double else "round robin (Berger tables)",
            f"points {self.points} (win/draw/loss); a bye scores nothing",
            "every round is paired by the Berger table of the seats (entry order), "
            "known from the start",
            "ties: " + (", ".join(tbs) if tbs else "shared rank"),
        ]
