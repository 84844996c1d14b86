"""The ``Ruleset`` interface: one class per game of the family, one registry, one outcome type.

Modelled on python-chess's variants (``chess/variant.py``): a ruleset is a subclass of
:class:`Ruleset` with class metadata (``name``, ``aliases``, ``engine_version``, ``titles``) and
methods; :func:`find_ruleset` resolves the name stored with a league (``League.ruleset``). An
*instance* carries the league's options for that ruleset (budget, sword pool, MP table, party cap,
… for Margaret Hundred; nothing for Amaryllis), so ``find_ruleset(league.ruleset)(league.options)``
is everything the league, mail, report and web layers need. Nothing outside ``app/rules`` imports a
particular ruleset package (``tests/test_architecture.py``).

Values that cross the interface:

* an **entry** is the ruleset's own parsed sheet value (an Amaryllis ``Unit``, a Margaret
  swordmaster, …): opaque to the callers, who only hand it back to the same ruleset. It is
  immutable and picklable (rounds are fought in worker processes);
* a **result** is the ruleset's own battle result (with or without its event log); callers turn it
  into the generic :class:`Outcome` with :meth:`Ruleset.outcome`, into the CLI/JSON object with
  :meth:`Ruleset.result_json`, and into a report with :meth:`Ruleset.report`;
* **problems** follow the Amaryllis ``Problem`` shape (:class:`ProblemLike`).

Sides are ``0`` (A, the first sheet) and ``1`` (B). A side is a *party*: a tuple of
:class:`Fighter` (one element in Amaryllis and base Margaret). Languages are ``"ja"`` and ``"en"``.
This module is pure: no I/O, no clock, no randomness.

Rulesets with hidden information and per-pairing orders (``Ruleset.takes_orders``) add a second
text per entry and pairing, the *orders* (a hand and standing orders, say): read with
:meth:`Ruleset.parse_orders` into an :class:`OrdersSheet`, narrowed to one opponent with
:meth:`Ruleset.orders_for`, and passed with the lead draw (:meth:`Ruleset.lead_draw`) and an
optional checkpoint in a :class:`BattleInputs` to :meth:`Ruleset.fight`. Their results have a
public part (:meth:`Ruleset.public_json`, :meth:`Ruleset.report`) and a private part per side
(:meth:`Ruleset.private_json`, :meth:`Ruleset.report_for`) that only that side may see. Every
one of these has a default, so rulesets without orders need nothing (``docs/contracts.md``).
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol

LANGS: tuple[str, str] = ("ja", "en")

#: the ``reason``/termination vocabulary of every ruleset (``rules/margaret-hundred.md`` §8.12,
#: ``rules/margaret.md`` §7, ``rules/amaryllis.md`` §2.5)
TERMINATIONS: tuple[str, ...] = ("death", "overkill", "hp", "push", "draw")


class ProblemLike(Protocol):
    """One problem on a sheet: the shape of ``app.rules.amaryllis.problems.Problem``.

    ``code`` is a stable identifier (e.g. ``unknown-class``), ``line`` 1-based or ``None`` for the
    whole sheet, ``text`` the offending line, ``message`` and ``fix`` in ``lang``, ``severity``
    ``"error"`` or ``"warning"``, ``section`` the rules section broken.
    """

    @property
    def code(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def text(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def fix(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def section(self) -> str: ...


class RandomSource(Protocol):
    """The part of ``random.Random`` a generator uses (any object with these methods works, e.g.
    one backed by Hypothesis draws). The caller owns it, so generators stay pure."""

    def randint(self, a: int, b: int) -> int: ...
    def choice(self, seq: Sequence[Any]) -> Any: ...
    def random(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Sheet:
    """A sheet as read by :meth:`Ruleset.parse_sheet` (never raised: everything wrong is a problem).

    Attributes:
        ruleset: the name of the ruleset that read it.
        entry: the ruleset's entry value, or ``None`` when there is any error.
        problems: every problem found (errors and warnings), in line order.
        lang: ``"ja"`` or ``"en"``: the sheet's notation, the language of the messages.
        name: the unit's (or registered swordmaster's) name as written, ``""`` when unreadable.
    """

    ruleset: str
    entry: Any | None
    problems: tuple[ProblemLike, ...] = ()
    lang: str = "ja"
    name: str = ""

    @property
    def errors(self) -> list[ProblemLike]:
        """The problems that reject the sheet."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[ProblemLike]:
        """The problems that do not reject the sheet."""
        return [p for p in self.problems if p.severity != "error"]

    @property
    def ok(self) -> bool:
        """True when the sheet has no error (``entry`` is then not ``None``)."""
        return self.entry is not None and not self.errors


