"""The grammar of a player's mail: the command line, the special lines, the subject.

A command is the first word(s) of the subject (after ``Re:``/``Fwd:`` and a ``[NAME]`` tag) or of
the first non-blank body line (``docs/mail.md``, Mail commands). The words come from the command
registry (``app.mail.commands``), which passes its vocabulary in; this module knows no command.
Special lines, anywhere in the body, blanked before the sheet is read (so line numbers stay those
of the mail):

* ``password: …`` / ``パスワード：…`` — a league's entry password or the organizer password;
* ``key: 7F3K-Q9PD`` / ``キー：…`` — the entry key that proves the sender owns an entry
  (``docs/mail.md``, Entry ownership);
* ``name: …`` / ``名前：…`` — the display name others see in standings and reports.

A line that starts a sheet (:func:`app.mail.sheets.starts_sheet`) is never a command line nor a
special line. Matching is after Unicode NFKC and lower-casing (``ＥＮＴＲＹ`` = ``entry``).

Bounded work (issue #8.2): every pattern here is linear — no two unbounded quantifiers can share
the same characters — and the decoder has already cut each body line to ``max_line_chars``; the
subject is cut to :data:`MAX_SUBJECT` before any pattern sees it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.mail.sheets import starts_sheet
from app.rules.reader import header_line

#: command name -> the words that name it (after NFKC + lower-case)
Vocabulary = Mapping[str, Sequence[str]]

#: characters of a subject that are read (the rest is ignored)
MAX_SUBJECT = 998

_REPLY_PREFIX = re.compile(
    r"[ \t]*(?:(?:re|fwd?|aw|sv|転送|返信)[ \t]*(?:\[\d{1,4}\][ \t]*)?[:：][ \t]*)+", re.I
)
_TAG = re.compile(r"\[([^\]\s]{1,64})\]")


@dataclass
class Command:
    """A parsed mail command.

    Attributes:
        name: a command of the vocabulary, or ``"entry"``/``"help"`` by default (see
            :func:`parse_command`).
        args: the words after the command word (e.g. ``["iso-2022-jp"]`` for ``charset``).
        source: ``"subject"``, ``"body"`` or ``"default"`` (no command word found).
        lang: ``"ja"`` when the command word was Japanese, ``"en"`` when English, else ``None``.
        body: the body with the command line and the special lines blanked (replaced by empty
            lines, so that line numbers stay those of the mail body).
        password: the value of the first ``password:``/``パスワード：`` line, or ``None``.
        key: the value of the first ``key:``/``キー：`` line, or ``None``.
        display_name: the value of the first ``name:``/``名前：`` line, or ``None``.
        tag: the league named by a ``[NAME]`` subject tag, or ``None``.
    """

    name: str
    args: list[str] = field(default_factory=list)
    source: str = "default"
    lang: str | None = None
    body: str = ""
    password: str | None = None
    tag: str | None = None
    key: str | None = None
    display_name: str | None = None


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


def match_command(line: str, vocabulary: Vocabulary) -> tuple[str, str, list[str]] | None:
    """``(name, word, args)`` when ``line`` starts with a word of ``vocabulary``, else ``None``.

    The longest matching word wins. An English word must be followed by a space or the end; a
    Japanese word may be followed by anything that is not a sheet (``登録`` matches, ``登録：…``
    with a colon is a sheet line, not a command)."""
    text = _norm(line[:MAX_SUBJECT])
    best: tuple[str, str] | None = None
    for name, words in vocabulary.items():
        for word in words:
            if text == word or text.startswith(word + " ") or text.startswith(word + "\u3000"):
                if best is None or len(word) > len(best[1]):
                    best = (name, word)
            elif not word.isascii() and text.startswith(word):
                rest = text[len(word) :]
                if rest[:1] not in (":", "/", "(", "<") and (
                    best is None or len(word) > len(best[1])
                ):
                    best = (name, word)
    if best is None:
        return None
    name, word = best
    args = text[len(word) :].replace("\u3000", " ").split()
    return name, word, args


def special_line(line: str) -> tuple[str, str] | None:
    """``(kind, value)`` when ``line`` is a special line (``password``, ``key`` or ``name``, see
    the module docstring), else ``None``. A unit line is never one (``Pass: 10/1/1/2/G`` is a
    unit named "Pass"). Linear in the length of ``line``."""
    return header_line(line, starts_sheet)  # the one reader's (mail and offline commands)


def is_reply_subject(subject: str) -> bool:
    """True when ``subject`` starts with a reply or forward prefix (``Re:``, ``Fwd:``, ``AW:``,
    ``返信：``…)."""
    return bool(_REPLY_PREFIX.match((subject or "")[:MAX_SUBJECT]))


def is_chat(subject: str, body: str) -> bool:
    """True when a mail without a command word is talk, not a sheet: no line starts a sheet
    and either the subject is a reply/forward (a "Great game!" answer to a battle report) or no
    line of ``body`` has a colon (``:`` or ``：``) at all. A fresh mail with a broken sheet
    (colon lines but no valid unit line) is not chat: it gets the sheet's problems."""
    lines = (body or "").split("\n")
    if any(starts_sheet(line) for line in lines):
        return False
    colon = any(":" in unicodedata.normalize("NFKC", line) for line in lines)
    return is_reply_subject(subject) or not colon


