"""Round-robin scheduling by Berger tables (the circle method), with a bye for an odd field.

Pure functions: no database, no clock. Seats are 0-based places in the table, fixed when entries
close (see ``app.league.service.close_entries``). Source: the FIDE Berger tables (FIDE Handbook
C.05, Annex 1): for an even field of ``n`` seats, seat ``n - 1`` stays in place and the other
seats rotate by ``n / 2`` places each round; the fixed seat alternates sides (colours). With an
odd field, a phantom seat is added and whoever meets it has the *bye* that round, so every entry
has exactly one bye per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of one round.

    Attributes:
        round: the 1-based round number (cycle 2 of a double round-robin continues the numbering).
        board: the 1-based board number within the round (the bye, if any, is the last board).
        a: seat on side A (the first sheet in the battle).
        b: seat on side B, or ``None`` when ``a`` has the bye.
    """

    round: int
    board: int
    a: int
    b: int | None

    @property
    def is_bye(self) -> bool:
        """True when this board is a bye (no opponent)."""
        return self.b is None


def rounds_count(n: int, *, double: bool = False) -> int:
    """Number of rounds for ``n`` entries: ``n - 1`` (even n) or ``n`` (odd n), twice if double.

    Raises ``ValueError`` when ``n < 0``. Zero or one entry needs no round.
    """
    if n < 0:
        raise ValueError(f"negative number of entries: {n}")
    if n < 2:
        return 0
    seats = n + (n % 2)
    return (seats - 1) * (2 if double else 1)


def berger_round(n: int, round_number: int) -> list[Pairing]:
    """The pairings of one round of a single round-robin of ``n`` seats (Berger table).

    ``round_number`` is 1-based, in ``1 .. rounds_count(n)``. Returns real boards first in
    table order, then the bye (if ``n`` is odd). Raises ``ValueError`` for ``n < 2`` or a round
    out of range.
    """
    total = rounds_count(n)
    if n < 2:
        raise ValueError(f"a round-robin needs at least 2 entries, got {n}")
    if not 1 <= round_number <= total:
        raise ValueError(f"round {round_number} out of range 1..{total}")
    seats = n + (n % 2)  # the phantom seat (index n when n is odd) is the fixed one
    fixed = seats - 1
    half = seats // 2
    r = round_number - 1
    order = [(r * half + k) % (seats - 1) for k in range(seats - 1)]
    raw: list[tuple[int, int]] = []
    # board 1: the fixed seat against order[0]; the fixed seat takes side B in odd rounds
    raw.append((order[0], fixed) if r % 2 == 0 else (fixed, order[0]))
    for i in range(1, half):
        raw.append((order[i], order[seats - 1 - i]))
    boards: list[Pairing] = []
    bye: int | None = None
    for a, b in raw:
        if n % 2 and fixed in (a, b):
            bye = b if a == fixed else a
            continue
        boards.append(Pairing(round_number, len(boards) + 1, a, b))
    if bye is not None:
        boards.append(Pairing(round_number, len(boards) + 1, bye, None))
    return boards


def berger_schedule(n: int, *, double: bool = False) -> list[list[Pairing]]:
    """The whole schedule for ``n`` seats: a list of rounds, each a list of :class:`Pairing`.

    With ``double``, the second cycle repeats the first with sides swapped (rounds
    ``k + rounds_count(n)``). Returns ``[]`` for fewer than 2 entries. Raises ``ValueError``
    for ``n < 0``.
    """
    single = rounds_count(n)
    if single == 0:
        return []
    rounds = [berger_round(n, r) for r in range(1, single + 1)]
    if double:
        for r, boards in enumerate(list(rounds), start=single + 1):
            rounds.append([
                Pairing(r, p.board, p.a, p.b) if p.b is None else Pairing(r, p.board, p.b, p.a)
                for p in boards
            ])
    return rounds
