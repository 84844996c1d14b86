"""Pure tournament formats behind one interface (``app.formats.base.Format``).

Nothing in ``app.formats`` imports from the rest of ``app`` except the outcome types of
``app.rules.base``, and nothing here does I/O, reads a clock or touches a database
(``tests/formats/test_architecture.py``). The league layer asks :func:`find_format` for the class
of the name stored with a league and speaks to the :class:`~app.formats.base.Format` interface
(``docs/formats.md``: "How the league layer drives a format").

Adding a format: one new module that defines a ``Format`` subclass decorated with ``@register``,
and one line in :data:`FORMAT_MODULES`.
"""

from __future__ import annotations

import importlib

from app.formats.base import (
    FORMATS,
    Column,
    Decision,
    EntryUpdate,
    Finished,
    Format,
    Game,
    NextRound,
    NotYet,
    Pairing,
    Points,
    PushedOff,
    Result,
    Round,
    RoundPairings,
    StandingRow,
    Standings,
    lookup,
)

#: the module of every format, in the order ``all_formats`` lists them
FORMAT_MODULES: tuple[str, ...] = (
    "app.formats.round_robin",
    "app.formats.swiss",
    "app.formats.knockout",
    "app.formats.hill",
    "app.formats.accumulating",
)

#: the format of a league created without one (``League.format``'s default)
DEFAULT_FORMAT = "round-robin"

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "FORMAT_MODULES",
    "Column",
    "Decision",
    "EntryUpdate",
    "Finished",
    "Format",
    "Game",
    "NextRound",
    "NotYet",
    "Pairing",
    "Points",
    "PushedOff",
    "Result",
    "Round",
    "RoundPairings",
    "StandingRow",
    "Standings",
    "all_formats",
    "find_format",
]


def _load_all() -> None:
    for module in FORMAT_MODULES:
        importlib.import_module(module)


def all_formats() -> list[type[Format]]:
    """Every format class, in :data:`FORMAT_MODULES` order."""
    _load_all()
    order = {m: i for i, m in enumerate(FORMAT_MODULES)}
    return sorted(FORMATS.values(), key=lambda c: order.get(c.__module__, len(order)))


def find_format(name: str) -> type[Format]:
    """The format class called ``name`` or one of its aliases (case-insensitive).

    Raises ``ValueError`` listing the known names when there is none.
    """
    cls = lookup(name)
    if cls is None:
        _load_all()
        cls = lookup(name)
    if cls is None:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(sorted(FORMATS))})")
    return cls
