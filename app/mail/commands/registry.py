"""The command registry itself: :class:`MailCommand`, :data:`REGISTRY` and the :func:`command`
decorator the command modules register with (see ``app.mail.commands``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.mail.grammar import Command


@dataclass(frozen=True)
class MailCommand:
    """One mail command.

    Attributes:
        name: the command's name (``entry``, ``withdraw``…; ``InboundMessage.command``).
        en, ja: its English and Japanese words, longest match wins (after NFKC, lower case).
        organizer: only for an organizer address with the organizer password.
        usage, usage_ja: how it is written (``charset iso-2022-jp``, ``文字コード JIS``), for help.
        help_en: one line of help, an English message id (marked with :func:`N_`); the reply's
            language comes from the catalogs (:meth:`help`).
        help_ja: a Japanese line that overrides the catalog (``""``: use the catalog).
        handler: ``handler(ctx, cmd)``.
        listed: shown by ``help`` (``confirm`` is answered, not typed).
    """

    name: str
    en: tuple[str, ...]
    ja: tuple[str, ...]
    organizer: bool
    usage: str
    help_en: str
    help_ja: str
    handler: Callable[[Any, Command], None]
    listed: bool = True
    usage_ja: str = ""

    def help(self, lang: str) -> str:
        """The line of help in ``lang`` (the catalog's translation of :attr:`help_en`)."""
        from app.reports.i18n import LANGS, gettext

        if lang == "ja" and self.help_ja:
            return self.help_ja
        return gettext(lang if lang in LANGS else LANGS[0])(self.help_en) if self.help_en else ""

    @property
    def words(self) -> tuple[str, ...]:
        """Every word of the command, English first."""
        return self.en + self.ja


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs (``pybabel extract`` finds ``N_("…")``) and return it
    as it is: it is translated when shown (``gettext_noop``)."""
    return message


#: a command handler (``(MailContext, Command) -> None``, maybe with keyword options); the
#: decorator returns it unchanged
Handler = TypeVar("Handler", bound=Callable[..., None])

#: name -> command, in registration (and help) order
REGISTRY: dict[str, MailCommand] = {}


def command(
    name: str,
    *,
    en: tuple[str, ...],
    ja: tuple[str, ...],
    organizer: bool = False,
    usage: str = "",
    usage_ja: str = "",
    help_en: str = "",
    help_ja: str = "",
    listed: bool = True,
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of mail command ``name``. Raises
    ``ValueError`` for a name or word registered twice."""

    def register(handler: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"mail command {name!r} registered twice")
        taken = {w for c in REGISTRY.values() for w in c.words}
        clash = taken.intersection(en + ja)
        if clash:
            raise ValueError(f"words of {name!r} already taken: {sorted(clash)}")
        REGISTRY[name] = MailCommand(
            name,
            en,
            ja,
            organizer,
            usage or (en[0] if en else name),
            help_en,
            help_ja,
            handler,
            listed,
            usage_ja or " / ".join(ja[:2]),
        )
        return handler

    return register


def vocabulary() -> dict[str, tuple[str, ...]]:
    """command name -> words, for the grammar."""
    return {name: c.words for name, c in REGISTRY.items()}


def is_organizer(name: str) -> bool:
    """True when ``name`` is an organizer's command."""
    c = REGISTRY.get(name)
    return bool(c and c.organizer)
