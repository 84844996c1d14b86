"""The hill ("king of the hill", as in mail-in programming games): always open, at most ``size``
members.

A newcomer, or a member that replaced its unit, **challenges** every other member at once (one
battle each, the challenger on side A). Then every member's score is its points over the hill's
*current* members only, the table is ranked, and the lowest beyond ``size`` are **pushed off**
(their results stop counting for everyone). A member's **age** is the number of challenges it has
survived (it stayed on through another entry's challenge). Ranking: points, then HP margin, wins
and age (all over the current members); the push-off order adds the join order (of two members
equal on all four, the later one falls first, so a challenger must do better than an incumbent to
take its place).

The hill keeps its own state, :class:`HillState` (JSON-ready: ``to_json``/``from_json``),
because departures (a disqualified member leaves at once) are events between challenges. The
state is also derivable from the history of challenges (:meth:`Hill.replay`): each round of the
history is one challenge, whose challenger is side A of every board (a lone bye board when the
hill was empty), and a member that stops appearing on the boards while ``inactive`` left just
before that challenge. ``challenge(state, newcomer, results)`` is the whole update:
:class:`HillUpdate` has the new table, the pushed-off entries (for the league to announce) and
the new state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

from app.formats.base import (
    REQUIRED,
    ArrivalRecord,
    Column,
    EntryUpdate,
    Format,
    NextRound,
    NotYet,
    Option,
    Pairing,
    Points,
    PushedOff,
    Result,
    Round,
    RoundPairings,
    StandingRow,
    Standings,
    check_history,
    fraction_json,
    int_parser,
    parse_points,
    pending_round,
    register,
)
from app.formats.tiebreaks import tiebreak_column

HILL_COLUMNS = ("margin", "wins", "age")

AGE_COLUMN = Column(
    "age",
    {"ja": "年齢（生き残った挑戦の数）", "en": "age (challenges survived)"},
    {"ja": "年齢", "en": "age"},
)
"""A member's age: the challenges it has survived."""


@dataclass(frozen=True, slots=True)
class Totals:
    """A member's record over the current members (points exact; margin in HP)."""

    points: Fraction = Fraction(0)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    margin: int = 0

    def plus(self, score: int | None, margin: int, points: Fraction, sign: int = 1) -> Totals:
        """Add (``sign`` 1) or remove (``sign`` -1) one game: ``score`` 1 won, 0 lost, ``None``
        drawn."""
        return Totals(
            self.points + sign * points,
            self.wins + sign * (score == 1),
            self.draws + sign * (score is None),
            self.losses + sign * (score == 0),
            self.margin + sign * margin,
        )


@dataclass(frozen=True, slots=True)
class HillEvent:
    """One line of the hill's history.

    ``kind`` is ``challenge`` (``entry`` challenged; ``place`` its rank after it; ``replaced``
    when it was a member that replaced its unit; ``pushed_off`` the entries that fell) or
    ``leave`` (``entry`` left: disqualified or withdrawn). ``challenge`` is the number of the
    challenge (the first is 1; a ``leave`` has the number of the last challenge before it).
    """

    kind: str
    challenge: int
    entry: int
    place: int | None = None
    replaced: bool = False
    pushed_off: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "kind": self.kind,
            "challenge": self.challenge,
            "entry": self.entry,
            "place": self.place,
            "replaced": self.replaced,
            "pushed_off": list(self.pushed_off),
        }