@dataclass(frozen=True, slots=True)
class OrdersSheet:
    """An orders text as read by :meth:`Ruleset.parse_orders` (never raised: everything wrong is
    a problem, as for a :class:`Sheet`).

    Attributes:
        ruleset: the name of the ruleset that read it.
        orders: the ruleset's parsed value (opaque to callers, handed back to
            :meth:`Ruleset.orders_for`), or ``None`` when there is any error.
        problems: every problem found (errors and warnings), in line order; each names its line,
            quotes it and gives the fix (:class:`ProblemLike`).
        lang: ``"ja"`` or ``"en"``: the language of the messages.
        sections: the opponents the text has sections for, in order (``None`` for a default
            section that serves every other opponent).
        starts: a checkpoint revision (:meth:`Ruleset.revise_orders`): the turn each new
            version of the rules is in force from, in order; ``()`` otherwise.
    """

    ruleset: str
    orders: Any | None
    problems: tuple[ProblemLike, ...] = ()
    lang: str = "ja"
    sections: tuple[str | None, ...] = ()
    starts: tuple[int, ...] = ()

    @property
    def errors(self) -> list[ProblemLike]:
        """The problems that reject the text."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[ProblemLike]:
        """The problems that do not reject the text."""
        return [p for p in self.problems if p.severity != "error"]

    @property
    def ok(self) -> bool:
        """True when the text has no error (``orders`` is then not ``None``)."""
        return self.orders is not None and not self.errors


@dataclass(frozen=True, slots=True)
class BattleInputs:
    """What a battle takes besides the two entries, for rulesets with orders
    (:meth:`Ruleset.fight`). A battle is a pure function of the entries and these inputs.

    Attributes:
        orders: each side's orders against this opponent (:meth:`Ruleset.orders_for`'s value;
            ``None``: no orders, which the ruleset defines, e.g. "no cards, always pass").
        lead: the side (0 = A, 1 = B) that the ruleset's draw favours, e.g. the side that leads
            simultaneous decisions in even turns (:meth:`Ruleset.lead_draw`).
        stop_after: a checkpoint: stop at the first turn end with turn number >= this value,
            unless the battle ended before (:meth:`Ruleset.checkpoint` then gives the turn). A
            later battle with revised orders replays from the start; ``None``: play to the end.
    """

    orders: tuple[Any | None, Any | None] = (None, None)
    lead: int = 0
    stop_after: int | None = None


@dataclass(frozen=True, slots=True)
class Fighter:
    """One unit or swordmaster of a side at the end of a battle (``final.A``/``final.B`` items).

    Attributes:
        name: its name as on its sheet (a built swordmaster: the build's name).
        hp: final HP (HP points; may be negative: overkill), frozen at exit for an exited one.
        max_hp: maximum HP (HP points).
        mp: final MP (0 in rulesets without MP).
        alive: HP > 0 at the end, and present.
        exited: left its party during the battle (exit order is list order after the present ones).
        detail: ruleset extras, JSON-ready (stats, statuses, remaining swords, …).
    """

    name: str
    hp: int
    max_hp: int
    mp: int = 0
    alive: bool = True
    exited: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"name", "hp", "max_hp", "mp", "alive", "exited", **detail}``: the six fields first
        (a detail key of the same name never overrides them)."""
        base = {
            "name": self.name,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "mp": self.mp,
            "alive": self.alive,
            "exited": self.exited,
        }
        return {**base, **{k: v for k, v in self.detail.items() if k not in base}}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The generic result of one battle, the same for every ruleset (python-chess's ``Outcome``).

    Attributes:
        winner: ``0`` (side A), ``1`` (side B) or ``None`` for a draw.
        termination: one of :data:`TERMINATIONS` (the JSON ``reason``).
        turns: the final turn number T. The Margaret family reports 0 when the death check
            after turn 0 decided it (``rules/margaret.md`` M10); Amaryllis keeps its own rules'
            count, which places that check at the start of turn 1 (``rules/amaryllis.md``
            §2.1), so 1 there, as its reports and ``battle --json`` always said.
        margin: side A's tiebreak margin over side B, in HP (Amaryllis: final HP of A − final HP
            of B; party rulesets: the judge's totals), so side B's margin is ``-margin``.
        final: the two parties, index 0 = A, each present fighters front first, then exited ones
            in exit order.
        by: the judge applied (``death``, ``overkill`` or ``hp``), also for ``push`` and ``draw``.
        detail: ruleset extras, JSON-ready (judge totals, Push counts, a Heaven's Door rewrite
            request, …). Readers ignore keys they do not know.
    """

    winner: int | None
    termination: str
    turns: int
    margin: int
    final: tuple[tuple[Fighter, ...], tuple[Fighter, ...]]
    by: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def hp(self, side: int) -> int:
        """The summed final HP of the fighters of ``side`` still present (0 or 1)."""
        return sum(f.hp for f in self.final[side] if not f.exited)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, the inverse of :meth:`from_json` (stored in ``battles.outcome``)."""
        return {
            "winner": self.winner,
            "termination": self.termination,
            "turns": self.turns,
            "margin": self.margin,
            "by": self.by,
            "detail": dict(self.detail),
            "final": [[f.to_json() for f in side] for side in self.final],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """Read :meth:`to_json`'s output back. Raises ``KeyError``/``TypeError`` on other shapes."""
        base = {"name", "hp", "max_hp", "mp", "alive", "exited"}
        parties = tuple(
            tuple(
                Fighter(
                    f["name"],
                    int(f["hp"]),
                    int(f["max_hp"]),
                    int(f.get("mp", 0)),
                    bool(f["alive"]),
                    bool(f.get("exited", False)),
                    {k: v for k, v in f.items() if k not in base},
                )
                for f in side
            )
            for side in data["final"]
        )
        if len(parties) != 2:
            raise TypeError("an outcome has exactly two sides")
        return cls(
            data["winner"],
            str(data["termination"]),
            int(data["turns"]),
            int(data["margin"]),
            (parties[0], parties[1]),
            data.get("by"),
            dict(data.get("detail") or {}),
        )


def has_stat_slashes(line: str) -> bool:
    """True when ``line`` (NFKC-normalized: ``／`` is ``/``) holds the three slashes of
    HP/ATK/DEF/SPD after its first colon when a colon stands before its first slash (a name
    first: ``名前：10/1/1/2``), else anywhere (a compact line: ``15/0/1/2/速熱衝絶``). Every
    ruleset's first sheet line has them; ``Ruleset.starts_sheet`` asks for them so that the mail
    layer never takes ``key: 6844-7242`` or ``Time: 12:30`` for a sheet (issue 10). Linear in
    ``len(line)``."""
    text = unicodedata.normalize("NFKC", line)
    colon, slash = text.find(":"), text.find("/")
    if colon >= 0 and (slash < 0 or colon < slash):
        return text.count("/", colon + 1) >= 3
    return text.count("/") >= 3


# --------------------------------------------------------------------------- reports


@dataclass(frozen=True, slots=True)
class ReportLine:
    """One line of a battle log in words, in the report's language.

    ``kind`` names what happened (``action``, ``simultaneous``, ``status``, ``death``, ``build``,
    ``judge``, … as the ruleset defines), for styling; ``side`` the acting side or ``None``;
    ``children`` the lines of a group (the halves of a simultaneous action, a repeated action
    folded into one line), rendered indented under ``text``.
    """

    text: str
    kind: str = "action"
    side: int | None = None
    children: tuple[ReportLine, ...] = ()


@dataclass(frozen=True, slots=True)
class StateLine:
    """One fighter's state after a turn: ``text`` is the rules' state line (``rules/amaryllis.md``
    §3: ``グリスク：１０／２／３／２／スピア、スピア、ブースト``); the numbers are for HP bars and
    charts (HP points)."""

    name: str
    text: str
    hp: int
    max_hp: int
    alive: bool = True
    exited: bool = False

    @property
    def hp_text(self) -> str:
        """``hp/max_hp`` as the HP bars print it: ``7/15``."""
        return f"{self.hp}/{self.max_hp}"

    @property
    def percent(self) -> int:
        """The HP bar's filled part: ``hp`` in whole percent of ``max_hp``, 0 at or below 0 HP
        (and for a ``max_hp`` of 0), 100 at or above ``max_hp``."""
        if self.max_hp <= 0 or self.hp <= 0:
            return 0
        return 100 if self.hp >= self.max_hp else self.hp * 100 // self.max_hp


@dataclass(frozen=True, slots=True)
class ReportTurn:
    """One turn of a report: its number, its lines, and both parties' states after it."""

    turn: int
    lines: tuple[ReportLine, ...]
    states: tuple[tuple[StateLine, ...], tuple[StateLine, ...]]


@dataclass(frozen=True, slots=True)
class PrivateBlock:
    """What only one side may read in a report of a ruleset with hidden information (its
    remaining hand, its rule trace, …): ``side`` 0 or 1, a ``title`` and its ``lines``, in the
    report's language. A caller shows it to that side only (:meth:`BattleReport.for_side`)."""

    side: int
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BattleReport:
    """Everything a battle report shows, ready for any template (mail text, mail HTML, web).

    Attributes:
        lang: the language of every text.
        header: the ruleset and its settings, one line each (``Ruleset.describe``); may be
            empty (Amaryllis reports have never printed one).
        names: ``{"A": …, "B": …}``, the two sides' display names (a mirror match labels them).
        sheets: the normalized sheets of A and B (``Ruleset.format_sheet``).
        turns: the turns in order (turn 0 only when something happened in it).
        verdict: the result in words (``グリスクの勝利`` / ``Grisk wins``, or the draw).
        explanation: why, in words (the judge and the numbers), one line each.
        outcome: the generic outcome (for a checkpoint: the judges as they would stand now).
        private: private blocks (:class:`PrivateBlock`), at most one per side; ``()`` in a
            public report. Templates render the blocks they are given.
        checkpoint: ``None`` for a finished battle; for a battle stopped at a checkpoint
            (:class:`BattleInputs`), the turn after which it stopped: the report is the state
            so far, not a result.
    """

    lang: str
    header: tuple[str, ...]
    names: Mapping[str, str]
    sheets: tuple[str, str]
    turns: tuple[ReportTurn, ...]
    verdict: str
    explanation: tuple[str, ...]
    outcome: Outcome
    private: tuple[PrivateBlock, ...] = ()
    checkpoint: int | None = None

    def public(self) -> BattleReport:
        """This report without any private block (for pages, feeds and the opponent)."""
        return self if not self.private else replace(self, private=())

    def for_side(self, side: int) -> BattleReport:
        """This report with ``side``'s private block only (the mail to that side)."""
        return replace(self, private=tuple(b for b in self.private if b.side == side))


# --------------------------------------------------------------------------- the interface


class Ruleset(ABC):
    """One game of the family. Subclasses set the class metadata and implement the methods.

    Class attributes:
        name: the identifier stored with leagues (``amaryllis``, ``margaret``, ``margaret-hundred``).
        aliases: other names accepted on the command line and in organizer mail.
        titles: ``{"ja": …, "en": …}``, the game's name for people.
        engine_version: bumped whenever a rules change may change a result; stored with every
            battle (a recomputed log with another version says so).
        party: ``True`` when a side may hold several fighters (builds, parties).
        final_lines: ``True`` when a league report lists each side's final fighters under the
            result (``False`` where the log's last state lines say all of it already).
        report_record: ``True`` when a league report's header prints the ruleset record
            (:meth:`describe`) even with the default options.
        takes_orders: ``True`` when each entry also sends *orders* per pairing (hidden
            information: a hand, standing orders; :meth:`parse_orders`, :meth:`fight`).

    An instance holds the league's options for this ruleset; ``Ruleset()`` means the defaults.
    Instances are immutable, hashable by their options, and picklable.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    titles: ClassVar[Mapping[str, str]]
    engine_version: ClassVar[str]
    party: ClassVar[bool] = False
    final_lines: ClassVar[bool] = True
    report_record: ClassVar[bool] = True
    takes_orders: ClassVar[bool] = False

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        """Validate and keep the league options. Raises ``ValueError`` naming the bad option."""
        if options:
            raise ValueError(f"{self.name} takes no options, got {sorted(options)}")

    # -- options ------------------------------------------------------------------------------

    @property
    def options(self) -> dict[str, Any]:
        """The normalized options, JSON-ready (stored in ``leagues.options``); ``{}`` for none."""
        return {}

    def describe(self, lang: str) -> list[str]:
        """The ruleset and its settings, one line each, for report headers and ``league show``
        (``rules/margaret-hundred.md`` §12.10: pool, budget, MP table, party cap, …)."""
        return [self.titles.get(lang, self.name)]

    # -- sheets -------------------------------------------------------------------------------

    @abstractmethod
    def parse_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """Read and validate a sheet. Never raises, for any string. ``lang`` overrides the
        language of the messages (default: the sheet's notation)."""

    @abstractmethod
    def format_sheet(self, entry: Any, lang: str | None = None) -> str:
        """The normalized notation of ``entry``; ``parse_sheet(format_sheet(e)).entry == e``."""

    @abstractmethod
    def format_costs(self, entry: Any, lang: str | None = None) -> str:
        """The cost breakdown of ``entry`` against its budget, in words (the acceptance reply)."""

    @abstractmethod
    def format_problems(self, problems: Sequence[ProblemLike], lang: str) -> str:
        """One block per problem: line, quote, rule, fix (``rules/amaryllis.md`` §1.3)."""

    @abstractmethod
    def label(self, entry: Any) -> str:
        """The short name of an entry in standings and pairings (the unit's name)."""

    @abstractmethod
    def starts_sheet(self, line: str) -> bool:
        """True when ``line`` starts a sheet of this ruleset (a unit or swordmaster line). The
        mail layer splits bodies with it and never reads such a line as a command, so it must be
        linear in ``len(line)`` and hold for a line that has HP/ATK/DEF/SPD's slashes only
        (:func:`has_stat_slashes`)."""

    def sheet_text(self, text: str) -> Any:
        """The sheet in ``text`` as mail reads it (``app.rules.reader.sheet_text``: a
        byte-order mark, ``name:``/``名前：``-style header lines, a ``-- `` signature and a greeting
        above the sheet's first line blanked, line numbers kept): a
        :class:`app.rules.reader.SheetText` (``text``, ``headers``, ``greeting``)."""
        from app.rules.reader import sheet_text

        return sheet_text(text, self.starts_sheet, self.greeting_lines)

    def read_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """:meth:`parse_sheet` of the sheet in a text written as a player writes one, to mail
        or to a file (:meth:`sheet_text`): what the offline commands read files with."""
        return self.parse_sheet(self.sheet_text(text).text, lang=lang)

    def greeting_lines(self, text: str) -> int:
        """How many lines stand above the first sheet line, blank ones included: the mail
        layer blanks ``text.split("\\n")[:n]`` and notes the greeting (the Amaryllis
        convention, ``notation.greeting_lines``). 0 when no line starts a sheet. Rulesets
        override it when some lines above the sheet line still belong to the sheet."""
        for i, line in enumerate(text.split("\n")):
            if self.starts_sheet(line):
                return i
        return 0

    @abstractmethod
    def recognizes(self, text: str) -> bool:
        """True when ``text`` looks written in this ruleset's notation (used to guess a ruleset
        offline and to tell a player that a sheet belongs to another league's game)."""

    @abstractmethod
    def example_sheet(self, lang: str) -> str:
        """A short valid sheet in ``lang``'s notation, for help texts and wrong-ruleset replies."""

    @abstractmethod
    def sample_sheets(self) -> list[str]:
        """Valid sheets of sample units (opponents of a one-sheet test battle, the demo)."""

    def demo_options(self) -> dict[str, Any]:
        """League options that show the ruleset's settings off (``amaryllis demo`` opens its
        league with them, so the report headers print a non-default record); ``{}``: none."""
        return {}

    def demo_sheets(self) -> list[str]:
        """The sheets ``amaryllis demo`` mails in for this ruleset (default: the sample sheets;
        a ruleset with parties adds one that builds a party)."""
        return list(self.sample_sheets())

    def public_sheet(self, entry: Any, lang: str | None = None) -> str:
        """What anyone may see of ``entry`` once the league's sheets are public (pages, feeds,
        the opponent's mails): by default the whole normalized sheet (:meth:`format_sheet`). A
        ruleset whose entries carry hidden information returns its public part only."""
        return self.format_sheet(entry, lang)

    # -- between battles (league policy) ------------------------------------------------------

    def rewrite_request(self, outcome: Outcome) -> tuple[int, int] | None:
        """A battle's request to rewrite an entry for the battles that follow it, read from its
        outcome: ``(side to rewrite, side whose registered entry it becomes)``, or ``None``.
        The engine never applies it; a league whose format plays later battles applies the
        requests between rounds, in the published pairing order, the last one for an entry
        winning (``rules/margaret-hundred.md`` H58). Default: no such effect."""
        return None

    @property
    def requests_rewrites(self) -> bool:
        """Whether :meth:`rewrite_request` may ever return a request (the ruleset overrides
        it): a league skips reading a round's outcomes for requests when it cannot."""
        return type(self).rewrite_request is not Ruleset.rewrite_request

    def without_rewrites(self) -> Ruleset:
        """This ruleset in a league that applies no rewrite (a single round robin, H58): the
        same battles, with a record and outcomes that say so. Default: ``self``."""
        return self

    def random_entry(self, rng: RandomSource, name: str | None = None) -> Any:
        """A random valid entry drawn from ``rng`` (``name``: its name, or one the ruleset
        picks), for property tests and benchmarks; ``format_sheet`` of it parses back to it.
        Optional: raises ``NotImplementedError`` for a ruleset without a generator."""
        raise NotImplementedError(f"{self.name} has no random entry generator")

    # -- battles ------------------------------------------------------------------------------

    @abstractmethod
    def battle(self, a: Any, b: Any, *, log: bool = True) -> Any:
        """Fight entry ``a`` (side A) against ``b`` (side B); deterministic. With ``log=False`` no
        event log is kept (faster); the outcome is the same."""

    @abstractmethod
    def outcome(self, result: Any) -> Outcome:
        """The generic :class:`Outcome` of a result of :meth:`battle`."""

    def winner_and_margin(self, result: Any) -> tuple[int | None, int]:
        """``(outcome.winner, outcome.margin)`` of a result: what standings need, for callers
        that fight many battles (the offline tournament). Rulesets may compute it faster than
        :meth:`outcome`; the default asks :meth:`outcome`."""
        o = self.outcome(result)
        return o.winner, o.margin

    @abstractmethod
    def result_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """The ``battle --json`` object: ``winner`` (``"A"``/``"B"``/``None``), ``reason``,
        ``turns``, ``final`` (the shape each ruleset documents), and ``events`` when asked."""

    @abstractmethod
    def report(self, a: Any, b: Any, result: Any, *, lang: str) -> BattleReport:
        """The report of a logged result. Raises ``ValueError`` when ``result`` has no log.
        For a ruleset with hidden information this is the *public* report (no private
        block)."""

    # -- hidden information and orders (defaults: a ruleset without orders) ---------------------

    def is_orders(self, text: str) -> bool:
        """True when ``text`` looks like an orders text of this ruleset rather than a sheet
        (``check`` tells them apart with it). Default: ``False``. Linear in ``len(text)``."""
        return False

    def parse_orders(self, text: str, *, lang: str | None = None) -> OrdersSheet:
        """Read and validate an orders text. Never raises for a ``str`` (every error is a
        problem with its line, quote and fix). ``lang`` overrides the language of the messages.
        Raises ``NotImplementedError`` when the ruleset takes no orders (the default)."""
        raise NotImplementedError(f"{self.name} takes no orders")

    def format_orders(self, orders: Any, lang: str | None = None) -> str:
        """The normalized text of parsed orders (``OrdersSheet.orders``), which reads back to
        the same value. Raises ``NotImplementedError`` when the ruleset takes no orders."""
        raise NotImplementedError(f"{self.name} takes no orders")

    def orders_for(self, orders: Any, opponent: str | None) -> Any | None:
        """The part of parsed orders (``OrdersSheet.orders``) that applies against the
        opponent whose entry is labelled ``opponent`` (its sections and default, the ruleset's
        rule), or ``None`` for "no orders against it"; ``opponent=None`` asks for the orders of
        an offline battle with no pairing. Raises ``ValueError`` when the text cannot serve
        that battle (say, several sections and no default offline). Default: ``None``."""
        return None

    def revise_orders(
        self, current: Any, text: str, *, from_turn: int, lang: str | None = None
    ) -> OrdersSheet:
        """Orders revised at a checkpoint: ``text`` holds the new version(s) of the rules, in
        force from turn ``from_turn`` (or later); ``current`` is :meth:`orders_for`'s value in
        use. The returned sheet's ``orders`` is the new value for :class:`BattleInputs` (the
        battle is replayed from the start with every version). Never raises for a ``str``.
        Raises ``NotImplementedError`` when the ruleset takes no orders."""
        raise NotImplementedError(f"{self.name} takes no orders")

    def orders_start(self, text: str) -> int | None:
        """The index (0-based) of the first line of ``text`` where an orders text begins (a
        mail may carry a sheet and then its orders), or ``None`` when there is none. Default:
        ``None``. Linear in ``len(text)``."""
        return None

    def orders_command(self, text: str) -> tuple[str | None, str | None] | None:
        """The league name and the entry key an orders text's own command line names (a
        ruleset may give its orders mail one, e.g. ``MAGICALIZED <league> HAND <key>``), each
        ``None`` when absent; ``None`` when ``text`` has no such line (the default)."""
        return None

    def orders_form(self, league: str, key: str, opponent: str, lang: str) -> str:
        """A skeleton of the orders mail for a battle against ``opponent``'s unit (``""``: for
        every opponent) in league ``league`` with entry key ``key`` (pairing mails, entry
        replies), in ``lang``; ``""`` for a ruleset without orders."""
        return ""

    def revision_form(self, from_turn: int, lang: str) -> str:
        """How a player writes a revision of their orders in force from turn ``from_turn``
        (checkpoint mails), in ``lang``; ``""`` for a ruleset without checkpoints."""
        return ""

    def checkpoint_turns(self) -> tuple[int, ...]:
        """The turns after which a league stops a battle so that players may revise their
        orders (its options), in order; ``()`` for none (the default)."""
        return ()

    def lead_text(self, seed: str, name_a: str, name_b: str, lang: str) -> str:
        """The pairing's draw in words, with how anyone recomputes it from the published
        ``seed`` and the two labels (pairing mails); ``""`` for a ruleset without a draw."""
        return ""

    def lead_draw(self, seed: str, name_a: str, name_b: str) -> int:
        """The pairing's draw (``BattleInputs.lead``): a pure function of the league's
        published seed and the two entries' labels as paired (side A first), so that anyone can
        recompute it. Default: ``0`` (the ruleset has no draw)."""
        return 0

    def fight(self, a: Any, b: Any, inputs: BattleInputs | None = None, *, log: bool = True) -> Any:
        """:meth:`battle` with the per-battle ``inputs`` (orders, lead, checkpoint). Default:
        the inputs are ignored (a ruleset without orders)."""
        return self.battle(a, b, log=log)

    def checkpoint(self, result: Any) -> int | None:
        """The turn after which a battle fought with ``BattleInputs.stop_after`` stopped, or
        ``None`` for a finished battle (:meth:`outcome` then applies). Default: ``None``."""
        return None

    def public_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """The part of the result anyone may read (``battle --json``, pages, feeds, the
        opponent). Default: :meth:`result_json`."""
        return self.result_json(result, events=events)

    def private_json(self, result: Any, side: int) -> dict[str, Any]:
        """What only ``side`` (0 or 1) may read of the result (say, its remaining hand and rule
        trace). Default: ``{}``."""
        return {}

    def report_for(
        self, a: Any, b: Any, result: Any, *, lang: str, side: int | None = None
    ) -> BattleReport:
        """The report for ``side``: the public report plus that side's private block
        (``side=None``: the public report). Default: :meth:`report`."""
        return self.report(a, b, result, lang=lang)

    # -- identity -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Ruleset)
            and type(self) is type(other)
            and self.options == other.options
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(sorted(self.options.items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


# --------------------------------------------------------------------------- registry

RULESETS: dict[str, type[Ruleset]] = {}
"""Every registered ruleset by name (aliases are resolved by :func:`find_ruleset`)."""


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator: add ``cls`` to :data:`RULESETS`. Raises ``ValueError`` on a name clash."""
    for key in (cls.name, *cls.aliases):
        other = lookup(key)
        if other is not None and other is not cls:
            raise ValueError(f"ruleset name {key!r} is taken by {other.__name__}")
    RULESETS[cls.name] = cls
    return cls


def lookup(name: str) -> type[Ruleset] | None:
    """The registered ruleset called ``name`` or one of its aliases (case-insensitive), or ``None``.
    Only rulesets already imported are registered: use ``app.rules.find_ruleset``."""
    key = name.strip().lower()
    for cls in RULESETS.values():
        if key == cls.name or key in cls.aliases:
            return cls
    return None
