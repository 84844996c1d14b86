"""The one sheet reader: what of a text is a sheet, for mail and the offline commands alike.

A player writes a sheet the way they write a mail, whether it is mailed or saved to a file for
``amaryllis check``/``battle``/``tournament``: a byte-order mark from the editor, header lines
(``name: Ben``, ``名前：秋``, ``key: …``, ``password: …``), a greeting above the unit line, blank
lines, a ``-- `` signature below. :func:`header_line` recognises a header line (the mail grammar
reads its commands' special lines with it), and :func:`sheet_text` turns such a text into what
a ruleset parses (``Ruleset.read_sheet``): the same text with every such line blanked, so the
line numbers of problems stay those of the text. Pure, linear in the length of the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

#: header kind -> the words that name it (after NFKC and lower-casing)
HEADER_WORDS: dict[str, tuple[str, ...]] = {
    "password": ("password", "pass", "パスワード", "合言葉"),
    "key": ("key", "entry key", "キー", "鍵", "エントリーキー"),
    "name": ("name", "display name", "名前", "表示名"),
}
# ``word [:：=] value``: the word, optional spaces, one separator, the rest (stripped in Python,
# not by the pattern: ``\s*(\S.*?)\s*$`` backtracked quadratically on a run of spaces)
_HEADER = re.compile(
    r"[ \t]*("
    + "|".join(
        sorted((re.escape(w) for ws in HEADER_WORDS.values() for w in ws), key=len, reverse=True)
    )
    + r")[ \t]*[:：=](.*)\Z",
    re.I | re.S,
)
_KIND_OF = {w: kind for kind, ws in HEADER_WORDS.items() for w in ws}


def header_line(line: str, starts_sheet: Callable[[str], bool]) -> tuple[str, str] | None:
    """``(kind, value)`` when ``line`` is a header line (``password``, ``key`` or ``name`` and a
    non-empty value), else ``None``. A line for which ``starts_sheet`` is true is never one
    (``Pass: 10/1/1/2/G`` is a unit named "Pass"). Linear in the length of ``line``."""
    if starts_sheet(line):
        return None
    m = _HEADER.match(unicodedata.normalize("NFKC", line))
    if m is None:
        return None
    value = m.group(2).strip()
    if not value:
        return None
    return _KIND_OF[m.group(1).lower()], value


@dataclass
class SheetText:
    """What :func:`sheet_text` read.

    Attributes:
        text: the sheet as the ruleset parses it: the lines of the input, every line that is not
            the sheet's blanked (same line numbers).
        headers: the first value of each header kind (``{"name": "Ben"}``).
        greeting: the 1-based numbers of the non-blank lines above the sheet read as a greeting.
    """

    text: str
    headers: dict[str, str] = field(default_factory=dict)
    greeting: list[int] = field(default_factory=list)


def strip_headers(text: str, starts_sheet: Callable[[str], bool]) -> tuple[str, dict[str, str]]:
    """``text`` with the first header line of each kind blanked (:func:`header_line`; a second
    one stays and is the sheet's problem) and those headers' values."""
    found: dict[str, str] = {}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        header = header_line(line, starts_sheet)
        if header is not None and header[0] not in found:
            found[header[0]] = header[1]
            lines[i] = ""
    return "\n".join(lines), found


def strip_signature(text: str) -> str:
    """``text`` without a ``-- `` signature separator (RFC 3676 §4.3; ``--`` alone too) and
    everything below it, as the mail decoder reads a body."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip("\r") in ("-- ", "--"):
            return "\n".join(lines[:i])
    return text


def skip_greeting(text: str, greeting_lines: int) -> tuple[str, list[int]]:
    """``text`` with its first ``greeting_lines`` lines blanked (``Ruleset.greeting_lines``:
    the lines above the sheet's first line), and the numbers of the non-blank ones."""
    lines = text.split("\n")
    greeting = [n for n, line in enumerate(lines[:greeting_lines], start=1) if line.strip()]
    if not greeting:
        return text, []
    return "\n" * greeting_lines + "\n".join(lines[greeting_lines:]), greeting


def sheet_text(
    text: str, starts_sheet: Callable[[str], bool], greeting_lines: Callable[[str], int]
) -> SheetText:
    """Read a sheet out of ``text`` as mail does: byte-order marks at the start dropped, line
    ends made ``\\n``, header lines blanked (:func:`strip_headers`), a signature cut
    (:func:`strip_signature`), the greeting above the sheet's first line blanked
    (:func:`skip_greeting` with the ruleset's ``greeting_lines``). ``starts_sheet``: whether a
    line starts a sheet (of the ruleset, or of any: a unit line is never a header)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text, headers = strip_headers(strip_signature(text), starts_sheet)
    text, greeting = skip_greeting(text, greeting_lines(text))
    return SheetText(text, headers, greeting)
