"""Where the mail layer meets the game rules: ONE function, :func:`rules`, and what is built on it.

Every use of the rules in ``app/mail`` goes through :func:`rules` (parse, format, battle, the
greeting skip) and :func:`starts_sheet` (does a line start a sheet). Today both speak to the
Amaryllis rules; when leagues pick their ruleset (issue #10), :func:`rules` becomes
``find_ruleset(league.ruleset)()`` and :func:`starts_sheet` its ``Ruleset.starts_sheet`` — a
change in this file only.
"""

from __future__ import annotations

import unicodedata
from importlib import resources
from typing import Any


def rules(league: Any = None) -> Any:
    """The rules the mail layer reads sheets of ``league`` with (any league: Amaryllis for now).

    Returns the module of the contract in ``docs/contracts.md``: ``parse_sheet``,
    ``format_sheet``, ``format_costs``, ``format_problems``, ``greeting_lines``, ``battle``,
    ``ENGINE_VERSION``."""
    import app.rules.amaryllis as amaryllis

    return amaryllis


#: characters a unit line may not start with (action lines start with ``・``, ``-``, ``*``)
_NOT_FIRST = frozenset("・-*")


def starts_sheet(line: str, league: Any = None) -> bool:
    """True when ``line`` looks like a unit line (``名前：HP／ATK／DEF／SPD／…``, rules §1): after
    NFKC and ``、`` → ``,``, stripped, it does not start with whitespace or ``・``/``-``/``*``, has
    a ``:`` after its first character, and at least three ``/`` after that colon.

    Linear in the length of the line (``str.find``/``str.count``; the regular expression it
    replaces, ``^[^・\\-\\*\\s].*?[:].*?/.*?/.*?/``, backtracked quadratically on a line of
    colons, issue #8.2). Such a line is never a command line nor a password line: ``Test Pilot:
    10/1/1/2/G`` is a unit named "Test Pilot", not the ``test`` command."""
    text = unicodedata.normalize("NFKC", line.replace("、", ",")).strip()
    if not text or text[0] in _NOT_FIRST or text[0].isspace():
        return False
    colon = text.find(":", 1)
    return colon >= 0 and text.count("/", colon + 1) >= 3


def looks_like_sheet(text: str) -> bool:
    """True when some line of ``text`` starts a sheet (:func:`starts_sheet`)."""
    return any(starts_sheet(line) for line in text.split("\n"))


def split_sheets(text: str) -> list[str]:
    """Split a text holding several sheets at each unit line (lines before the first unit line
    belong to the first sheet); each sheet stripped."""
    return [chunk.strip() for _first, _last, chunk in split_sheets_at(text)]


def split_sheets_at(text: str) -> list[tuple[int, int, str]]:
    """Split ``text`` at each unit line like :func:`split_sheets`, keeping where each sheet
    stands: ``(first line, last line, sheet)`` with 1-based line numbers of ``text`` (blank lines
    around a sheet left out). ``sheet`` is preceded by ``first - 1`` empty lines, so that the
    line numbers the parser reports are those of ``text``."""
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if starts_sheet(line) or not chunks:
            chunks.append((number, [line]))
        else:
            chunks[-1][1].append(line)
    out = []
    for start, lines in chunks:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        if not filled:
            continue
        first, last = start + filled[0], start + filled[-1]
        out.append((first, last, "\n" * (first - 1) + "\n".join(lines[filled[0]:filled[-1] + 1])))
    return out


def sample_units() -> list[str]:
    """The sheets of the league's sample units (``app/mail/sample_units/*.txt``, in name order)."""
    folder = resources.files("app.mail") / "sample_units"
    return [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".txt")]