@dataclass(frozen=True)
class HillState:
    """Everything the hill knows, immutable (each update returns a new state).

    Attributes:
        challenges: the number of challenges so far.
        members: the current members, best first.
        totals: each member's record over the current members.
        ages: challenges survived by each member.
        joined: the challenge at which each member (last) joined or replaced its unit.
        results: ``(a, b)`` with ``a < b`` → the result seen from ``a``'s side, for every pair of
            current members.
        log: the hill's history, oldest first.
    """

    challenges: int = 0
    members: tuple[int, ...] = ()
    totals: Mapping[int, Totals] = field(default_factory=dict)
    ages: Mapping[int, int] = field(default_factory=dict)
    joined: Mapping[int, int] = field(default_factory=dict)
    results: Mapping[tuple[int, int], Result] = field(default_factory=dict)
    log: tuple[HillEvent, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the inverse of :meth:`from_json`): ``challenges``, ``members``
        (``entry``, ``age``, ``joined``, best first), ``results`` (flat: ``a, b, winner,
        margin`` for each pair ``a < b`` of current members, in order) and ``log``."""
        return {
            "challenges": self.challenges,
            "members": [
                {"entry": m, "age": self.ages[m], "joined": self.joined[m]} for m in self.members
            ],
            "results": self._result_rows(),
            "log": [e.to_json() for e in self.log],
        }

    def _result_rows(self) -> list[Any]:
        """Every pair of current members as four numbers ``a, b, winner, margin`` (``a < b``,
        the result seen from ``a``), pairs in order, in one flat list: walked from the sorted
        members (no sort of the ~n²/2 pairs) and one list, not one per pair (a hill of 200
        writes 19,900 pairs on every challenge)."""
        ids = sorted(self.members)
        res = self.results
        if len(res) != len(ids) * (len(ids) - 1) // 2:  # not a state challenge() made
            pairs = sorted(res)
        else:
            pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
        rows: list[Any] = []
        add = rows.extend
        for a, b in pairs:
            r = res[(a, b)]
            add((a, b, r.winner, r.margin))
        return rows

    @classmethod
    def from_json(cls, data: Mapping[str, Any], points: Points) -> HillState:
        """Read :meth:`to_json`'s output back (totals are recomputed from the results with
        ``points``). Raises ``KeyError``/``TypeError``/``ValueError`` on other shapes."""
        members = tuple(int(m["entry"]) for m in data["members"])
        flat = data["results"]
        if flat and isinstance(flat[0], list):  # the shape before the flat list: [a, b, w, m]s
            flat = [x for row in flat for x in row]
        if len(flat) % 4:
            raise ValueError("hill state: results are not a list of (a, b, winner, margin)")
        it = iter(flat)
        results = {
            (int(a), int(b)): Result(w, int(m)) for a, b, w, m in zip(it, it, it, it, strict=True)
        }
        totals = {m: Totals() for m in members}
        for (a, b), r in results.items():
            totals[a] = _add(totals[a], r, points)
            totals[b] = _add(totals[b], r.flipped(), points)
        log = tuple(
            HillEvent(
                str(e["kind"]),
                int(e["challenge"]),
                int(e["entry"]),
                e["place"],
                bool(e["replaced"]),
                tuple(int(x) for x in e["pushed_off"]),
            )
            for e in data["log"]
        )
        return cls(
            int(data["challenges"]),
            members,
            totals,
            {int(m["entry"]): int(m["age"]) for m in data["members"]},
            {int(m["entry"]): int(m["joined"]) for m in data["members"]},
            results,
            log,
        )


HillUpdate = EntryUpdate
"""The outcome of one challenge (:class:`app.formats.base.EntryUpdate`; ``state`` a
:class:`HillState`)."""


def _score(r: Result) -> int | None:
    return None if r.winner is None else (1 if r.winner == 0 else 0)


def _add(t: Totals, r: Result, points: Points, sign: int = 1) -> Totals:
    s = _score(r)
    p = points.draw if s is None else (points.win if s == 1 else points.loss)
    return t.plus(s, r.margin, p, sign)


@register
class Hill(Format):
    """The hill: always open; at most ``size`` members; each arrival challenges every member.

    Options: ``size`` (required, 2..10000), ``points`` (default ``3/1/0``), ``seed`` (unused).
    Columns: HP margin, wins, age (fixed order; see the module docstring).
    """

    name: ClassVar[str] = "hill"
    aliases: ClassVar[tuple[str, ...]] = ("koth", "king-of-the-hill", "ヒル")
    titles: ClassVar[Mapping[str, str]] = {"ja": "ヒル（勝ち残り）", "en": "hill"}
    always_open: ClassVar[bool] = True
    fights_on_entry: ClassVar[bool] = True
    keeps_state: ClassVar[bool] = True
    view: ClassVar[str] = "hill"
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option(
            "size",
            int_parser(2, 10000),
            REQUIRED,
            {"ja": "ヒルの定員", "en": "how many members the hill holds"},
        ),
        Option(
            "points",
            parse_points,
            "3/1/0",
            {"ja": "勝ち／引き分け／負けの勝ち点", "en": "points per win/draw/loss"},
        ),
        Option(
            "challenges_per_day",
            int_parser(1, 1000),
            10,
            {
                "ja": "1参加者が1日（UTC）に挑戦できる回数",
                "en": "challenges one entry may make in a UTC day",
            },
        ),
    )

    @property
    def size(self) -> int:
        """The most members the hill holds."""
        return int(self._options["size"])

    @property
    def points(self) -> Points:
        """The W/D/L points."""
        return Points.parse(self._options["points"])

    @property
    def arrivals_per_day(self) -> int:
        """The ``challenges_per_day`` option: challenges (an entry or a replacement) one entry
        may make in a UTC day (default 10)."""
        return int(self._options["challenges_per_day"])

    @property
    def tiebreaks(self) -> tuple[str, ...]:
        """The hill's fixed columns: ``margin``, ``wins``, ``age``."""
        return HILL_COLUMNS

    def columns(self) -> tuple[Column, ...]:
        """HP margin and wins (the tiebreaks of those names), then the age."""
        return (tiebreak_column("margin"), tiebreak_column("wins"), AGE_COLUMN)

    # -- the Format interface of a format that fights entries on arrival ----------------------

    def load_state(self, data: Mapping[str, Any] | None) -> HillState:
        """The kept state from ``leagues.format_state`` (an empty hill for ``None``/``{}``)."""
        return HillState.from_json(data, self.points) if data else HillState()

    def state_json(self, state: Any) -> dict[str, Any]:
        """:meth:`HillState.to_json`."""
        assert isinstance(state, HillState)
        return state.to_json()

    def arrivals(self, state: Any) -> tuple[ArrivalRecord, ...]:
        """The challenges of the hill's log, oldest first."""
        assert isinstance(state, HillState)
        return tuple(
            ArrivalRecord(e.challenge, e.entry, e.place, e.replaced, e.pushed_off)
            for e in state.log
            if e.kind == "challenge"
        )

    def entry_pairings(self, state: Any, entry: int) -> tuple[Pairing, ...]:
        """:meth:`challenge_pairings`."""
        assert isinstance(state, HillState)
        return self.challenge_pairings(state, entry)

    def apply_entry(self, state: Any, entry: int, results: Mapping[int, Result]) -> EntryUpdate:
        """:meth:`challenge`."""
        assert isinstance(state, HillState)
        return self.challenge(state, entry, results)

    # -- the hill's own API -------------------------------------------------------------------

    def challenge_pairings(self, state: HillState, newcomer: int) -> tuple[Pairing, ...]:
        """The boards of ``newcomer``'s challenge: against every other current member (in table
        order), the newcomer on side A; a lone bye board when nobody else is on the hill."""
        others = [m for m in state.members if m != newcomer]
        if not others:
            return (Pairing(1, newcomer, None),)
        return tuple(Pairing(i, newcomer, m) for i, m in enumerate(others, start=1))

    def challenge(
        self, state: HillState, newcomer: int, results: Mapping[int, Result]
    ) -> HillUpdate:
        """Apply ``newcomer``'s challenge: ``results`` maps each other current member to the
        battle's result seen from the newcomer (side A). A newcomer already on the hill replaced
        its unit: its old results are dropped first.

        Raises ``ValueError`` when ``results`` does not name exactly the other members.
        """
        pts = self.points
        members = list(state.members)
        totals = dict(state.totals)
        res = dict(state.results)
        ages = dict(state.ages)
        joined = dict(state.joined)
        replaced = newcomer in members
        if replaced:
            _drop(newcomer, members, totals, res, pts)
        if set(results) != set(members):
            missing = sorted(set(members) - set(results))
            extra = sorted(set(results) - set(members))
            raise ValueError(
                f"challenge of {newcomer}: results must name every other member "
                f"(missing {missing}, not members {extra})"
            )
        number = state.challenges + 1
        before = list(members)
        t_new = Totals()
        for m in members:
            r = results[m]
            t_new = _add(t_new, r, pts)
            totals[m] = _add(totals[m], r.flipped(), pts)
            res[(newcomer, m) if newcomer < m else (m, newcomer)] = (
                r if newcomer < m else r.flipped()
            )
        members.append(newcomer)
        totals[newcomer] = t_new
        ages[newcomer] = 0
        joined[newcomer] = number
        for m in before:
            ages[m] = ages.get(m, 0) + 1
        order = self._order(members, totals, ages, joined)
        place = self._ranks(order, totals, ages)[newcomer]  # its push-off place if it falls
        pushed = [
            PushedOff(m, i, totals[m].points, ages[m])
            for i, m in enumerate(order, start=1)
            if i > self.size
        ]
        for p in pushed:
            _drop(p.entry, order, totals, res, pts)
            ages.pop(p.entry, None)
            joined.pop(p.entry, None)
        order = self._order(order, totals, ages, joined)
        if newcomer in order:  # its rank after the push-offs, as the table shows it
            place = self._ranks(order, totals, ages)[newcomer]
        event = HillEvent(
            "challenge", number, newcomer, place, replaced, tuple(p.entry for p in pushed)
        )
        new = HillState(number, tuple(order), totals, ages, joined, res, (*state.log, event))
        return HillUpdate(new, newcomer, place, replaced, tuple(pushed), self.table(new))

    def leave(self, state: Any, entry: int) -> HillState:
        """``entry`` leaves the hill (disqualified or withdrawn): its results stop counting.
        A non-member leaves nothing (the state is returned unchanged)."""
        assert isinstance(state, HillState)
        if entry not in state.members:
            return state
        members = list(state.members)
        totals = dict(state.totals)
        res = dict(state.results)
        _drop(entry, members, totals, res, self.points)
        ages = {k: v for k, v in state.ages.items() if k != entry}
        joined = {k: v for k, v in state.joined.items() if k != entry}
        order = self._order(members, totals, ages, joined)
        return replace(
            state,
            members=tuple(order),
            totals=totals,
            ages=ages,
            joined=joined,
            results=res,
            log=(*state.log, HillEvent("leave", state.challenges, entry)),
        )

    def table(self, state: HillState) -> Standings:
        """The current members ranked (``detail``: ``age``, ``joined``)."""
        ranks = self._ranks(list(state.members), state.totals, state.ages)
        counts: dict[int, int] = {}
        for r in ranks.values():
            counts[r] = counts.get(r, 0) + 1
        rows = []
        for m in state.members:
            t = state.totals[m]
            rows.append(
                StandingRow(
                    entry=m,
                    rank=ranks[m],
                    shared=counts[ranks[m]] > 1,
                    played=t.wins + t.draws + t.losses,
                    wins=t.wins,
                    draws=t.draws,
                    losses=t.losses,
                    byes=0,
                    points=t.points,
                    tiebreaks=(
                        ("margin", Fraction(t.margin)),
                        ("wins", Fraction(t.wins)),
                        ("age", Fraction(state.ages[m])),
                    ),
                    detail={"age": state.ages[m], "joined": state.joined[m]},
                )
            )
        return Standings(tuple(rows), HILL_COLUMNS)

    def replay(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> HillState:
        """The state after the challenges of ``history`` (see the module docstring). Raises
        ``ValueError`` when a round does not fit the hill (its boards are not the challenger
        against every other member, or a result is missing)."""
        check_history(entries, history)
        out = set(inactive)
        state = HillState()
        for rnd in history:
            if not rnd.games:
                raise ValueError(f"round {rnd.number} has no board")
            challenger = rnd.games[0].a
            opponents = [g.b for g in rnd.games if g.b is not None]
            if any(g.a != challenger for g in rnd.games):
                raise ValueError(f"round {rnd.number}: a challenge has one challenger on side A")
            for m in list(state.members):
                if m in out and m not in opponents and m != challenger:
                    state = self.leave(state, m)
            results: dict[int, Result] = {}
            for g in rnd.games:
                if g.b is None:
                    continue
                if g.result is None:
                    raise ValueError(f"round {rnd.number} board {g.pairing.board}: no result")
                results[g.b] = g.result
            try:
                state = self.challenge(state, challenger, results).state
            except ValueError as exc:
                raise ValueError(f"round {rnd.number} does not fit the hill: {exc}") from None
        for m in list(state.members):
            if m in out:
                state = self.leave(state, m)
        return state

    # -- the Format interface -----------------------------------------------------------------

    def next_round(
        self, entries: Sequence[int], history: Sequence[Round], *, inactive: Iterable[int] = ()
    ) -> NextRound:
        """The challenge of the first entry (seed order) that has never challenged and is
        active; else ``NotYet("waiting-for-entries")``: the hill is always open. A member that
        replaced its unit challenges through :meth:`challenge_pairings`."""
        check_history(entries, history)
        waiting = pending_round(history)
        if waiting is not None:
            return waiting
        out = set(inactive)
        challenged = {rnd.games[0].a for rnd in history if rnd.games}
        fresh = [e for e in entries if e not in challenged and e not in out]
        if not fresh:
            return NotYet("waiting-for-entries", len(history))
        state = self.replay(entries, history, inactive=out)
        return RoundPairings(
            len(history) + 1, self.challenge_pairings(state, fresh[0]), "challenge"
        )

    def standings(
        self,
        entries: Sequence[int],
        history: Sequence[Round],
        *,
        inactive: Iterable[int] = (),
        state: Any = None,
    ) -> Standings:
        """The current members (pushed-off entries are not ranked: see the state's log), from
        the kept ``state`` when given, else replayed from ``history``."""
        if isinstance(state, HillState):
            return self.table(state)
        return self.table(self.replay(entries, history, inactive=inactive))

    def describe(self, lang: str) -> list[str]:
        if lang == "ja":
            return [
                f"ヒル（定員{self.size}）：常時受付、締切なし",
                "新しい参加者（またはユニットを差し替えた参加者）は、到着するとすぐヒルの全員と"
                "1戦ずつ戦います",
                f"勝ち点 {self.points}。得点はヒルに今いる相手との対戦だけで数え、"
                f"{self.size}位より下の者はヒルから押し出されます",
                "順位：勝ち点、HP差、勝数、年齢（生き残った挑戦の数）",
                f"挑戦は1参加者につき1日（UTC）{self.arrivals_per_day}回まで",
            ]
        return [
            f"hill of {self.size}: always open, no deadline",
            "a new entry (or one that replaced its unit) fights every member of the hill at "
            "once, one battle each",
            f"points {self.points}, counted over the current members only; whoever ranks "
            f"below {self.size} is pushed off",
            "order: points, HP margin, wins, age (challenges survived)",
            f"at most {self.arrivals_per_day} challenges per entry a day (UTC)",
        ]

    # -- ranking ------------------------------------------------------------------------------

    @staticmethod
    def _order(
        members: Sequence[int],
        totals: Mapping[int, Totals],
        ages: Mapping[int, int],
        joined: Mapping[int, int],
    ) -> list[int]:
        return sorted(
            members,
            key=lambda m: (
                -totals[m].points,
                -totals[m].margin,
                -totals[m].wins,
                -ages[m],
                joined[m],
                m,
            ),
        )

    @staticmethod
    def _ranks(
        order: Sequence[int], totals: Mapping[int, Totals], ages: Mapping[int, int]
    ) -> dict[int, int]:
        ranks: dict[int, int] = {}
        prev: tuple[Fraction, int, int, int] | None = None
        first = 0
        for i, m in enumerate(order, start=1):
            key = (totals[m].points, totals[m].margin, totals[m].wins, ages[m])
            if key != prev:
                first = i
                prev = key
            ranks[m] = first
        return ranks


def _drop(
    entry: int,
    members: list[int],
    totals: dict[int, Totals],
    results: dict[tuple[int, int], Result],
    points: Points,
) -> None:
    """Remove ``entry`` from ``members`` and its results from everyone's totals (in place)."""
    members.remove(entry)
    for m in members:
        key = (entry, m) if entry < m else (m, entry)
        r = results.pop(key)
        seen_by_m = r.flipped() if entry < m else r
        totals[m] = _add(totals[m], seen_by_m, points, sign=-1)
    totals.pop(entry, None)


def hill_json(update: HillUpdate) -> dict[str, Any]:
    """A challenge's outcome as JSON (for replies and the web view)."""
    return {
        "entry": update.entry,
        "place": update.place,
        "replaced": update.replaced,
        "pushed_off": [p.to_json() for p in update.pushed_off],
        "table": update.table.to_json(),
        "points": {str(r.entry): fraction_json(r.points) for r in update.table.rows},
    }
