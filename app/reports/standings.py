"""Standings as every surface shows them: one read model (:class:`StandingsTable`, built by
``app.league.standings`` from the league format's ``Format.standings``) and the standings mail's
typed context (:class:`StandingsContext`).

The web page, both parts of the standings mail, ``standings.csv`` and the league's JSON all
render a :class:`StandingsTable`, so they carry the same rows and the same columns: the
format's primary score and its own columns (``Format.primary_column``, ``Format.columns``: a
round robin's head-to-head, Sonneborn-Berger and HP margin; a Swiss Buchholz; a knockout's
status and round of elimination; an accumulating league's points per update; a hill's age).

Templates: ``templates/reports/standings.{txt,html}`` (one file for both languages) and the web
partial ``templates/_standings.html``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.formats.base import Column, fraction_json, fraction_text
from app.reports.i18n import gettext
from app.reports.render import render


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One entry's line of the standings, public (no address).

    Attributes:
        rank: 1-based, standard competition ranking; ``shared`` when another entry has it too.
        entry_id, player_id: database ids (``/players/ID``).
        name: the player's public name (``app.league.privacy``).
        unit: the unit's name on the entry's sheet as the table may show it (``""`` while
            sheets are secret, or for a replacement that has not fought yet).
        played, wins, draws, losses, byes: counts (a bye is not a game played).
        points: the primary score, exact (``StandingsTable.primary`` says what it is).
        values: one value per column of ``StandingsTable.columns``, in order, exact numbers or
            codes (``Column.text`` prints them).
        rating: the player's rating in this game (OpenSkill ordinal), ``None`` before their
            first rated game.
    """

    rank: int
    shared: bool
    entry_id: int
    player_id: int
    name: str
    unit: str
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: Fraction
    values: tuple[Any, ...] = ()
    rating: float | None = None

    @property
    def rank_text(self) -> str:
        """``3`` or ``3=`` when the rank is shared."""
        return f"{self.rank}=" if self.shared else str(self.rank)

    @property
    def points_text(self) -> str:
        """The primary score as text: ``12``, ``12.5`` or ``1/3``."""
        return fraction_text(self.points)

    @property
    def rating_text(self) -> str:
        """The rating with two decimals, ``""`` without one."""
        return "" if self.rating is None else f"{self.rating:.2f}"


@dataclass(frozen=True, slots=True)
class StandingsTable:
    """The standings of a league in its format's own terms: the one read model of every
    surface.

    Attributes:
        format: the format's name (``app.formats``); ``view`` how it is shown (``table``,
            ``bracket``, ``hill``: ``Format.view``).
        primary: the column of :attr:`StandingLine.points` (points, or a knockout's rounds
            survived).
        columns: the format's other columns, in order; each line has one value per column.
        lines: best first.
    """

    format: str
    view: str
    primary: Column
    columns: tuple[Column, ...]
    lines: tuple[StandingLine, ...]

    def cells(self, line: StandingLine, lang: str) -> list[str]:
        """The texts of ``line``'s column values in ``lang`` (``Column.text``), in column
        order."""
        return [c.text(v, lang) for c, v in zip(self.columns, line.values, strict=True)]

    def text_cells(self, line: StandingLine, lang: str) -> list[str]:
        """The cells of a text table's row in ``lang``: rank, the primary score, played, W, D,
        L, byes, every column (:meth:`cells`), then the rating when the table shows ratings."""
        return [
            line.rank_text,
            line.points_text,
            str(line.played),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            str(line.byes),
            *self.cells(line, lang),
            *([line.rating_text] if self.with_ratings else []),
        ]

    def value(self, line: StandingLine, key: str) -> Any:
        """``line``'s value of column ``key``. Raises ``KeyError`` for an unknown column."""
        for c, v in zip(self.columns, line.values, strict=True):
            if c.key == key:
                return v
        raise KeyError(key)

    @property
    def with_ratings(self) -> bool:
        """True when some line has a rating (the rating column is shown)."""
        return any(x.rating is not None for x in self.lines)

    def columns_json(self) -> list[dict[str, Any]]:
        """The column list for JSON: ``{"key", "kind", "title": {ja, en}, "short": {ja, en}}``
        for the primary column (``key`` ``points``) and then every other column."""
        return [
            {
                "key": c.key if i else "points",
                "kind": c.kind,
                "title": dict(c.titles),
                "short": dict(c.short),
            }
            for i, c in enumerate((self.primary, *self.columns))
        ]

    def line_json(self, line: StandingLine) -> dict[str, Any]:
        """One line's numbers for JSON: ``points`` and ``values`` keyed by column
        (``Column.json_value``) and the rating (``None`` before the first rated game)."""
        return {
            "points": fraction_json(line.points),
            "values": {
                c.key: c.json_value(v) for c, v in zip(self.columns, line.values, strict=True)
            },
            "rating": None if line.rating is None else round(line.rating, 3),
        }

    def csv_header(self) -> list[str]:
        """The CSV header: the fixed fields, then each column's key, then ``rating``."""
        return [
            "rank",
            "shared",
            "player_id",
            "player",
            "unit",
            "points",
            "played",
            "wins",
            "draws",
            "losses",
            "byes",
            *(c.key for c in self.columns),
            "rating",
        ]

    def csv_row(self, line: StandingLine, lang: str) -> list[Any]:
        """One CSV row matching :meth:`csv_header` (numbers as ``int``/``float``; codes in
        ``lang``; a list as text; an empty cell for no value)."""
        vals: list[Any] = []
        for c, v in zip(self.columns, line.values, strict=True):
            j = c.json_value(v)
            vals.append("" if v is None else c.text(v, lang) if c.kind in ("code", "list") else j)
        return [
            line.rank,
            int(line.shared),
            line.player_id,
            line.name,
            line.unit,
            fraction_json(line.points),
            line.played,
            line.wins,
            line.draws,
            line.losses,
            line.byes,
            *vals,
            "" if line.rating is None else round(line.rating, 3),
        ]


