"""The ``Format`` interface: how a league is paired round after round, and how it is ranked.

Modelled on cutechess's ``Tournament`` (``initializePairing()``, ``gamesPerCycle()``,
``nextPair()`` which may answer "not yet"): a format is a subclass of :class:`Format` with class
metadata (``name``, ``aliases``, ``titles``, its options), found by name in one registry
(:func:`app.formats.find_format`, like ``find_ruleset``). An *instance* carries the league's
options for it (validated and normalized, JSON-ready: :attr:`Format.options`).

The league layer asks :meth:`Format.next_round` after every round and after a crash, with

* ``entries``: the entry ids in seed (entry) order, every entry ever seated, and
* ``history``: the rounds so far (:class:`Round`: its pairings and each battle's
  :class:`Result`, ``None`` while not fought), and
* ``inactive``: the entries that take no further part (disqualified, withdrawn),

and gets :class:`RoundPairings` (store and fight these), :class:`NotYet` (results of the current
round are missing, or nothing to pair yet) or :class:`Finished`. The answer is a pure function of
its inputs: asking twice gives the same pairings, so a crash between "paired" and "stored" costs
nothing. Byes are explicit boards (``Pairing(b=None)``).

Sides are ``0`` (A, the first sheet) and ``1`` (B); a result's ``margin`` is side A's HP margin
(``app.rules.base.Outcome.margin``). This module is pure: no I/O, no clock, no randomness (seeded
draws: :mod:`app.formats.seeding`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Final, Protocol, TypeVar

LANGS: tuple[str, str] = ("ja", "en")


# --------------------------------------------------------------------------- values


class OutcomeLike(Protocol):
    """What formats read of a battle's outcome: the shape of ``app.rules.base.Outcome``
    (``winner`` 0/1/``None``, ``margin`` side A's HP margin). A protocol, so that this package
    needs nothing from the rest of ``app``."""

    @property
    def winner(self) -> int | None: ...
    @property
    def margin(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of one round.

    Attributes:
        board: 1-based board number within the round (byes are the last boards).
        a: the entry on side A (the first sheet of the battle).
        b: the entry on side B, or ``None`` when ``a`` has a bye (no battle).
    """

    board: int
    a: int
    b: int | None = None

    @property
    def is_bye(self) -> bool:
        """True when this board is a bye."""
        return self.b is None

    def to_json(self) -> dict[str, Any]:
        """``{"board", "a", "b"}`` (``b`` is ``null`` for a bye)."""
        return {"board": self.board, "a": self.a, "b": self.b}


@dataclass(frozen=True, slots=True)
class Result:
    """The part of a battle's outcome that formats read.

    Attributes:
        winner: ``0`` (side A won), ``1`` (side B won) or ``None`` (a draw).
        margin: side A's margin over side B in HP (``Outcome.margin``); side B's is ``-margin``.
    """

    winner: int | None
    margin: int = 0

    def __post_init__(self) -> None:
        if self.winner not in (0, 1, None):
            raise ValueError(f"winner must be 0, 1 or None, got {self.winner!r}")

    @classmethod
    def from_outcome(cls, outcome: OutcomeLike) -> Result:
        """The result of a generic battle outcome (``app.rules.base.Outcome``)."""
        return cls(outcome.winner, outcome.margin)

    def flipped(self) -> Result:
        """The same result seen with the sides swapped."""
        return Result(None if self.winner is None else 1 - self.winner, -self.margin)

    def to_json(self) -> dict[str, Any]:
        """``{"winner", "margin"}``."""
        return {"winner": self.winner, "margin": self.margin}


@dataclass(frozen=True, slots=True)
class Game:
    """A board and its result (``None`` until the battle is fought; always ``None`` for a bye)."""

    pairing: Pairing
    result: Result | None = None

    @property
    def a(self) -> int:
        """Side A's entry."""
        return self.pairing.a

    @property
    def b(self) -> int | None:
        """Side B's entry, ``None`` for a bye."""
        return self.pairing.b

    @property
    def is_bye(self) -> bool:
        """True for a bye board."""
        return self.pairing.b is None

    @property
    def done(self) -> bool:
        """True when the board needs nothing more: a bye, or a fought battle."""
        return self.pairing.b is None or self.result is not None

    def winner_entry(self) -> int | None:
        """The entry that won, ``None`` for a draw, a bye or no result yet."""
        if self.result is None or self.result.winner is None or self.pairing.b is None:
            return None
        return self.pairing.a if self.result.winner == 0 else self.pairing.b


@dataclass(frozen=True, slots=True)
class Round:
    """One round of the history: its number and its boards with their results.

    ``number`` is 1-based; rounds of a history are numbered 1, 2, 3, … in order. A hill challenge
    and an accumulating update are rounds too (their boards may hold an entry several times).
    """

    number: int
    games: tuple[Game, ...]

    @property
    def complete(self) -> bool:
        """True when every board has its result (byes need none)."""
        return all(g.done for g in self.games)

    @property
    def pending(self) -> tuple[int, ...]:
        """The board numbers still waiting for a result."""
        return tuple(g.pairing.board for g in self.games if not g.done)

    @classmethod
    def of(
        cls, number: int, pairings: Iterable[Pairing], results: Mapping[int, Result] | None = None
    ) -> Round:
        """A round from its pairings and ``results`` by board number (missing: not fought)."""
        res = results or {}
        return cls(
            number, tuple(Game(p, None if p.b is None else res.get(p.board)) for p in pairings)
        )


@dataclass(frozen=True, slots=True)
class RoundPairings:
    """``next_round``'s answer "play these": the pairings of round ``round``.

    ``note`` is a stable code naming what the round is (``""``, ``"final"``, ``"grand-final"``,
    ``"challenge"``, ``"update"``, …) for reports.
    """

    round: int
    pairings: tuple[Pairing, ...]
    note: str = ""

    def to_round(self, results: Mapping[int, Result] | None = None) -> Round:
        """The :class:`Round` these pairings make, with ``results`` by board number."""
        return Round.of(self.round, self.pairings, results)


@dataclass(frozen=True, slots=True)
class NotYet:
    """``next_round``'s answer "not yet": nothing can be paired now.

    ``reason`` is a stable code: ``results-pending`` (round ``round`` has boards ``pending``
    without a result: fight them first) or ``waiting-for-entries`` (the hill or an accumulating
    round robin with nothing new to pair).
    """

    reason: str
    round: int = 0
    pending: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Finished:
    """``next_round``'s answer "finished". ``reason`` is a stable code: ``all-rounds-played``,
    ``champion`` (a knockout has its winner), ``too-few-entries`` (fewer than two active
    entries), ``no-legal-pairing`` (Swiss: no pairing without a repeated pair is left)."""

    reason: str


NextRound = RoundPairings | NotYet | Finished
"""What :meth:`Format.next_round` answers."""


@dataclass(frozen=True, slots=True)
class Decision:
    """Who went through a board of a format that decides every board (a knockout), and why.

    Attributes:
        winner: the entry that goes through.
        loser: the entry that is beaten (``None`` for a bye).
        by: ``win`` (the battle's winner), ``margin`` (a draw, the greater HP margin), ``lot``
            (a draw with equal margins: the seeded lot) or ``bye``.
        margin: side A's HP margin in the battle (0 for a bye).
    """

    winner: int
    loser: int | None
    by: str
    margin: int = 0


@dataclass(frozen=True, slots=True)
class PushedOff:
    """An entry that an arrival pushed off a format with a capacity (the hill): its
    ``place`` in the order that dropped it (``size + 1``, ``size + 2``, …), its points there
    and its ``age`` (arrivals survived)."""

    entry: int
    place: int
    points: Fraction
    age: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "entry": self.entry,
            "place": self.place,
            "points": fraction_text(self.points),
            "age": self.age,
        }


