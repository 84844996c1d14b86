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
    def of(cls, number: int, pairings: Iterable[Pairing],
           results: Mapping[int, Result] | None = None) -> Round:
        """A round from its pairings and ``results`` by board number (missing: not fought)."""
        res = results or {}
        return cls(number, tuple(Game(p, None if p.b is None else res.get(p.board))
                                 for p in pairings))


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
            "entry": self.entry, "rank": self.rank, "shared": self.shared,
            "played": self.played, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "byes": self.byes, "points": fraction_json(self.points),
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


SEED_OPTION = Option("seed", parse_seed, "", {
    "ja": "公開シード（抽選に使う文字列）", "en": "the published seed of every draw"})


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

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        """Validate and keep ``options``. Raises ``ValueError`` naming the bad option: an
        unknown one (the message lists the known ones), a missing required one, or a value its
        parser refuses."""
        specs = {o.name: o for o in (*self.option_specs, SEED_OPTION)}
        given: dict[str, Any] = {}
        for key, value in (options or {}).items():
            k = str(key).strip().lower().replace("-", "_")
            if k not in specs:
                raise ValueError(f"unknown option {key!r} for format {self.name} "
                                 f"(known: {', '.join(sorted(specs))})")
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

    def _check(self, options: Mapping[str, Any]) -> None:
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

    # -- pairing and standings ----------------------------------------------------------------

    @abstractmethod
    def next_round(self, entries: Sequence[int], history: Sequence[Round], *,
                   inactive: Iterable[int] = ()) -> NextRound:
        """The next round's pairings, or "not yet", or "finished".

        ``entries``: entry ids in seed order (every entry ever seated); ``history``: the rounds
        so far in order; ``inactive``: entries not to pair any more (their games are void for
        scores, as a disqualification voids them). Raises ``ValueError`` on a history that does
        not fit (rounds not numbered 1, 2, …; an entry not in ``entries``).
        """

    @abstractmethod
    def standings(self, entries: Sequence[int], history: Sequence[Round], *,
                  inactive: Iterable[int] = ()) -> Standings:
        """The ranked standings of the active entries after ``history`` (games with an inactive
        entry are ignored). Ties on every criterion share a rank and keep seed order."""

    # -- identity -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and isinstance(other, Format) \
            and self.options == other.options

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
                    raise ValueError(f"round {last.number} board {g.pairing.board}: "
                                     f"unknown entry {e}")


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
