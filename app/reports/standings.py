"""The standings report: a typed context and its rendering (text and HTML, ja and en).

Templates: ``templates/reports/standings.{txt,html}`` (one file for both languages).
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field

from app.league.standings import StandingRow
from app.reports.i18n import gettext
from app.reports.render import render


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
    """Everything the standings templates may use.

    Attributes:
        league: the league name.
        state: the league state (``open``, ``closed``, ``running``, ``finished``); see also
            :attr:`cancelled`.
        after_round: the last round played (0 before the first).
        rounds_total: the number of rounds of the whole schedule.
        points: the points rule as ``W/D/L`` (e.g. ``3/1/0``).
        rows: the standings, best first (:class:`app.league.standings.StandingRow`).
        next_round: the next round number, or ``None`` when none is left.
        next_round_at: when it is scheduled, as ``2026-12-04 01:35 UTC``
            (:func:`app.reports.dates.human_time`), or ``""`` (run by the organizer).
        next_pairings: the boards of the next round (empty when none is left).
        disqualified: names of disqualified players (their games do not count).
        url: the league's page on the web view (``app.web.urls.mail_link``, with the
            ``public_url`` setting), or ``""`` for no link.
        format_name: the league's format (``app.formats``: ``round-robin``, ``swiss``, …).
        format_lines: by language (``ja``/``en``), what the format is and how the next round
            is paired (``Format.describe``).
        updates: an accumulating round robin's points per update, by entry id (``None`` for an
            update the entry did not play).
        ratings: each ranked player's rating across leagues (OpenSkill ordinal, text), by
            player id; absent before a player's first rated game.
    """

    league: str
    state: str
    after_round: int
    rounds_total: int
    points: str
    rows: list[StandingRow]
    next_round: int | None = None
    next_round_at: str = ""
    next_pairings: list[PairingView] = field(default_factory=list)
    disqualified: list[str] = field(default_factory=list)
    url: str = ""
    format_name: str = "round-robin"
    format_lines: dict[str, list[str]] = field(default_factory=dict)
    updates: dict[int, list[Any]] = field(default_factory=dict)
    ratings: dict[int, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        """True once every round is played."""
        return self.state == "finished"

    @property
    def cancelled(self) -> bool:
        """True for a finished league without any round: entries closed with fewer than two
        entries, so the league did not take place (the templates say so instead of a table)."""
        return self.state == "finished" and self.rounds_total == 0


def standings_subject(league: str, after: int, lang: str, *, final: bool = False,
                      cancelled: bool = False, resent: bool = False) -> str:
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