@dataclass(frozen=True, slots=True)
class ArrivalRecord:
    """One arrival in the kept record of a format that fights entries on arrival: its
    ``number`` (the round), the arriving ``entry``, its ``place`` after it, whether it
    ``replaced`` its sheet, and the entries it ``pushed_off``."""

    number: int
    entry: int
    place: int | None
    replaced: bool
    pushed_off: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class EntryUpdate:
    """What an arrival did in a format that ``fights_on_entry`` (:meth:`Format.apply_entry`).

    Attributes:
        state: the new kept state.
        entry: the arriving entry.
        place: its rank in :attr:`table` after the arrival, or its place in the push-off order
            when it was pushed off at once.
        replaced: True when it was already in and replaced its sheet.
        pushed_off: the entries pushed off (maybe the arriving one), lowest last.
        table: the standings after the arrival.
    """

    state: Any
    entry: int
    place: int
    replaced: bool
    pushed_off: tuple[PushedOff, ...]
    table: Standings


# --------------------------------------------------------------------------- points


def _fraction(text: str) -> Fraction:
    t = text.strip().replace("½", "1/2")
    if not t or t.startswith("-"):
        raise ValueError(t)
    return Fraction(t)


@dataclass(frozen=True, slots=True)
class Points:
    """Points per win, draw and loss (``3/1/0``, ``1/0.5/0``; exact fractions)."""

    win: Fraction = Fraction(3)
    draw: Fraction = Fraction(1)
    loss: Fraction = Fraction(0)

    @classmethod
    def parse(cls, text: str) -> Points:
        """Parse ``W/D/L`` (numbers such as ``3``, ``0.5``, ``½``). Raises ``ValueError`` on
        anything else, on negative numbers and unless win >= draw >= loss."""
        parts = str(text).strip().split("/")
        try:
            if len(parts) != 3:
                raise ValueError(text)
            w, d, l_ = (_fraction(p) for p in parts)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"points must look like 3/1/0 (win/draw/loss), got {text!r}") from None
        if not w >= d >= l_:
            raise ValueError(f"points must satisfy win >= draw >= loss, got {text!r}")
        return cls(w, d, l_)

    def of(self, score: Fraction) -> Fraction:
        """The points for a game score of 1 (win), 1/2 (draw) or 0 (loss)."""
        if score == 1:
            return self.win
        return self.draw if score == Fraction(1, 2) else self.loss

    def __str__(self) -> str:
        return "/".join(fraction_text(x) for x in (self.win, self.draw, self.loss))


