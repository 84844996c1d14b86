"""Seeded draws anyone can re-check: SHA-256 of the published seed, the purpose, the round and
the entry.

A format that needs chance (a knockout's draw and byes, the lot that decides a drawn knockout
battle with equal HP) never uses a random number generator. Each entry ``e`` gets a **draw key**
for a purpose and a round::

    key(e) = SHA-256( UTF-8( f"{seed}/{purpose}/{round}/{e}" ) )   as a 64-digit hex string

and a draw orders entries by ascending key (the entry id breaks a tie, which SHA-256 makes
practically impossible). ``seed`` is the league's published seed (``League.seed``), ``purpose``
one of :data:`PURPOSES`, ``round`` the 1-based round number, ``e`` the entry id in decimal. So the
draw of round 2 of a league whose seed is ``spring-2026`` puts entry 17 where the key

    printf '%s' 'spring-2026/knockout-draw/2/17' | sha256sum

puts it among the others (``docs/formats.md``, "Seeded draws").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

#: the purposes of draws (the second part of the keyed text)
PURPOSES: tuple[str, ...] = ("knockout-draw", "knockout-bye", "knockout-lot")


def draw_key(seed: str, purpose: str, round_number: int, entry: int) -> str:
    """The draw key of ``entry``: the SHA-256 hex digest of ``f"{seed}/{purpose}/{round}/{entry}"``
    (UTF-8). Raises ``ValueError`` for an unknown purpose."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown draw purpose {purpose!r} (known: {', '.join(PURPOSES)})")
    text = f"{seed}/{purpose}/{round_number}/{entry}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw_order(seed: str, purpose: str, round_number: int, entries: Iterable[int]) -> list[int]:
    """``entries`` in ascending order of their draw keys (ties, never seen, by entry id)."""
    return sorted(entries, key=lambda e: (draw_key(seed, purpose, round_number, e), e))


def draw_lot(seed: str, round_number: int, a: int, b: int) -> int:
    """The winner of the lot between ``a`` and ``b`` in round ``round_number``: the one with the
    lower ``knockout-lot`` key."""
    return draw_order(seed, "knockout-lot", round_number, (a, b))[0]
