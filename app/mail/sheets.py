"""Where the mail layer meets the game rules: ONE function, :func:`rules`, and what is built on it.

Every use of the rules in ``app/mail`` goes through :func:`rules` (a league's
:class:`~app.rules.base.Ruleset` with its options, from ``app.rules.league_ruleset``) and
:func:`starts_sheet` (does a line start a sheet: ``Ruleset.starts_sheet``). Nothing here knows a
notation: a ruleset's hooks decide. Without a league (the grammar reads a mail before it knows
which league the mail is about), a line starts a sheet when it starts one in *any* registered
ruleset, so a Margaret compact line (``15/0/1/2/速熱衝絶/徘徊するライカ``) is never read as a
command either.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from app.rules import Ruleset, all_rulesets, guess_ruleset, league_ruleset, ruleset


def rules(league: Any = None) -> Ruleset:
    """The ruleset the mail layer reads sheets of ``league`` with (``league.ruleset`` with
    ``league.options``, through the one door ``app.rules.league_ruleset``), the default ruleset
    for ``None``."""
    return ruleset() if league is None else league_ruleset(league)


@lru_cache(maxsize=1)
def _every() -> tuple[Ruleset, ...]:
    return tuple(cls() for cls in all_rulesets())


def starts_sheet(line: str, league: Any = None) -> bool:
    """True when ``line`` starts a sheet: of ``league``'s ruleset, or (``league=None``) of any
    registered ruleset (``Ruleset.starts_sheet``, linear in the length of the line). Such a line
    is never a command line nor a password line: ``Test Pilot: 10/1/1/2/G`` is a unit named
    "Test Pilot", not the ``test`` command."""
    if league is not None:
        return rules(league).starts_sheet(line)
    return any(rs.starts_sheet(line) for rs in _every())


def looks_like_sheet(text: str, league: Any = None) -> bool:
    """True when some line of ``text`` starts a sheet (:func:`starts_sheet`)."""
    return any(starts_sheet(line, league) for line in text.split("\n"))


def reading_ruleset(text: str, league: Any = None) -> Ruleset:
    """The ruleset a sheet is read with: ``league``'s when there is one (the league decides),
    else the ruleset whose notation ``text`` is written in (``guess_ruleset``), else the
    default."""
    if league is not None:
        return rules(league)
    guessed = guess_ruleset(text)
    return ruleset(guessed.name) if guessed is not None else rules(None)


def other_ruleset(text: str, league: Any) -> type[Ruleset] | None:
    """The ruleset ``text`` is written in when it is not ``league``'s: the guessed ruleset
    (``guess_ruleset``), provided the league's own ruleset does not read ``text`` without an
    error and does not recognize it as written in its own notation (``Ruleset.recognizes``: a
    Margaret Hundred sheet over its budget is a Hundred sheet with a Hundred problem, even though
    base Margaret reads the same line). ``None`` when the sheet is the league's game (or no
    game's)."""
    mine = rules(league)
    guessed = guess_ruleset(text)
    if guessed is None or guessed.name == mine.name or mine.recognizes(text):
        return None
    return None if mine.parse_sheet(text).ok else guessed


def split_sheets(text: str, league: Any = None) -> list[str]:
    """Split a text holding several sheets at each sheet's first line (lines before the first
    one belong to the first sheet); each sheet stripped."""
    return [chunk.strip() for _first, _last, chunk in split_sheets_at(text, league)]


def split_sheets_at(text: str, league: Any = None) -> list[tuple[int, int, str]]:
    """Split ``text`` at each sheet's first line like :func:`split_sheets`, keeping where each
    sheet stands: ``(first line, last line, sheet)`` with 1-based line numbers of ``text`` (blank
    lines around a sheet left out). ``sheet`` is preceded by ``first - 1`` empty lines, so that
    the line numbers the parser reports are those of ``text``. ``league`` may be a league or a
    :class:`Ruleset` (whose ``starts_sheet`` splits)."""
    split = (
        league.starts_sheet
        if isinstance(league, Ruleset)
        else (lambda line: starts_sheet(line, league))
    )
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if split(line) or not chunks:
            chunks.append((number, [line]))
        else:
            chunks[-1][1].append(line)
    out = []
    for start, lines in chunks:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        if not filled:
            continue
        first, last = start + filled[0], start + filled[-1]
        out.append((first, last, "\n" * (first - 1) + "\n".join(lines[filled[0] : filled[-1] + 1])))
    return out


def sample_units(league: Any = None) -> list[str]:
    """The sheets of the sample units of ``league``'s ruleset (``Ruleset.sample_sheets``): the
    opponents of a one-sheet test battle. ``league`` may also be a :class:`Ruleset`."""
    rs = league if isinstance(league, Ruleset) else rules(league)
    return list(rs.sample_sheets())


def orders_start(text: str, league: Any = None) -> int | None:
    """The first line (0-based) of ``text`` where an orders text begins (``Ruleset.orders_start``)
    for ``league``'s ruleset, or (``league=None``) for any registered ruleset that takes orders;
    ``None`` when there is none."""
    pool = (rules(league),) if league is not None else _every()
    found = [
        i for rs in pool if _holds_orders(rs, text) and (i := rs.orders_start(text)) is not None
    ]
    return min(found) if found else None


def _holds_orders(rs: Ruleset, text: str) -> bool:
    """``text`` holds an orders text of ``rs``: the ruleset takes orders and the text has its
    body (``Ruleset.is_orders``: a hand or a rule block) or its command line
    (``Ruleset.orders_command``). A section header alone (``VS``, 対戦 — also the first word
    of "対戦ありがとう") is not enough."""
    return rs.takes_orders and (rs.is_orders(text) or rs.orders_command(text) is not None)


def orders_command(text: str) -> tuple[str | None, str | None] | None:
    """The league and entry key an orders text's own command line names
    (``Ruleset.orders_command`` of any ruleset that takes orders), or ``None``."""
    for rs in _every():
        if rs.takes_orders:
            found = rs.orders_command(text)
            if found is not None:
                return found
    return None


def looks_like_orders(text: str) -> bool:
    """True when ``text`` holds an orders text and no sheet above it: a mail of orders (or a
    revision at a checkpoint), not an entry."""
    start = orders_start(text)
    return start is not None and not looks_like_sheet("\n".join(text.split("\n")[:start]))


def split_orders(text: str, rs: Ruleset) -> tuple[str, str]:
    """``(sheet, orders)``: ``text`` cut where ``rs``'s orders text begins
    (``Ruleset.orders_start``), the orders part led by blank lines so that its line numbers stay
    those of the mail; ``(text, "")`` when there are no orders or ``rs`` takes none."""
    start = rs.orders_start(text) if _holds_orders(rs, text) else None
    if start is None:
        return text, ""
    lines = text.split("\n")
    return "\n".join(lines[:start]), "\n" * start + "\n".join(lines[start:])
