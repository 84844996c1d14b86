"""Typed contexts of the mail replies: one frozen dataclass per template of ``templates/mail/``
(as :class:`app.reports.league_battle.LeagueBattleContext` is for the report mails).

A command answers with ``ctx.reply(template, **fields)`` (``app.mail.commands.context``); the
fields are checked against the template's dataclass there (:func:`reply_context`), so a field a
template does not know, or a missing one, fails at the call site with ``TypeError`` instead of
rendering a wrong mail. The pipeline adds the fields of :class:`Footer` (the same for every
reply) when it renders (``app.mail.pipeline``). ``tests/mail/test_templates.py`` checks that
every variable a template uses is a field of its dataclass or of :class:`Footer`, and that every
field is documented.

The words of every reply are in the message catalogs (``templates/locale``), not here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Footer:
    """What the pipeline gives every reply (``templates/mail/_footer.txt``).

    Attributes:
        lang: the reply's language (``ja``/``en``).
        subject: the player's subject as shown (at most 160 characters).
        cut_lines: lines of the mail past ``max_lines`` that were not read (0: none).
        max_lines: the ``max_lines`` setting.
        notes: what decoding the mail noticed (charset guesses, greetings skipped…), in words.
        server: the server's address (the signature).
        plus_local, plus_domain: the two halves of the server's address, for
            ``plus_local+NAME@plus_domain`` league addresses.
    """

    lang: str
    subject: str
    cut_lines: int
    max_lines: int
    notes: list[str]
    server: str
    plus_local: str
    plus_domain: str


@dataclass(frozen=True, slots=True)
class SheetFields:
    """A checked sheet in a reply (``app.mail.commands.player.sheet_context``).

    Attributes:
        ok: the sheet is valid (and its unit name can be shown to others).
        normalized: the sheet in the normalized notation (``""`` unless ``ok``).
        costs: its cost breakdown in words (``""`` unless ``ok``).
        problems: every problem in words (``""`` when ``ok``).
        warnings: the warnings in words, or ``""``.
        ruleset: the title of the ruleset that read the sheet (``Ruleset.titles``).
        wrong_ruleset: the title of the game the sheet is written in when it is not the
            league's (``app.mail.sheets.other_ruleset``), else ``""``.
        example: a sheet of the league's game (``Ruleset.example_sheet``) when
            ``wrong_ruleset``, else ``""``.
    """

    ok: bool
    normalized: str = ""
    costs: str = ""
    problems: str = ""
    warnings: str = ""
    ruleset: str = ""
    wrong_ruleset: str = ""
    example: str = ""


@dataclass(frozen=True, slots=True)
class EntryReply(SheetFields):
    """``mail/entry.txt``: an entry accepted, replaced, re-opened or rejected.

    Attributes:
        league: the league name.
        accepted: the sheet was entered; replaced: it replaced the active sheet;
            reopened: it re-opened a withdrawn entry; version: the sheet version (``None`` when
            rejected).
        key: the entry key to quote in later changes, or ``""``.
        hill: in a hill league, the challenge the entry fought at once
            (``app.league.challenge.Arrival.to_context``: number, size, place, on_hill, boards,
            table, pushed_off), else ``None``.
        orders: the orders the mail carried below the sheet (a ruleset that takes orders;
            :class:`OrdersFields`), else ``None``. Entered with the sheet, or neither is.
        kept: a sheet not accepted from a player already entered: the unit that stays
            entered (its name), else ``""``.
        orders_form: an accepted entry of a ruleset that takes orders, sent without them: how
            to send them (``Ruleset.orders_form``); else ``""``.
        name: an accepted entry: the name the player has now (``app.league.names.settle``,
            through ``MailContext.settle_name``), else ``""``; name_new: given by this mail;
            name_default: chosen by the server (no name given); name_refused: the name asked
            for and not given, name_reason: why (``taken``, ``needs-proof``),
            name_suggestion: a free variant of a taken name; name_key: the entry key to quote.
        (and the fields of :class:`SheetFields`: ok, normalized, costs, problems, warnings,
        ruleset, wrong_ruleset, example)
    """

    league: str = ""
    accepted: bool = False
    replaced: bool = False
    reopened: bool = False
    version: int | None = None
    key: str = ""
    hill: dict[str, Any] | None = None
    orders: OrdersFields | None = None
    orders_form: str = ""
    name: str = ""
    name_new: bool = False
    name_default: bool = False
    name_refused: str = ""
    name_reason: str = ""
    name_suggestion: str = ""
    name_key: str = ""
    kept: str = ""


@dataclass(frozen=True, slots=True)
class CheckReply(SheetFields):
    """``mail/check.txt``: a sheet checked, not entered (the fields of :class:`SheetFields`:
    ok, normalized, costs, problems, warnings, ruleset, wrong_ruleset, example)."""


@dataclass(frozen=True, slots=True)
class BadSheet:
    """A sheet of a test battle that cannot fight.

    Attributes:
        which: 0 for the first sheet of the mail, 1 for the second.
        first, last: its first and last line in the mail (1-based).
        single: the mail held only this sheet.
        problems: its problems in words.
    """

    which: int
    first: int
    last: int
    single: bool
    problems: str


@dataclass(frozen=True, slots=True)
class TestReply:
    """``mail/test.txt``: a test battle's reports, or why there was none.

    Attributes:
        reports: the battle reports (text), one per opponent.
        summary: one line per battle, in the order of ``reports``: who fought whom, the
            verdict and the last turn (``Bolt vs ヌト: ヌト wins (turn 6)``).
        samples: the opponents were the sample units (the mail held one sheet).
        bad: the sheets that cannot fight (:class:`BadSheet`); no battle when not empty.
        extra: sheets of the mail past the first two, not read.
        orders: a ruleset that takes orders: the orders the mail carried below the sheet(s)
            (:class:`OrdersFields`), played by the first sheet against opponents that hold no
            cards (never anyone's real hand); no battle when they have problems. ``None``:
            no orders.
    """

    reports: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    samples: bool = False
    bad: list[BadSheet] = field(default_factory=list)
    extra: int = 0
    orders: OrdersFields | None = None


@dataclass(frozen=True, slots=True)
class WithdrawnReply:
    """``mail/withdrawn.txt``: an entry withdrawn.

    Attributes:
        league: the league name.
        key: the entry key (to quote when entering again), or ``""``.
        always_open: the league's format takes entries at any time (``Format.always_open``:
            a hill), so there are no entries to close.
    """

    league: str
    key: str = ""
    always_open: bool = False


@dataclass(frozen=True, slots=True)
class StandingsReply:
    """``mail/standings.txt``: the standings asked for.

    Attributes:
        league: the league name.
        standings: the standings table as text (``reports/standings.txt``).
    """

    league: str
    standings: str


@dataclass(frozen=True, slots=True)
class StandingsOpenReply:
    """``mail/standings_open.txt``: standings asked for while entries are open (secret until
    they close, as on the web: issue 12.3).

    Attributes:
        league: the league name.
        count: active entries so far.
        names: the entrants' public names when the organizer lists them (``show_entrants``),
            else ``[]``; never a unit or an address.
        deadline: the entry deadline as shown, or ``""`` without one.
    """

    league: str
    count: int
    names: list[str] = field(default_factory=list)
    deadline: str = ""


@dataclass(frozen=True, slots=True)
class HelpReply:
    """``mail/help.txt``: how to use the server.

    Attributes:
        commands: ``(usage, what it does)`` of every listed player command, in the reply's
            language.
        leagues: the names of the leagues taking entries.
        about: league name -> ``[its game, its format]`` (titles in the reply's language), for
            each of ``leagues``.
        example: an example sheet in the reply's language, of the game of the league the mail
            names, else of the sender's leagues, else of the open leagues, when that is one
            game (else the default ruleset's).
        game: the title of the example's game.
        no_command: the mail held neither a command nor a sheet (the help then says so first).
        words: every command's words (``app.mail.commands.WORDS``), for templates that list them.
        server: the server's address.
    """

    commands: list[tuple[str, str]]
    leagues: list[str]
    example: str
    about: dict[str, list[str]] = field(default_factory=dict)
    game: str = ""
    no_command: bool = False
    words: Any = None
    server: str = ""


@dataclass(frozen=True, slots=True)
class ConfirmReply:
    """``mail/confirm.txt``: a confirmation request, or the answer to a confirmation.

    Attributes:
        code: ``request`` (asking to confirm), else how the confirmation went: ``done``,
            ``superseded``, ``expired``, ``closed``, ``refused``, ``unknown``.
        kind: ``replace`` or ``withdraw``.
        league: the league name; token: the confirmation code.
        expires: when the request expires (``2026-12-02 14:22 UTC``); hours: its lifetime.
        deadline: the league's entry deadline in the same form, or ``""``.
        wrong_key: the mail carried a key that is not this entry's.
        change: the change asked for, quoted (the sheet or the orders as mailed, indented;
            ``app.mail.commands.confirmation.shown_change``), so that the owner sees what they
            confirm; ``""`` for a withdrawal and in the answers.
    """

    code: str
    kind: str = ""
    league: str = ""
    token: str = ""
    expires: str = ""
    deadline: str = ""
    hours: int = 0
    wrong_key: bool = False
    change: str = ""


@dataclass(frozen=True, slots=True)
class CharsetReply:
    """``mail/charset.txt``: the charset of later replies (``charset``: ``iso-2022-jp`` or
    ``utf-8``)."""

    charset: str


@dataclass(frozen=True, slots=True)
class OrganizerReply:
    """``mail/organizer.txt``: what an organizer command did.

    Attributes:
        action: the command (``open``, ``close``, ``run``, ``resend``).
        league: the league name.
        summary: what was done, in words (one line per step).
    """

    action: str
    summary: str
    league: str = ""


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """``mail/error.txt``: why a mail was not done.

    Attributes:
        code: what went wrong (``no-such-league``, ``which-league``, ``too-large``,
            ``rate-limit``, ``bad-charset``, ``no-sheet``, ``password``, ``wrong-password``,
            ``not-organizer``, ``entries-closed``, ``not-entered``, ``disqualified``,
            ``organizer-failed``, ``bad-arguments``, ``no-orders`` (``detail``: the league's
            game), ``finished``, ``challenge-limit`` (``limit``: the arrivals a day,
            ``locked_until``: when the next is taken); anything else is printed as it is).
        league: the league concerned, or ``""``.
        open: leagues to choose from (taking entries, or that a command can work on).
        mine: the sender's leagues when it is not clear which one the mail is for.
        action: the command concerned (``which-league``, ``organizer-failed``), or ``""``.
        size, limit: the mail's size and the limit (``too-large``); the daily limit
            (``rate-limit``, ``challenge-limit``).
        value: the charset asked for (``bad-charset``).
        usage: how the command is written (``bad-arguments``).
        detail: more about the error, in words, or ``""``.
        locked_until: when this wrong password or key started the sender's lockout
            (``app.mail.protect.count_failure``), when it ends (``YYYY-MM-DD 00:00 UTC``);
            else ``""``. Told once: later mail needing a password is refused silently.
    """

    code: str
    league: str = ""
    open: list[str] = field(default_factory=list)
    mine: list[str] = field(default_factory=list)
    action: str = ""
    size: int = 0
    limit: int = 0
    value: str = ""
    usage: str = ""
    detail: str = ""
    locked_until: str = ""


@dataclass(frozen=True, slots=True)
class HillOffMail:
    """``mail/hill_off.txt``: a member pushed off a hill (``app.league.challenge``).

    Attributes:
        name: the player's public name; league: the league name; size: the hill's size;
        number: the challenge that pushed it off; unit: its unit; place: the place it fell
        from; points: its points there (text); age: challenges it survived.
    """

    name: str
    league: str
    size: int
    number: int
    unit: str
    place: int
    points: str
    age: int


@dataclass(frozen=True, slots=True)
class OrdersFields:
    """Checked orders in a reply (``app.mail.commands.orders.orders_context``).

    Attributes:
        ok: the orders read without error.
        normalized: the orders as the server keeps them (``Ruleset.format_orders``; ``""``
            unless ``ok``).
        sections: the opponents the orders have sections for (``DEFAULT`` for the default).
        problems: every problem in words, each with its line and fix (``""`` when ``ok``).
        warnings: the warnings in words, or ``""``.
        unknown_vs: the ``VS`` names that match no other unit in the league (never used).
    """

    ok: bool
    normalized: str = ""
    sections: list[str] = field(default_factory=list)
    problems: str = ""
    warnings: str = ""
    unknown_vs: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class OrdersReply:
    """``mail/orders.txt``: orders, a checkpoint revision or READY, answered.

    Attributes:
        code: ``accepted`` (the standing orders now), ``rejected`` (problems, nothing
            changed), ``revised`` (a revision at a checkpoint, per battle in ``battles``),
            ``ready`` (READY in ``count`` battles), ``unproven`` (a revision or READY without
            the entry key: nothing changed), ``no-checkpoint`` (READY with no battle stopped).
        league: the league name.
        orders: the checked orders (:class:`OrdersFields`) for ``accepted``/``rejected``.
        version: the orders version kept (``accepted``).
        key: the sender's entry key (``accepted``, ``revised``, ``ready``).
        battles: a revision per stopped battle: ``{"opponent", "from_turn", "accepted",
            "problems"}``.
        paused: a battle of the sender is stopped at a checkpoint (new standing orders do not
            change it: only a revision does).
        count: battles READY was given for.
        revision: how a revision is written (``Ruleset.revision_form``), or ``""``.
        wrong_key: ``unproven``: the mail carried a key, but not this entry's.
    """

    code: str
    league: str = ""
    orders: OrdersFields | None = None
    version: int | None = None
    key: str = ""
    battles: list[dict[str, Any]] = field(default_factory=list)
    paused: bool = False
    count: int = 0
    revision: str = ""
    wrong_key: bool = False


@dataclass(frozen=True, slots=True)
class PairingMail:
    """``mail/pairing.txt``: a round's pairing to one player of a league whose ruleset takes
    orders (``LeagueMail.queue_pairings``): whom they meet and how to send their orders.

    Attributes:
        name: the player's public name; league: the league name; round, board: where they
            play; side: ``A`` or ``B``.
        unit: their unit's label; opponent: the opponent's unit label; opponent_player: the
            opponent's public name; opponent_sheet: the opponent's public sheet
            (``Ruleset.public_sheet``).
        lead: the pairing's draw in words with how to check it (``Ruleset.lead_text``).
        deadline: when the round is played (``human_time``), or ``""`` (the organizer plays
            it, or as soon as every paired player has sent orders).
        form: a skeleton of the orders mail (``Ruleset.orders_form``).
        key: the player's entry key (the orders mail must carry it).
        standing: the player has standing orders that will serve unless new ones come.
        checkpoints: the turns the battle stops after (``Ruleset.checkpoint_turns``).
    """

    name: str
    league: str
    round: int
    board: int
    side: str
    unit: str
    opponent: str
    opponent_player: str
    opponent_sheet: str
    lead: str
    deadline: str
    form: str
    key: str
    standing: bool
    checkpoints: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DigestMail:
    """``mail/digest.txt``: a digest round's one mail to a player
    (``app.mail.league_mail.LeagueMail.queue_digests``).

    Attributes:
        name: the player's public name.
        league: the league name.
        round: the round (an accumulating league's update) number.
        unit: the player's unit now (its standings label), or ``""``.
        rows: the player's results, one dict per battle in board order (``board``,
            ``opponent``, ``unit``, ``result`` = ``win``/``loss``/``draw``, ``turns``, ``hp`` =
            ``"own : opponent"``, ``url``); public facts only.
        wins, draws, losses: their counts among ``rows``.
        standings: the standings after the round as text, ``""`` unless the player's
            preference is ``all``.
        url: the league's page (``""`` without ``public_url``).
        logs: the full logs of the player's own battles (``board``, ``title``, ``log``: their
            own private block only), ``[]`` unless they chose logs always.
    """

    name: str
    league: str
    round: int
    unit: str
    rows: list[dict[str, Any]]
    wins: int
    draws: int
    losses: int
    standings: str
    url: str
    logs: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PrefsReply:
    """``mail/prefs.txt``: the player's mail preference, after ``mail …`` or ``unsubscribe``.

    Attributes:
        pref: ``Player.mail_pref`` now (``all``, ``own`` or ``none``).
        logs: ``Player.digest_logs`` now (digests carry the full logs of their own battles).
        changed: the mail changed the setting.
        unknown: a word the command did not understand (nothing was changed), else ``""``.
        unsubscribed: the mail was an ``unsubscribe`` (a ``List-Unsubscribe`` link).
    """

    pref: str
    logs: bool
    changed: bool = False
    unknown: str = ""
    unsubscribed: bool = False


@dataclass(frozen=True, slots=True)
class LogsReply:
    """``mail/logs.txt``: the full logs of the sender's own battles of one round
    (``logs LEAGUE [ROUND]``).

    Attributes:
        league: the league name.
        round: the round number (``0``: none played yet).
        logs: one dict per battle (``board``, ``title``, ``log``), each with the sender's
            own private block only; ``[]`` when the sender had no battle in that round.
    """

    league: str
    round: int
    logs: list[dict[str, str]] = field(default_factory=list)


#: template name (``templates/mail/<name>.txt``) -> its context
REPLIES: dict[str, type] = {
    "entry": EntryReply,
    "check": CheckReply,
    "test": TestReply,
    "withdrawn": WithdrawnReply,
    "standings": StandingsReply,
    "standings_open": StandingsOpenReply,
    "help": HelpReply,
    "confirm": ConfirmReply,
    "charset": CharsetReply,
    "organizer": OrganizerReply,
    "error": ErrorReply,
    "hill_off": HillOffMail,
    "pairing": PairingMail,
    "orders": OrdersReply,
    "digest": DigestMail,
    "prefs": PrefsReply,
    "logs": LogsReply,
}


def reply_context(template: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Check ``fields`` against the dataclass of ``template`` and return the template variables
    (every field, defaults included; :class:`BadSheet` values stay objects). Raises ``KeyError``
    for a template without a context class and ``TypeError`` for a missing or unknown field."""
    cls = REPLIES[template]
    if cls is TestReply and fields.get("bad"):
        fields = dict(
            fields, bad=[b if isinstance(b, BadSheet) else BadSheet(**b) for b in fields["bad"]]
        )
    obj = cls(**fields)
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