@dataclass(frozen=True, slots=True)
class PairingView:
    """One board of an upcoming round: ``a`` and ``b`` are display names (``b`` is ``None`` for
    a bye), ``unit_a``/``unit_b`` the unit names."""

    board: int
    a: str
    unit_a: str
    b: str | None
    unit_b: str | None


@dataclass(frozen=True, slots=True)
class StandingsContext:
    """Everything the standings mail templates may use.

    Attributes:
        league: the league name.
        state: the league state (``open``, ``closed``, ``running``, ``finished``); see also
            :attr:`cancelled`.
        after_round: the last round played (0 before the first).
        rounds_total: the number of rounds of the whole league when the format fixes it (a
            round robin, a Swiss league, a single-elimination knockout), else ``None``.
        table: the standings (:class:`StandingsTable`).
        points: the points rule as ``W/D/L`` (``""`` when the format's primary score is not
            points).
        next_round: the next round number, or ``None`` when none is left.
        next_round_at: when it is scheduled, as ``2026-12-04 01:35 UTC``
            (:func:`app.reports.dates.human_time`), or ``""`` (run by the organizer).
        next_pairings: the boards of the next round (empty when none is left, and when
            ``next_summary`` stands for them).
        next_summary: ``(battles, most battles of one entry)`` of a next round whose pairings
            are too many to list (a digest round: every entry against every other, up to half
            a million boards; each player gets their own results in one mail), else ``None``.
        disqualified: names of disqualified players (their games do not count).
        url: the league's page on the web view (``app.reports.links.Links``), or ``""``.
        format_titles: the format's name by language.
        format_lines: by language (``ja``/``en``), what the format is and how the next round
            is paired (``Format.describe``).
        rewrites: by language, the entry rewrites applied after this round (``Ruleset``
            rewrite requests, ``rules/margaret-hundred.md`` H58), one line each.
    """

    league: str
    state: str
    after_round: int
    rounds_total: int | None
    table: StandingsTable
    points: str = ""
    next_round: int | None = None
    next_round_at: str = ""
    next_pairings: list[PairingView] = field(default_factory=list)
    next_summary: tuple[int, int] | None = None
    disqualified: list[str] = field(default_factory=list)
    url: str = ""
    format_titles: Mapping[str, str] = field(default_factory=dict)
    format_lines: Mapping[str, list[str]] = field(default_factory=dict)
    rewrites: Mapping[str, list[str]] = field(default_factory=dict)

    @property
    def rows(self) -> tuple[StandingLine, ...]:
        """The standings lines, best first."""
        return self.table.lines

    @property
    def finished(self) -> bool:
        """True once the league is over."""
        return self.state == "finished"

    @property
    def cancelled(self) -> bool:
        """True for a finished league without any round: entries closed with fewer than two
        entries, so the league did not take place (the templates say so instead of a table)."""
        return self.state == "finished" and self.after_round == 0 and not self.rounds_total

    def with_url(self, url: str) -> StandingsContext:
        """A copy with the league page's ``url``."""
        from dataclasses import replace

        return replace(self, url=url)


def standings_subject(
    league: str,
    after: int,
    lang: str,
    *,
    final: bool = False,
    cancelled: bool = False,
    resent: bool = False,
) -> str:
    """The subject of the standings mail of ``league`` after round ``after`` in ``lang``:
    ``[L] Standings after round 3 (final)``; ``after == 0`` (sent when entries close): the
    pairings of round 1; ``cancelled``: the league did not take place; ``resent`` appends the
    resend mark (:func:`app.reports.league_battle.resent_mark`). Words from the catalogs."""
    from app.reports.league_battle import resent_mark

    _ = gettext(lang)
    if cancelled:  # closed with fewer than two entries
        text = _("[%(league)s] The league did not take place (fewer than two entries)")
    elif after == 0:  # sent when entries close: the schedule is the news
        text = _("[%(league)s] Entries closed: the pairings of round 1")
    elif final:
        text = _("[%(league)s] Standings after round %(n)s (final)")
    else:
        text = _("[%(league)s] Standings after round %(n)s")
    return text % {"league": league, "n": after} + (resent_mark(lang) if resent else "")


def render_standings_context(ctx: StandingsContext, *, lang: str, fmt: str = "text") -> str:
    """Render ``ctx`` in ``lang`` (``ja``/``en``) as ``fmt`` (``text``/``html``).

    Raises ``ValueError`` for an unknown language or format."""
    return render("standings", ctx, lang=lang, fmt=fmt)
