"""Text that every database can store, and names that every reader sees the same way.

PostgreSQL ``text``/``varchar`` columns refuse NUL (``\\x00``) and lone surrogates (Python's
``surrogateescape`` leftovers of undecodable header bytes), and ``varchar(n)`` refuses values over
``n`` characters; SQLite takes all of it. So every string the mail layer takes from a header or a
body passes :func:`column_text` before it reaches a column (issue #8.1), and a name that other
players will read (a unit name, a display name) is checked by :func:`name_problem` (controls, bidi
overrides and zero-width characters make two names look alike or garble a terminal, issue #8.7).
Pure functions.
"""

from __future__ import annotations

import unicodedata

#: characters that change how text around them is shown without showing themselves: bidi
#: embeddings, overrides and isolates (Unicode UAX #9), zero-width and joiner characters, the
#: word joiner and BOM, soft hyphen, the Mongolian vowel separator; all are category Cf
_INVISIBLE = frozenset(
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)


def scrub(text: str) -> str:
    """``text`` without NUL and with every lone surrogate replaced: surrogate-escaped bytes are
    re-read as UTF-8 (raw UTF-8 headers, RFC 6532, come out right), anything else becomes
    U+FFFD. Never raises."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # surrogates that were not escaped bytes
            text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def column_text(text: str | None, limit: int | None = None) -> str:
    """``text`` made storable (:func:`scrub`) and cut to ``limit`` characters (a ``varchar(n)``
    column; ``None`` for ``text`` columns). ``None`` gives ``""``."""
    out = scrub(text or "")
    if limit is not None and len(out) > limit:
        out = out[:limit]
    return out


def is_invisible(ch: str) -> bool:
    """True for a control character (category Cc, other than tab and line feed), a format
    character (Cf: bidi controls, zero-width characters), a private-use, surrogate or unassigned
    code point."""
    if ch in "\t\n":
        return False
    return ch in _INVISIBLE or unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn")


def name_problem(name: str, *, limit: int) -> str | None:
    """Why ``name`` (a unit or display name others will read) cannot be used, or ``None``:
    ``"invisible"`` when it holds a character of :func:`is_invisible` (a terminal escape, a bidi
    override, a zero-width space…), ``"too-long"`` over ``limit`` characters, ``"empty"``
    without a visible character."""
    if any(is_invisible(ch) for ch in name):
        return "invisible"
    if len(name) > limit:
        return "too-long"
    if not name.strip():
        return "empty"
    return None


def clean_display_name(value: str, *, limit: int = 40) -> str:
    """A display name fit to show to others: NFC, invisible characters (:func:`is_invisible`)
    removed, whitespace runs made one space, cut to ``limit`` characters; ``""`` when nothing
    visible is left or when it holds ``@`` (a name that is an address would show one, maybe
    somebody else's)."""
    text = unicodedata.normalize("NFC", scrub(value))
    text = "".join(" " if ch in "\t\n" else ch for ch in text if not is_invisible(ch))
    text = " ".join(text.split())
    if "@" in text or "\uff20" in text:
        return ""
    text = text[:limit].strip()
    return text if any(unicodedata.category(c)[0] in "LNPS" for c in text) else ""


def visible(text: str) -> str:
    """``text`` for a terminal: every invisible character (:func:`is_invisible`: ESC and the
    other controls, bidi overrides, zero-width characters) written as ``<U+XXXX>``; tab and line
    feed kept. Never raises."""
    if not any(is_invisible(ch) for ch in text):
        return text
    return "".join(f"<U+{ord(ch):04X}>" if is_invisible(ch) else ch for ch in scrub(text))
