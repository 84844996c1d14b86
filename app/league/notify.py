"""What the league services tell players, as typed notices for the mail layer to queue.

The league layer never builds or queues a mail itself (``app.mail`` owns the outbox and the
templates; the league may not import it). A service that has something to tell players takes a
:class:`Notices` object, which the caller builds in the mail layer
(``app.mail.league_mail.LeagueMail``, from the server's settings), and hands it the notice in
the same transaction as the change it reports, so "work a mail orders is recorded in that mail's
transaction" holds for the mails too.

Battle reports are the one notice that is rendered apart from being queued: a round's battles
are fought in worker processes, and each report is rendered there, next to its battle
(:meth:`Notices.report_rows`, pure, so the ``Notices`` object must be picklable); the rows come
back to the parent, which stores them with the battles (:meth:`Notices.queue_rows`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session


@dataclass(frozen=True, slots=True)
class PushedOffNotice:
    """A member an arrival pushed off (a format that ``fights_on_entry`` and has a capacity).

    Attributes:
        league_id, league: the league's id and name.
        arrival: the arrival's number (the round number of the challenge).
        size: the capacity.
        entry_id, player_id: whose entry fell.
        name, unit: the player's public name and the unit's name.
        place: the place it fell from; ``points`` its points there (text); ``age`` the
            arrivals it had survived.
    """

    league_id: int
    league: str
    arrival: int
    size: int
    entry_id: int
    player_id: int
    name: str
    unit: str
    place: int
    points: str
    age: int


@dataclass(frozen=True, slots=True)
class RewriteNotice:
    """An entry rewritten between rounds by a battle's request (``Ruleset.rewrite_request``,
    ``rules/margaret-hundred.md`` H58): ``entry_id``'s entry is now ``source_unit`` (the
    registered entry of ``source_entry_id``), after round ``round`` board ``board``."""

    round: int
    board: int
    entry_id: int
    name: str
    old_unit: str
    source_entry_id: int
    source_unit: str


class Notices(Protocol):
    """The mail layer as the league services see it (``app.mail.league_mail.LeagueMail``).

    Every method but :meth:`report_rows` works in the caller's transaction (``session``) and
    skips a mail queued before (each notice has a stable dedupe key), so a service re-run after
    a crash queues nothing twice.
    """

    def report_rows(
        self,
        cast: Any,
        round_number: int,
        battle: Any,
        result: Any,
        now: dt.datetime,
        *,
        key_suffix: str = "",
        notes: Mapping[str, tuple[str, bool]] | None = None,
        skip: frozenset[str] = frozenset(),
    ) -> list[dict[str, Any]]:
        """The outbox rows of one battle's report to both players (``app.league.cast`` values,
        the logged engine ``result``), without a database: rendered where the battle was
        fought. ``notes`` by language: ``(engine note, show the log)``; ``key_suffix`` marks a
        resend; keys in ``skip`` are left out."""

    def checkpoint_rows(
        self,
        cast: Any,
        round_number: int,
        battle: Any,
        result: Any,
        until: dt.datetime,
        now: dt.datetime,
    ) -> list[dict[str, Any]]:
        """The outbox rows of a battle stopped at a checkpoint (``battle.stop_turn``) to each of
        its players (their own private block and rules only), until ``until``; rendered where
        the battle was fought, like :meth:`report_rows`."""

    def queue_pairings(
        self, session: Session, league: Any, rnd: Any, *, now: dt.datetime, cast: Any = None
    ) -> int:
        """Queue round ``rnd``'s pairing to each player seated in it (a league whose ruleset
        takes orders: whom they meet, the draw, the deadline, how to send orders); ``cast``
        the league's cast when the caller has one. Returns how many were queued."""

    def queue_rows(self, session: Session, rows: list[dict[str, Any]]) -> int:
        """Queue rows of :meth:`report_rows`, skipping keys queued before. Returns how many
        were queued."""

    def queue_standings(
        self,
        session: Session,
        league: Any,
        round_number: int,
        *,
        now: dt.datetime,
        cast: Any = None,
        key_suffix: str = "",
        history: Any = None,
        rewrites: tuple[RewriteNotice, ...] = (),
        skip_entries: frozenset[int] = frozenset(),
    ) -> int:
        """Queue the standings after ``round_number`` (0: the pairings of round 1, or that the
        league did not take place) to every seated active player but ``skip_entries``; ``history`` a
        ``app.league.formats.HistoryCache`` of this run; ``rewrites`` the entry rewrites
        applied after this round. Returns how many were queued."""

    def queue_digests(
        self,
        session: Session,
        league: Any,
        rnd: Any,
        *,
        now: dt.datetime,
        cast: Any = None,
        history: Any = None,
        rewrites: tuple[RewriteNotice, ...] = (),
        key_suffix: str = "",
    ) -> frozenset[int]:
        """Queue one digest to each player seated in round ``rnd`` (a round mailed as digests,
        ``app.league.play.digest_round``): their results, the standings, links, the logs if
        they asked; ``key_suffix`` marks a resend. Returns the entries seated in the round (no separate standings mail)."""

    def queue_pushed_off(
        self, session: Session, notices: tuple[PushedOffNotice, ...], *, now: dt.datetime
    ) -> int:
        """Tell each member in ``notices`` that it was pushed off. Returns how many mails were
        queued."""
