"""Pure game rules, one subpackage per ruleset, behind one interface (``app.rules.base``).

Nothing in ``app.rules`` imports from the rest of ``app`` and nothing here does I/O, reads a clock
or touches a database (``tests/test_architecture.py`` enforces it). Code outside ``app.rules``
never imports a particular ruleset package: it asks :func:`find_ruleset` for the class of the name
stored with a league and speaks to the :class:`~app.rules.base.Ruleset` interface.

Adding a ruleset: one new package that defines a ``Ruleset`` subclass decorated with
``@register``, and one line in :data:`RULESET_MODULES` (``docs/architecture.md``).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from app.rules.base import RULESETS, Outcome, Ruleset, Sheet, lookup

#: the module of every ruleset, in the order offline commands try them when guessing a notation
#: (one module per line: each new ruleset adds one line)
RULESET_MODULES: tuple[str, ...] = (
    "app.rules.amaryllis",
    "app.rules.margaret",
    "app.rules.hundred",
    "app.rules.magicalized",
)

#: the ruleset of a league created without one (``League.ruleset``'s default)
DEFAULT_RULESET = "amaryllis"

__all__ = [
    "DEFAULT_RULESET",
    "RULESETS",
    "RULESET_MODULES",
    "Outcome",
    "Ruleset",
    "Sheet",
    "all_rulesets",
    "find_ruleset",
    "guess_ruleset",
    "league_ruleset",
    "ruleset",
]


def _load_all() -> None:
    for module in RULESET_MODULES:
        importlib.import_module(module)


def _module_rank(cls: type[Ruleset]) -> int:
    for i, module in enumerate(RULESET_MODULES):
        if cls.__module__ == module or cls.__module__.startswith(module + "."):
            return i
    return len(RULESET_MODULES)  # registered from elsewhere (a test): last


def all_rulesets() -> list[type[Ruleset]]:
    """Every ruleset class, in :data:`RULESET_MODULES` order (whatever order they were imported
    in); classes registered from other modules come last, in registration order."""
    _load_all()
    return sorted(RULESETS.values(), key=_module_rank)


def find_ruleset(name: str) -> type[Ruleset]:
    """The ruleset class called ``name`` or one of its aliases (case-insensitive).

    Raises ``ValueError`` listing the known names when there is none.
    """
    cls = lookup(name)
    if cls is None:
        _load_all()
        cls = lookup(name)
    if cls is None:
        raise ValueError(f"unknown ruleset {name!r} (known: {', '.join(sorted(RULESETS))})")
    return cls


def guess_ruleset(text: str) -> type[Ruleset] | None:
    """The ruleset whose notation ``text`` looks written in (``Ruleset.recognizes``), preferring
    one that reads it without an error, then :data:`RULESET_MODULES` order; ``None`` when none
    recognizes it."""
    claimed = [cls for cls in all_rulesets() if cls().recognizes(text)]
    for cls in claimed:
        if cls().parse_sheet(text).ok:
            return cls
    return claimed[0] if claimed else None


@lru_cache(maxsize=128)
def _instance(name: str, options: str) -> Ruleset:
    return find_ruleset(name)(json.loads(options))


def ruleset(name: str | None = None, options: Mapping[str, Any] | None = None) -> Ruleset:
    """The one door to the rules: the :class:`Ruleset` called ``name`` (a name or alias;
    ``None`` or ``""``: :data:`DEFAULT_RULESET`) holding the league ``options`` (a mapping or
    ``None``: the defaults). Instances are immutable, so they are cached by
    ``(name, options)``; every layer (league, mail, web, the offline commands) asks here.

    Raises ``ValueError`` for an unknown ruleset (listing the known ones) or an option the
    ruleset refuses (naming it)."""
    key = json.dumps(dict(options or {}), sort_keys=True, ensure_ascii=False, default=str)
    return _instance(find_ruleset(name or DEFAULT_RULESET).name, key)


def league_ruleset(league: Any) -> Ruleset:
    """:func:`ruleset` of anything with a ``ruleset`` name and ``options`` attributes (a league
    row, a read model): the game that league plays, with its options. Raises ``ValueError`` as
    :func:`ruleset` does."""
    return ruleset(getattr(league, "ruleset", None), getattr(league, "options", None) or None)
