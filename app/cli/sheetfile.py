"""Read a sheet from a file in any of the encodings Japanese players use.

UTF-8 (with or without BOM), UTF-16 with BOM, ISO-2022-JP (JIS), EUC-JP and Shift_JIS/CP932 are
recognized by strict decoding in that order (EUC-JP and CP932 both tried, the one that reads as
more ordinary Japanese kept), then ``charset-normalizer`` is asked as a
fallback. The byte-order marks (U+FEFF) the text starts with are dropped, as the mail decoder drops
a part's (``app.mail.decode.strip_bom``). Binary files are refused with a ``ValueError``.

Known limit: a short EUC-JP text made only of half-width katakana is also valid CP932 kanji and
is read as CP932 (such sheets do not occur in practice: class words are full-width kanji/kana);
and a Western 8-bit text that happens to be valid CP932 is read as CP932.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import BinaryIO

from charset_normalizer import from_bytes

MAX_BYTES = 2_000_000
"""Larger files are refused (a sheet is a few hundred bytes; the parser caps lines anyway)."""


class SheetFileError(ValueError):
    """The file cannot be read as a text sheet (too large, binary, unknown encoding)."""


def _japanese_score(text: str) -> int:
    """How much ``text`` looks like ordinary Japanese: kana, kanji and full-width forms count
    +1, half-width katakana (what EUC-JP bytes look like when read as CP932) counts -2."""
    score = 0
    for c in text:
        o = ord(c)
        if 0xFF61 <= o <= 0xFF9F:
            score -= 2
        elif 0x3000 <= o <= 0x30FF or 0x4E00 <= o <= 0x9FFF or 0xFF01 <= o <= 0xFF5E:
            score += 1
    return score


def _looks_binary(text: str) -> bool:
    if "\x00" in text:
        return True
    control = sum(1 for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r\f\x1b")
    return control > max(2, len(text) // 20)


def decode_sheet_bytes(data: bytes) -> str:
    """Decode a sheet's bytes (see the module docstring for the order of guesses) to its text,
    without the byte-order marks it starts with (U+FEFF, however many).

    Raises:
        SheetFileError: the bytes are binary or in no recognizable text encoding.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", errors="replace")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    else:
        text = _guess(data)
    if _looks_binary(text):
        raise SheetFileError("the file is not text (binary data)")
    # a second mark (a file saved twice by a BOM-writing editor) or one the guess kept: at the
    # start of a text U+FEFF is a signature, never part of the unit name (Unicode §23.8)
    return text.lstrip("\ufeff")


def _guess(data: bytes) -> str:
    if b"\x00" in data:
        raise SheetFileError("the file is not text (binary data)")
    if b"\x1b" in data and max(data, default=0) < 0x80:
        for codec in ("iso2022_jp", "iso2022_jp_ext", "iso2022_jp_2"):
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    candidates = []
    for codec in ("euc_jp", "cp932"):
        try:
            candidates.append(data.decode(codec))
        except UnicodeDecodeError:
            pass
    if candidates:
        return max(candidates, key=_japanese_score)
    best = from_bytes(data).best()
    if best is None:
        raise SheetFileError("the file is in no recognizable text encoding")
    return str(best)


def read_sheet_file(path: str | Path) -> str:
    """Read the sheet in ``path`` and return its text.

    Raises:
        OSError: the file cannot be read.
        SheetFileError (a ``ValueError``): larger than ``MAX_BYTES``, binary, or undecodable.
    """
    p = Path(path)
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise SheetFileError(f"the file is too large ({size:,} bytes; at most {MAX_BYTES:,})")
    return decode_sheet_bytes(p.read_bytes())


def read_sheet_source(source: str | Path, stdin: BinaryIO | None = None) -> str:
    """The sheet of a command-line argument: the file ``source``, or ``stdin`` (bytes, decoded
    as a file is) when ``source`` is ``"-"``.

    Raises:
        OSError: the file cannot be read.
        SheetFileError (a ``ValueError``): too large, binary, or undecodable.
    """
    if str(source) == "-":
        if stdin is None:
            import sys

            stdin = sys.stdin.buffer
        data = stdin.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise SheetFileError(f"the input is too large (more than {MAX_BYTES:,} bytes)")
        return decode_sheet_bytes(data)
    return read_sheet_file(source)
