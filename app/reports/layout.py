"""Layout helpers of the HTML mail reports (``templates/_mail_report.html``), given to the mail
templates as globals (:func:`app.reports.render.environment`).

A battle of 20 turns often has long runs of turns in which nothing happens: no line in the log,
and every fighter's state the same as after the turn before (in a 100-entry league of random
units, 59% of all turns). The HTML part folds each such run into one block ("Turns 5–11: no
action") under the last state table, instead of repeating that table turn after turn; the text
part and the web page still print every turn (the rules' report format, rules/amaryllis.md §3).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from app.reports import i18n
from app.rules.base import ReportTurn


@dataclass(frozen=True, slots=True)
class TurnBlock:
    """One block of the HTML report's turn-by-turn log.

    Attributes:
        first, last: the turns the block covers (equal for one turn).
        turn: the block's turn (its lines and the states after it); for a quiet block, its first
            turn.
        quiet: the block is a run of quiet turns (no line, every state unchanged from the turn
            before): the template prints the turn range and no state table.
    """

    first: int
    last: int
    turn: ReportTurn
    quiet: bool = False


def turn_blocks(turns: Sequence[ReportTurn]) -> list[TurnBlock]:
    """``turns`` (a ``BattleReport``'s, in order) as blocks: each turn that has a line, or
    whose states (``StateLine``: text, HP, alive, exited) differ from the turn before, is a
    block of its own; each run of consecutive other turns (quiet) is one block with
    ``quiet=True``. The first turn is never quiet (there is no state table above it)."""
    blocks: list[TurnBlock] = []
    prev: ReportTurn | None = None
    for t in turns:
        if prev is not None and not t.lines and t.states == prev.states:
            last = blocks[-1]
            if last.quiet and last.last + 1 == t.turn:
                blocks[-1] = TurnBlock(last.first, t.turn, last.turn, True)
            else:
                blocks.append(TurnBlock(t.turn, t.turn, t, True))
        else:
            blocks.append(TurnBlock(t.turn, t.turn, t))
        prev = t
    return blocks


@functools.lru_cache(maxsize=512)
def turn_title(lang: str, n: int | str, last: int | None = None) -> str:
    """The heading of turn ``n`` in ``lang`` (``Turn 3`` / ``第3ターン``; ``n`` as given, so
    the text report passes its full-width digits), or of the turns ``n`` to ``last``
    (``Turns 5–11`` / ``第5〜11ターン``; ``last`` equal to ``n`` is the one turn). The words
    come from the catalogs; cached, because a 100-entry league prints these headings 150,000
    times (a template's ``_()`` call formats and escapes each one anew)."""
    _ = i18n.gettext(lang)
    if last is None or last == n:
        return _("Turn %(n)s") % {"n": n}
    return _("Turns %(first)s–%(last)s") % {"first": n, "last": last}


def text_width(text: str) -> int:
    """The columns ``text`` takes in a fixed-width font: 2 for East Asian wide and full-width
    characters (Unicode ``East_Asian_Width`` W and F: kana, kanji, ``１２３``), 0 for combining
    marks, 1 for the rest (Unicode Standard Annex #11)."""
    import unicodedata

    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def text_table(rows: Sequence[Sequence[object]], left: Sequence[int] = ()) -> str:
    """``rows`` (the first is the header) as a plain-text table for text mails: each column as
    wide as its widest cell (:func:`text_width`, so Japanese text lines up), cells two spaces
    apart, right-aligned but for the column indexes in ``left``; trailing spaces trimmed; one
    line per row, each ending in a newline."""
    cells = [[str(c) for c in row] for row in rows]
    if not cells:
        return ""
    widths = [
        max(text_width(r[i]) for r in cells if i < len(r))
        for i in range(max(len(r) for r in cells))
    ]
    out = []
    for row in cells:
        parts = []
        for i, c in enumerate(row):
            pad = " " * (widths[i] - text_width(c))
            parts.append(c + pad if i in left else pad + c)
        out.append("  ".join(parts).rstrip() + "\n")
    return "".join(out)
