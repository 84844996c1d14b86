"""The registry of mail commands: each with its words (English and Japanese), whether it is an
organizer's, a line of help, and its handler.

A command module registers its commands with :func:`command` (``@command("withdraw", en=…,
ja=…)``); the grammar (``app.mail.grammar``) matches the words of :data:`REGISTRY`, the pipeline
calls the handler, and ``help`` lists the registry. Handlers take a
:class:`~app.mail.commands.context.MailContext` and the parsed
:class:`~app.mail.grammar.Command` and set the reply on the context; they never send mail.

Import direction: ``pipeline`` → ``commands`` → ``grammar``/``sheets``/``protect``/league; nothing
here imports the pipeline, the poller or the CLI.

:data:`WORDS` (command → words) is the single source of the words, listed in ``docs/mail.md``.
"""

from __future__ import annotations

from app.mail import grammar
from app.mail.commands import orders as _orders  # noqa: F401
from app.mail.commands import organizer as _organizer  # noqa: F401

# the command modules register themselves (the order is the order of ``help``)
from app.mail.commands import player as _player  # noqa: F401
from app.mail.commands import prefs as _prefs  # noqa: F401
from app.mail.commands.registry import REGISTRY, MailCommand, command, is_organizer, vocabulary
from app.mail.grammar import Command

#: command -> its words (after NFKC + lower-case); longest match wins
WORDS: dict[str, tuple[str, ...]] = vocabulary()
ORGANIZER_COMMANDS = frozenset(n for n, c in REGISTRY.items() if c.organizer)
JAPANESE_WORDS = frozenset(w for ws in WORDS.values() for w in ws if not w.isascii())


def match_command(line: str) -> tuple[str, str, list[str]] | None:
    """:func:`app.mail.grammar.match_command` with the registry's words."""
    return grammar.match_command(line, WORDS)


def parse_command(subject: str, body: str) -> Command:
    """:func:`app.mail.grammar.parse_command` with the registry's words."""
    return grammar.parse_command(subject, body, WORDS)


strip_subject = grammar.strip_subject
is_chat = grammar.is_chat
is_reply_subject = grammar.is_reply_subject

__all__ = [
    "JAPANESE_WORDS",
    "ORGANIZER_COMMANDS",
    "REGISTRY",
    "WORDS",
    "Command",
    "MailCommand",
    "command",
    "is_chat",
    "is_organizer",
    "is_reply_subject",
    "match_command",
    "parse_command",
    "strip_subject",
    "vocabulary",
]
