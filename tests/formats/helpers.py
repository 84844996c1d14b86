"""Drive a format to its end with results from a callback, as the league layer will."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from app.formats.base import Format, NextRound, NotYet, Pairing, Result, Round, RoundPairings
from app.formats.round_robin import RoundRobin

Fight = Callable[[int, Pairing], Result]


def play(
    fmt: Format,
    entries: Sequence[int],
    fight: Fight,
    *,
    inactive: Iterable[int] = (),
    max_rounds: int = 500,
) -> tuple[list[Round], NextRound]:
    """Ask ``fmt`` for rounds until it stops pairing; ``fight(round, pairing)`` gives each
    battle's result. Also checks that asking twice gives the same answer (crash safety)."""
    out = set(inactive)
    history: list[Round] = []
    for _ in range(max_rounds):
        answer = fmt.next_round(entries, history, inactive=out)
        assert fmt.next_round(entries, history, inactive=out) == answer
        if not isinstance(answer, RoundPairings):
            return history, answer
        assert answer.round == len(history) + 1
        unplayed = answer.to_round()  # stored, not fought yet: the format must wait
        if not unplayed.complete:
            assert fmt.next_round(entries, [*history, unplayed], inactive=out) == NotYet(
                "results-pending", answer.round, unplayed.pending
            )
        history.append(
            answer.to_round(
                {p.board: fight(answer.round, p) for p in answer.pairings if p.b is not None}
            )
        )
    raise AssertionError("the format never stopped")


class Seat(NamedTuple):
    """A board of the schedule with seats for entries (0-based), as the FIDE tables list it."""

    round: int
    board: int
    a: int
    b: int | None

    @property
    def is_bye(self) -> bool:
        return self.b is None


def berger_schedule(n: int, *, double: bool = False) -> list[list[Seat]]:
    """The format's whole schedule of ``n`` seats (entry ids 0..n-1 are the seats)."""
    return [
        [Seat(r.round, p.board, p.a, p.b) for p in r.pairings]
        for r in RoundRobin({"double": double}).schedule(list(range(n)))
    ]


def rounds_count(n: int, *, double: bool = False) -> int:
    """The rounds of a round robin of ``n`` entries (twice with ``double``)."""
    return RoundRobin({"double": double}).rounds_planned(n)