def strip_subject(subject: str) -> tuple[str, str | None]:
    """Remove ``Re:``/``Fwd:`` prefixes and a ``[NAME]`` tag: ``(rest, tag)``."""
    s = _REPLY_PREFIX.sub("", (subject or "")[:MAX_SUBJECT], count=1)
    tag = None
    m = _TAG.search(s)
    if m:
        tag = m.group(1)
        s = (s[: m.start()] + s[m.end() :]).strip()
        s = _REPLY_PREFIX.sub("", s, count=1)
    return s.strip(), tag


def parse_command(subject: str, body: str, vocabulary: Vocabulary) -> Command:
    """Find the command of a mail.

    Order: the subject (after ``Re:``/``Fwd:`` and a ``[NAME]`` tag), then the first non-blank body
    line; for a reply (subject starting with ``Re:``/``Fwd:``) the body line comes first, since the
    subject is then the old one. Without a command word the mail is an ``entry`` when the body has
    text (a sheet), else ``help``. The first line of each special kind is blanked in ``body`` and
    returned (``password``, ``key``, ``display_name``); a body command line is blanked too (empty
    lines, so that line numbers in replies are those of the mail). Never raises.
    """
    subject = (subject or "")[:MAX_SUBJECT]
    rest, tag = strip_subject(subject)
    lines = (body or "").split("\n")
    found_lines: dict[str, str] = {}
    kept: list[str] = []
    for line in lines:
        special = special_line(line)
        if special is not None and special[0] not in found_lines:
            found_lines[special[0]] = special[1]
            kept.append("")
            continue
        kept.append(line)
    is_reply = is_reply_subject(subject)
    found = None
    source = "subject"
    if not is_reply and rest:
        found = match_command(rest, vocabulary)
    if found is None:
        idx = next((i for i, line in enumerate(kept) if line.strip()), None)
        if idx is not None and not starts_sheet(kept[idx]):
            found = match_command(kept[idx], vocabulary)
            if found is not None:
                source = "body"
                kept[idx] = ""
    if found is None and is_reply and rest:
        found = match_command(rest, vocabulary)
    text = "\n".join(kept).rstrip("\n")
    if not text.strip():
        text = ""
    extra: dict[str, Any] = dict(
        password=found_lines.get("password"),
        key=found_lines.get("key"),
        display_name=found_lines.get("name"),
        tag=tag,
    )
    if found is None:
        name = "entry" if text.strip() else "help"
        return Command(name=name, source="default", body=text, **extra)
    name, word, args = found
    return Command(
        name=name,
        args=args,
        source=source,
        lang="en" if word.isascii() else "ja",
        body=text,
        **extra,
    )