def fraction_text(value: Fraction | int) -> str:
    """``12``, ``12.5`` or ``1/3`` style text of an exact number (for standings and JSON keys):
    integers as integers, terminating decimals as decimals, others as ``p/q``."""
    v = Fraction(value)
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        return format(float(v), "g") if abs(v) < 10**15 else str(v)
    return f"{v.numerator}/{v.denominator}"


def fraction_json(value: Fraction | int) -> int | float:
    """A JSON number for an exact value: an ``int`` when integral, else a ``float``."""
    v = Fraction(value)
    return v.numerator if v.denominator == 1 else float(v)


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One entry's line in a format's standings.

    Attributes:
        entry: the entry id.
        rank: 1-based, standard competition ranking (1, 2, 2, 4): entries equal on the points
            and on every tiebreak share a rank (``shared``).
        shared: True when another entry has the same rank.
        played, wins, draws, losses, byes: counts (a bye is not a game played; in a knockout a
            drawn battle decided by the stated rule counts as a draw here).
        points: the format's primary score (league points; a knockout: rounds survived).
        tiebreaks: ``(name, value)`` for every declared tiebreak, in the format's order
            (values exact: halves occur in Sonneborn-Berger).
        detail: format extras, JSON-ready (``updates``: points per update; ``age``: challenges
            survived on a hill; ``status`` and ``eliminated_in`` in a knockout; …).
    """

    entry: int
    rank: int
    shared: bool
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: Fraction
    tiebreaks: tuple[tuple[str, Fraction], ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    def tiebreak(self, name: str) -> Fraction:
        """The value of tiebreak ``name``. Raises ``KeyError`` when the format has none such."""
        for key, value in self.tiebreaks:
            if key == name:
                return value
        raise KeyError(name)

    @property
    def rank_text(self) -> str:
        """``3`` or ``3=`` when the rank is shared."""
        return f"{self.rank}=" if self.shared else str(self.rank)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: numbers as ``int`` when integral, else ``float``."""
        return {
            "entry": self.entry,
            "rank": self.rank,
            "shared": self.shared,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "byes": self.byes,
            "points": fraction_json(self.points),
            "tiebreaks": {k: fraction_json(v) for k, v in self.tiebreaks},
            "detail": dict(self.detail),
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """A format's standings: ranked ``rows`` and the tiebreak ``columns`` they carry, in order."""

    rows: tuple[StandingRow, ...]
    columns: tuple[str, ...]

    def row(self, entry: int) -> StandingRow:
        """The row of ``entry``. Raises ``KeyError`` when it is not ranked."""
        for r in self.rows:
            if r.entry == entry:
                return r
        raise KeyError(entry)

    def to_json(self) -> dict[str, Any]:
        """``{"columns": [...], "rows": [...]}``."""
        return {"columns": list(self.columns), "rows": [r.to_json() for r in self.rows]}


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a format's standings, as every surface (page, mail, CSV, JSON) shows it.

    Attributes:
        key: the key of the value in a row: a tiebreak name (``StandingRow.tiebreaks``) or a
            ``StandingRow.detail`` key; ``points`` for the primary score.
        titles: ``{"ja": …, "en": …}``, the column's full name (CSV headers, table captions).
        short: ``{"ja": …, "en": …}``, a short header for narrow tables and text mails.
        kind: ``number`` (an exact number), ``signed`` (a number shown with its sign: an HP
            margin), ``code`` (a stable code shown through ``labels``: a knockout's
            ``status``), ``round`` (a round number or none), ``list`` (numbers per update,
            ``None`` where the entry did not play).
        labels: for ``code`` columns, ``{code: {"ja": …, "en": …}}``.
    """

    key: str
    titles: Mapping[str, str]
    short: Mapping[str, str]
    kind: str = "number"
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def title(self, lang: str) -> str:
        """The full title in ``lang`` (English for an unknown language)."""
        return self.titles.get(lang, self.titles.get("en", self.key))

    def short_title(self, lang: str) -> str:
        """The short header in ``lang`` (English for an unknown language)."""
        return self.short.get(lang, self.short.get("en", self.key))

    def text(self, value: Any, lang: str) -> str:
        """``value`` of this column as the tables print it in ``lang``: numbers as
        :func:`fraction_text`, codes by their label, a list as ``3 + - + 6``, ``-`` for none."""
        if value is None:
            return "-"
        if self.kind == "code":
            words = self.labels.get(str(value), {})
            return words.get(lang, words.get("en", str(value)))
        if self.kind == "list":
            return " + ".join("-" if v is None else fraction_text(Fraction(v)) for v in value)
        if self.kind == "signed" and isinstance(value, (int, Fraction)) and value > 0:
            return "+" + fraction_text(value)
        if isinstance(value, (int, Fraction)):
            return fraction_text(value)
        if isinstance(value, float):
            return fraction_text(Fraction(value).limit_denominator(10**6))
        return str(value)

    def json_value(self, value: Any) -> Any:
        """``value`` JSON-ready: exact numbers as ``int``/``float``, a list element-wise."""
        if value is None or self.kind == "code":
            return value
        if self.kind == "list":
            return [None if v is None else fraction_json(Fraction(v)) for v in value]
        if isinstance(value, (int, Fraction)):
            return fraction_json(value)
        return value


POINTS_COLUMN = Column("points", {"ja": "勝ち点", "en": "points"}, {"ja": "点", "en": "Pts"})
"""The primary column of formats ranked by points."""

TIEBREAK_COLUMNS: dict[str, Column] = {}
"""The standings column of every named tiebreak, by name (filled by ``app.formats.tiebreaks``,
which every format imports, so that this module needs nothing of it)."""


# --------------------------------------------------------------------------- options


REQUIRED: Final = object()
"""The default of an option that must be given."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option a format takes.

    Attributes:
        name: its key in ``options`` (``-`` and ``_`` are the same: ``reseed-every-round``).
        parse: turns a given value (from the CLI: often a string) into the normalized,
            JSON-ready value; raises ``ValueError`` with the reason.
        default: the normalized default, or :data:`REQUIRED`.
        help: ``{"ja": …, "en": …}``.
    """

    name: str
    parse: Callable[[Any], Any]
    default: Any
    help: Mapping[str, str]


def parse_bool(value: Any) -> bool:
    """``True``/``False``, or the strings ``true/false/yes/no/1/0/on/off``."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def int_parser(low: int, high: int) -> Callable[[Any], int]:
    """A parser of whole numbers in ``low .. high``."""

    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(f"expected a whole number, got {value!r}")
        try:
            n = int(str(value).strip()) if not isinstance(value, int) else value
        except ValueError:
            raise ValueError(f"expected a whole number, got {value!r}") from None
        if not low <= n <= high:
            raise ValueError(f"must be from {low} to {high}, got {n}")
        return n

    return parse


def parse_points(value: Any) -> str:
    """Normalized ``W/D/L`` text (:class:`Points`)."""
    return str(Points.parse(str(value)))


def parse_seed(value: Any) -> str:
    """The published seed: any text of at most 200 characters, kept as given."""
    text = str(value)
    if len(text) > 200:
        raise ValueError("the seed is longer than 200 characters")
    return text


def tiebreaks_parser(allowed: Iterable[str]) -> Callable[[Any], list[str]]:
    """A parser of a tiebreak list (a list, or comma-separated text) of names in ``allowed``."""
    known = tuple(allowed)

    def parse(value: Any) -> list[str]:
        items = [s.strip() for s in value.split(",")] if isinstance(value, str) else list(value)
        names = [str(s).strip().lower().replace("-", "_") for s in items if str(s).strip()]
        for n in names:
            if n not in known:
                raise ValueError(f"unknown tiebreak {n!r} (known: {', '.join(known)})")
        if len(set(names)) != len(names):
            raise ValueError("a tiebreak is listed twice")
        return names

    return parse


SEED_OPTION = Option(
    "seed",
    parse_seed,
    "",
    {"ja": "公開シード（抽選に使う文字列）", "en": "the published seed of every draw"},
)


# --------------------------------------------------------------------------- the interface


class Format(ABC):
    """A way to run a league. Subclasses set the class metadata and implement the methods.

    Class attributes:
        name: the identifier stored with leagues (``round-robin``, ``swiss``, ``knockout``,
            ``hill``, ``accumulating``).
        aliases: other names accepted on the command line and in organizer mail.
        titles: ``{"ja": …, "en": …}``, the format's name for people.
        option_specs: the options it takes (every format takes ``seed``).

    An instance holds the league's options; ``Format()`` means the defaults (a format with a
    required option raises ``ValueError`` then). Instances are immutable and compare equal by
    class and options.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    titles: ClassVar[Mapping[str, str]]
    option_specs: ClassVar[tuple[Option, ...]] = ()

    # -- capabilities: what the league, mail and web layers read instead of the format's name --
    #: takes entries at any time and never closes: no entry deadline, entrants public at once
    always_open: ClassVar[bool] = False
    #: an entry (or a replacement) is fought at once: :meth:`entry_pairings`, :meth:`apply_entry`
    fights_on_entry: ClassVar[bool] = False
    #: keeps a state the rounds do not record (``leagues.format_state``): :meth:`load_state`
    keeps_state: ClassVar[bool] = False
    #: a drawn battle is decided by a stated rule (:meth:`decide`, :meth:`decision_text`)
    decides_draws: ClassVar[bool] = False
    #: players may replace their entry after entries close, between rounds (fought from the
    #: next round on; nothing of the new sheet is public before it has fought)
    replaces_between_rounds: ClassVar[bool] = False
    #: every round's pairings are known when entries close (stored all at once)
    pairs_at_close: ClassVar[bool] = False
    #: each round pits every entry against every other (mail digests, not a report a battle)
    all_play_all: ClassVar[bool] = False
    #: a cross-table (every entry against every other) says something about the league
    cross_table: ClassVar[bool] = False
    #: how a league of it is shown: ``table`` (standings and rounds), ``bracket`` (who
    #: advanced, round by round) or ``hill`` (the live table, recent challenges, push-offs)
    view: ClassVar[str] = "table"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        """Validate and keep ``options``. Raises ``ValueError`` naming the bad option: an
        unknown one (the message lists the known ones), a missing required one, or a value its
        parser refuses."""
        specs = {o.name: o for o in (*self.option_specs, SEED_OPTION)}
        given: dict[str, Any] = {}
        for key, value in (options or {}).items():
            k = str(key).strip().lower().replace("-", "_")
            if k not in specs:
                raise ValueError(
                    f"unknown option {key!r} for format {self.name} "
                    f"(known: {', '.join(sorted(specs))})"
                )
            given[k] = value
        normalized: dict[str, Any] = {}
        for k, spec in specs.items():
            if k in given:
                try:
                    normalized[k] = spec.parse(given[k])
                except ValueError as exc:
                    raise ValueError(f"option {k!r} of format {self.name}: {exc}") from None
            elif spec.default is REQUIRED:
                raise ValueError(f"format {self.name} needs option {k!r}")
            else:
                normalized[k] = spec.default
        self._options = normalized
        self._check(normalized)

    def _check(self, options: Mapping[str, Any]) -> None:  # noqa: B027 (a hook, empty by default)
        """Cross-option checks of a subclass (raise ``ValueError`` naming the option)."""

    # -- options ------------------------------------------------------------------------------

    @property
    def options(self) -> dict[str, Any]:
        """The normalized options, JSON-ready (``leagues.options``); a copy."""
        return dict(self._options)

    @property
    def seed(self) -> str:
        """The published seed (option ``seed``)."""
        return str(self._options["seed"])

    @property
    def tiebreaks(self) -> tuple[str, ...]:
        """The names of the tiebreaks after the points, in order (:mod:`app.formats.tiebreaks`)."""
        return tuple(self._options.get("tiebreaks", ()))

    def describe(self, lang: str) -> list[str]:
        """What the format is, its settings and how the next round is paired, one line each, in
        ``lang`` (``ja``/``en``): for standings mails, reports and ``league show``."""
        return [self.titles.get(lang, self.name)]

    def rounds_planned(self, n_entries: int) -> int | None:
        """How many rounds ``n_entries`` entries will play (cutechess's ``gamesPerCycle``), or
        ``None`` when it depends on the results or never ends (double elimination, the hill)."""
        return None

    def schedule(self, entries: Sequence[int]) -> tuple[RoundPairings, ...]:
        """Every round's pairings, in order, for a format that ``pairs_at_close`` (results
        never change them): round k is what :meth:`next_round` answers after k − 1 complete
        rounds with no entry inactive. Raises ``NotImplementedError`` for other formats."""
        raise NotImplementedError(f"format {self.name} pairs round by round")

    @property
    def applies_rewrites(self) -> bool:
        """True when a battle's request to rewrite an entry (``Ruleset.rewrite_request``) is
        applied between rounds: some later battle can use the rewritten entry
        (``rules/margaret-hundred.md`` H58; a single round robin ignores them)."""
        return True

    # -- standings columns --------------------------------------------------------------------

    def primary_column(self) -> Column:
        """The column of the primary score (``StandingRow.points``): points by default."""
        return POINTS_COLUMN

    def columns(self) -> tuple[Column, ...]:
        """Every column after the primary one, in order: the tiebreaks (``tiebreaks``) then the
        format's own detail columns. Every surface prints exactly these. Raises ``KeyError``
        for a tiebreak without a column (``app.formats.tiebreaks.TIEBREAKS`` has them all)."""
        return tuple(TIEBREAK_COLUMNS[n] for n in self.tiebreaks) + self.detail_columns()

    def detail_columns(self) -> tuple[Column, ...]:
        """The format's own columns of ``StandingRow.detail`` (none by default)."""
        return ()

    # -- a format that fights entries on arrival (``fights_on_entry``) -------------------------

    def load_state(self, data: Mapping[str, Any] | None) -> Any:
        """The kept state from its JSON (``None``: the empty state). Formats with
        ``keeps_state`` override it; others have no state (``None``)."""
        return None

    def state_json(self, state: Any) -> dict[str, Any] | None:
        """The JSON of a kept state (the inverse of :meth:`load_state`)."""
        return None

    def entry_pairings(self, state: Any, entry: int) -> tuple[Pairing, ...]:
        """The boards ``entry`` fights on arriving (side A), given the kept ``state``. Raises
        ``NotImplementedError`` unless the format ``fights_on_entry``."""
        raise NotImplementedError(f"format {self.name} does not fight entries on arrival")

    def apply_entry(self, state: Any, entry: int, results: Mapping[int, Result]) -> EntryUpdate:
        """Apply ``entry``'s arrival: ``results`` maps each opponent of :meth:`entry_pairings`
        to the result seen from ``entry`` (side A). Raises ``NotImplementedError`` unless the
        format ``fights_on_entry``; ``ValueError`` when the results do not fit the pairings."""
        raise NotImplementedError(f"format {self.name} does not fight entries on arrival")

    def leave(self, state: Any, entry: int) -> Any:
        """The kept state after ``entry`` left (withdrawn or disqualified); unchanged by
        default."""
        return state

    def arrivals(self, state: Any) -> tuple[ArrivalRecord, ...]:
        """Every arrival in the kept ``state``, oldest first (none by default)."""
        return ()

    @property
    def arrivals_per_day(self) -> int | None:
        """How many arrivals (an entry or a replacement fought at once) one entry may make in
        a UTC day, or ``None`` for no limit (the default; a format that ``fights_on_entry``
        caps them with an option, since each arrival fights every member)."""
        return None

    # -- a format that decides drawn battles (``decides_draws``) ---------------------------------

    def decide(self, round_number: int, game: Game) -> Decision | None:
        """Who goes through ``game`` of round ``round_number`` and how, or ``None`` (no result
        yet, or the format decides nothing)."""
        return None

    def decision_text(self, decision: Decision, lang: str) -> str:
        """Why ``decision.winner`` went through, in ``lang``, with ``{winner}``/``{loser}`` left
        for the caller's names; ``""`` by default."""
        return ""

    def draw_rule(self, lang: str) -> str:
        """The stated rule for drawn battles, in ``lang``; ``""`` by default."""
        return ""

    # -- pairing and standings ----------------------------------------------------------------

    @abstractmethod
    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        """The next round's pairings, or "not yet", or "finished".

        ``entries``: entry ids in seed order (every entry ever seated); ``history``: the rounds
        so far in order; ``inactive``: entries not to pair any more (their games are void for
        scores, as a disqualification voids them). Raises ``ValueError`` on a history that does
        not fit (rounds not numbered 1, 2, …; an entry not in ``entries``).
        """

    @abstractmethod
    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: Any = None,
    ) -> Standings:
        """The ranked standings of the active entries after ``history`` (games with an inactive
        entry are ignored). Ties on every criterion share a rank and keep seed order.
        ``state``: a format that ``keeps_state`` ranks from it when given (the league's kept
        state after the whole history); others ignore it."""

    # -- identity -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other)
            and isinstance(other, Format)
            and self.options == other.options
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(sorted(self.options.items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


# --------------------------------------------------------------------------- helpers


def check_history(entries: Sequence[int], history: Sequence[Round]) -> None:
    """Raise ``ValueError`` unless rounds are numbered 1, 2, … and the last round names only
    known entries (each round is the last one once, when the league asks after playing it, so
    this costs one round's boards per call, not the whole history's)."""
    if len(set(entries)) != len(entries):
        raise ValueError("duplicate entry ids")
    for i, rnd in enumerate(history, start=1):
        if rnd.number != i:
            raise ValueError(f"round {rnd.number} found where round {i} was expected")
    if history:
        known = set(entries)
        last = history[-1]
        for g in last.games:
            for e in (g.a, g.b):
                if e is not None and e not in known:
                    raise ValueError(
                        f"round {last.number} board {g.pairing.board}: unknown entry {e}"
                    )


def pending_round(history: Sequence[Round]) -> NotYet | None:
    """``NotYet("results-pending")`` when the last round is not complete, else ``None``."""
    if history and not history[-1].complete:
        last = history[-1]
        return NotYet("results-pending", last.number, last.pending)
    return None


def number_boards(pairs: Iterable[tuple[int, int | None]]) -> tuple[Pairing, ...]:
    """Boards numbered 1, 2, … in the given order, byes moved after the real boards."""
    items = list(pairs)
    real = [p for p in items if p[1] is not None]
    byes = [p for p in items if p[1] is None]
    return tuple(Pairing(i, a, b) for i, (a, b) in enumerate(real + byes, start=1))


# --------------------------------------------------------------------------- registry

FORMATS: dict[str, type[Format]] = {}
"""Every registered format by name (aliases are resolved by :func:`lookup`)."""


FormatClass = TypeVar("FormatClass", bound=type[Format])


def register(cls: FormatClass) -> FormatClass:
    """Class decorator: add ``cls`` to :data:`FORMATS`. Raises ``ValueError`` on a name clash."""
    for key in (cls.name, *cls.aliases):
        other = lookup(key)
        if other is not None and other is not cls:
            raise ValueError(f"format name {key!r} is taken by {other.__name__}")
    FORMATS[cls.name] = cls
    return cls


def lookup(name: str) -> type[Format] | None:
    """The registered format called ``name`` or one of its aliases (case-insensitive; ``_`` and
    ``-`` are the same), or ``None``. Use :func:`app.formats.find_format`."""
    key = name.strip().lower().replace("_", "-")
    for cls in FORMATS.values():
        if key == cls.name or key in cls.aliases:
            return cls
    return None
