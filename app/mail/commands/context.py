"""What a mail command handler works with: :class:`MailContext` (one per message, inside the
message's transaction) and the :class:`Outcome` it fills for the pipeline."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import getaddresses
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import InboundMessage, Player
from app.mail.grammar import Command
from app.mail.sheets import looks_like_sheet, reading_ruleset, rules
from app.reports.dates import human_time
from app.rules import Ruleset

#: problems of one sheet listed in a reply; the rest are counted (a reply never reflects a
#: whole hostile mail back, issue #8.7)
MAX_PROBLEMS = 20


@dataclass
class Outcome:
    """What handling one message decided.

    Attributes:
        status: ``done``, ``refused`` or ``ignored`` (``InboundMessage.status``).
        rules: the rule names that matched (``InboundMessage.rules``).
        reply: ``(template, context)`` of the reply, or ``None`` for no reply.
        html: an HTML alternative of the reply.
        to: the address the reply goes to when it is not the sender's (an entry's registered
            address: notices about an entry go there and nowhere else).
        subject: the reply's subject when it is not ``Re: <subject>`` (a confirmation request
            carries its token there, so that replying to it is enough).
        deferred: work run after the message's transaction committed, returning
            ``(template, context)`` of the reply. No built-in command uses it any more: work a
            mail orders is recorded in its transaction (``app.mail.requests``, issue 9.5); a
            crash after the commit would lose deferred work.
    """

    status: str = "done"
    rules: list[str] = field(default_factory=list)
    reply: tuple[str, dict[str, Any]] | None = None
    html: str | None = None
    to: str | None = None
    subject: str | None = None
    deferred: Callable[[], tuple[str, dict[str, Any]]] | None = None


class MailContext:
    """One stored message being handled, in the caller's transaction.

    Attributes: ``settings``, ``s`` (the session), ``row`` (the ``InboundMessage``), ``now``,
    ``factory`` (for deferred organizer work), ``mail`` (the ``DecodedMail``), ``player`` (the
    sender's ``Player``), ``lang`` (of the reply), ``proof`` (what proves the sender:
    ``app.mail.protect.proof``), ``out`` (the :class:`Outcome`), ``stage`` (for the shunt log).
    """

    def __init__(
        self,
        settings: Settings,
        session: Session,
        row: InboundMessage,
        now: dt.datetime,
        factory: sessionmaker[Session],
    ) -> None:
        self.settings, self.s, self.row, self.now, self.factory = (
            settings,
            session,
            row,
            now,
            factory,
        )
        self.stage = "decode"
        self.out = Outcome()
        self.lang = "ja"
        self.player: Player | None = None
        self.mail: Any = None
        self.proof: str | None = None
        #: the ruleset the mail's sheets are read with (set by :meth:`parse`)
        self.rs: Ruleset = rules(None)
        #: the display name the mail asks for (its ``name:`` line, else its From phrase), and
        #: whether it may change a name already set (:meth:`settle_name`)
        self.wanted_name = ""
        self.may_rename = False
        self.name_before = ""
        #: the sender's player row was created by this message (it has no entries yet)
        self.new_player = False
        #: the command's name, for ``InboundMessage.command`` (set by the pipeline)
        self.command: str | None = None
        self._open: list[Any] | None = None

    def open_leagues(self) -> list[Any]:
        """The leagues taking entries (``app.league.entries.open_leagues``), read once per
        message: the protection chain and the command both ask, and a mail command does not
        open or close a league before it asks."""
        from app.league import service as svc

        if self._open is None:
            self._open = svc.open_leagues(self.s)
        return list(self._open)

    # -- replies ---------------------------------------------------------------------------

    def reply(self, template: str, **context: Any) -> None:
        """Answer with ``templates/mail/<template>.txt`` rendered with ``context``, checked
        against the template's typed context (``app.mail.replies.REPLIES``: a missing or unknown
        field raises ``TypeError`` here, at the call site)."""
        from app.mail.replies import REPLIES, reply_context

        if template in REPLIES:
            context = reply_context(template, context)
        self.out.reply = (template, context)

    def refuse(self, rule: str, template: str | None = None, **context: Any) -> None:
        """Mark the message ``refused`` by ``rule``, with a reply when ``template`` is given."""
        self.out.status = "refused"
        self.out.rules.append(rule)
        if template:
            self.reply(template, **context)

    @property
    def gettext(self) -> Callable[[str], str]:
        """``gettext`` of the reply's language (``_ = ctx.gettext; _("…") % {…}``): the words
        come from the message catalogs (``app.reports.i18n``)."""
        from app.reports import i18n

        return i18n.gettext(self.lang if self.lang in i18n.LANGS else i18n.LANGS[0])

    @property
    def sender(self) -> str:
        return str(self.mail.sender if self.mail else "") or self.row.sender

    # -- the league ------------------------------------------------------------------------

    def plus_names(self) -> list[str]:
        """League names of plus addresses (``tourney+NAME@``) in To/Cc/Delivered-To/…"""
        msg = self.mail.message if self.mail else None
        if msg is None:
            return []
        wanted = {"to", "cc", "delivered-to", "x-original-to", "envelope-to"}
        try:  # as written, not parsed (the email header parser is slow on long values)
            values = [str(v)[:2000] for k, v in msg.raw_items() if k.lower() in wanted][:40]
        except Exception:
            values = []
        local = self.settings.server_address.split("@")[0].lower()
        names = []
        for _n, addr in getaddresses(values):
            lp = addr.split("@")[0]
            if "+" in lp and lp.split("+", 1)[0].lower() == local:
                names.append(lp.split("+", 1)[1][:64])
        return list(dict.fromkeys(names))

    def entered_leagues(self, mine: str) -> list[Any]:
        """The leagues the sender has an entry in, for the command ``mine``, not finished ones
        first, then the most recent first: ``standings`` any entry in any league; ``withdraw``
        a not withdrawn entry in a league that is not finished; ``entry`` any entry in an open
        league (a replacement or a re-entry); ``orders`` an active entry in a league that is not
        finished."""
        from app.db.models import Entry, League

        if self.player is None or self.player.id is None or self.new_player:
            return []  # a player created by this message has no entry anywhere
        q = (
            select(League)
            .join(Entry, Entry.league_id == League.id)
            .where(Entry.player_id == self.player.id)
        )
        if mine == "withdraw":
            q = q.where(Entry.status != "withdrawn", League.state != "finished")
        elif mine == "entry":
            q = q.where(League.state == "open")
        elif mine == "orders":
            q = q.where(Entry.status == "active", League.state != "finished")
        leagues = list(dict.fromkeys(self.s.scalars(q)))
        leagues.sort(key=lambda lg: (lg.state == "finished", -lg.id))
        return leagues

    def league(
        self, cmd: Command, *, any_state: bool = False, mine: str | None = None
    ) -> Any | None:
        """The league the mail is about: the plus address, the ``[NAME]`` tag, then (``mine``
        given: ``standings``, ``withdraw``, ``entry``) the league the sender has an entry in
        (:meth:`entered_leagues`; several not finished ones: ask which), then the only open one;
        sets a reply and returns ``None`` when it cannot be chosen."""
        from app.league import service as svc

        names = self.plus_names()
        if names or cmd.tag:
            name = names[0] if names else str(cmd.tag)
            league = svc.find_league(self.s, name)
            if league is None:
                self.refuse(
                    "no-such-league",
                    "error",
                    code="no-such-league",
                    league=name,
                    open=[lg.name for lg in self.open_leagues()],
                )
            return league
        opened = self.open_leagues()
        entered = self.entered_leagues(mine) if mine else []
        if entered:
            current = [lg for lg in entered if lg.state != "finished"]
            pool = current or entered[:1]  # only finished leagues: the most recent one
            if mine == "withdraw" and any(lg.state == "open" for lg in pool):
                pool = [lg for lg in pool if lg.state == "open"]  # the ones it can work on
            if len(pool) == 1:
                return pool[0]
            self.refuse(
                "which-league",
                "error",
                code="which-league",
                mine=[lg.name for lg in pool],
                open=[lg.name for lg in opened],
            )
            return None
        if len(opened) == 1:
            return opened[0]
        if mine == "withdraw" and opened:
            # nothing to withdraw anywhere: say so rather than ask which league
            self.refuse(
                "not-entered",
                "error",
                code="not-entered",
                league="",
                open=[lg.name for lg in opened],
            )
            return None
        if any_state and not opened:
            every = svc.all_leagues(self.s)
            if every:
                return every[-1]
        self.refuse(
            "which-league",
            "error",
            code="which-league",
            league=cmd.tag or "",
            open=[lg.name for lg in opened],
        )
        return None

    def requires_auth(self, cmd: Command) -> bool:
        """True when a league the mail may be about asks for authenticated senders
        (``League.require_auth``)."""
        from app.league import service as svc

        names = self.plus_names() or ([cmd.tag] if cmd.tag else [])
        leagues = [svc.find_league(self.s, n) for n in names] or self.open_leagues()
        return any(lg is not None and lg.require_auth for lg in leagues)

    # -- sheets ----------------------------------------------------------------------------

    def sheet_league(self, cmd: Command) -> Any | None:
        """The league a ``check`` or ``test`` mail is about, without asking: the plus address or
        the ``[NAME]`` tag when it names a league, else the only open league, else ``None`` (the
        sheet's own notation then picks the ruleset)."""
        from app.league import service as svc

        names = self.plus_names() or ([str(cmd.tag)] if cmd.tag else [])
        for name in names:
            league = svc.find_league(self.s, name)
            if league is not None:
                return league
        opened = svc.open_leagues(self.s)
        return opened[0] if len(opened) == 1 else None

    def sheet_body(self, cmd: Command) -> str:
        """The text that holds the mail's sheet: the body, or a text attachment holding a sheet
        (of any ruleset) when the body holds none."""
        text = cmd.body
        if not looks_like_sheet(cmd.body) and self.mail and self.mail.attachments:
            text = next((att for att in self.mail.attachments if looks_like_sheet(att)), cmd.body)
        return text

    def sheet_text(self, cmd: Command, rs: Ruleset | None = None) -> str:
        """The sheet of the mail (:meth:`sheet_body`) with a greeting above the sheet's first
        line blanked (``rs.greeting_lines``; line numbers stay those of the mail) and noted.
        ``rs``: the league's ruleset (default: the one the text's notation is written in)."""
        from app.rules.reader import skip_greeting

        text = self.sheet_body(cmd)
        rs = rs or reading_ruleset(text)
        # the one reader's step (``app.rules.reader``; headers, BOM and signature are gone by
        # now: the grammar and the decoder took them). Blank lines above the unit line, e.g. a
        # blanked command line, are no greeting.
        skipped, greeting = skip_greeting(text, rs.greeting_lines(text))
        if greeting and self.mail is not None:
            text = skipped
            where = ", ".join(str(n) for n in greeting[:10]) + (" …" if len(greeting) > 10 else "")
            _ = self.gettext
            self.mail.notes.append(
                _(
                    "%(n)s line(s) above the unit line (line %(where)s) were read as a greeting "
                    "and skipped"
                )
                % {"n": len(greeting), "where": where}
            )
        return text

    def parse(self, text: str, rs: Ruleset | None = None) -> Any:
        """The :class:`~app.rules.base.Sheet` of ``text`` read by ``rs`` (default: the ruleset
        its notation is written in); the reply takes the sheet's language."""
        self.rs = rs or reading_ruleset(text)
        result = self.rs.parse_sheet(text)
        self.lang = result.lang or self.lang
        return result

    def settle_name(
        self, player: Player | None = None, key: str = "", before: str | None = None
    ) -> dict[str, Any]:
        """Give the sender (or ``player``, the owner of a confirmed change) a name after an
        accepted entry (``app.league.names.settle``) and return the reply's ``name`` fields:
        ``name`` (the name the player has now), ``name_new`` (given by this mail),
        ``name_default`` (chosen by the server), ``name_refused``, ``name_reason``
        (``taken``/``needs-proof``), ``name_suggestion`` (a free variant) and ``name_key``
        (the entry key to quote when changing it). ``before``: ``player``'s name before the
        change was applied (default: the sender's when the mail came in)."""
        from app.league.names import settle

        target = player or self.player
        assert target is not None
        wanted = self.wanted_name if player is None else ""
        if before is None:
            before = self.name_before if player is None else target.display_name
        got = settle(self.s, target, wanted, self.lang, may_change=self.may_rename)
        new = got.name != before  # (the entry's acceptance may have given a default already)
        return {
            "name": got.name,
            "name_new": new,
            "name_default": new and got.name != wanted,
            "name_refused": got.refused,
            "name_reason": got.reason,
            "name_suggestion": got.suggestion,
            "name_key": key,
        }

    def known(self, address: str) -> Player | None:
        """The player at ``address``, if the server knows it."""
        return self.s.scalar(select(Player).where(Player.address == address))


def error_text(exc: BaseException) -> str:
    """The message of an error for a reply (never the exception's class name)."""
    if isinstance(exc, OverflowError):
        return "a date or number is out of range"
    text = str(exc.args[0]) if exc.args else str(exc)
    return text or "the command could not be done"


def when(value: dt.datetime | None) -> str:
    """``2026-12-02 14:22 UTC``: the one human form of an instant
    (:func:`app.reports.dates.human_time`); ``""`` for ``None``."""
    return human_time(value)


def span(value: dt.timedelta, lang: str) -> str:
    """A span in words in ``lang`` (``app.reports.i18n.human_span``: ``2 days``, ``12時間``)."""
    from app.reports.i18n import human_span

    return human_span(value, lang)
