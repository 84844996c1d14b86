"""Read models of players: a player's page (their entries, standings and boards, by public name)
and their ratings, one per game (``app.league.ratings``), each with its history."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Player, Round
from app.league.privacy import public_name
from app.league.queries.common import Names, PlayerRef, league_fingerprint, sheets_public
from app.league.queries.leagues import BOARD_COLUMNS, BoardLine, _decisions, _table, board_line
from app.reports.standings import StandingLine, StandingsTable


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """A player's entry in one league: the league, its state, the entry's status
    (``active``/``withdrawn``/``disqualified``), the unit (``""`` while secret), its standing
    (``None`` while open or when not ranked) with the league's ``table`` (for the columns), and
    its boards (empty while open)."""

    league: str
    league_state: str
    status: str
    unit: str
    standing: StandingLine | None
    boards: tuple[BoardLine, ...]
    table: StandingsTable | None = None


@dataclass(frozen=True, slots=True)
class RatingLine:
    """One rating period of a player's history: league and round, the rating (ordinal,
    ``mu − 3σ``) before and after, and the games of the period."""

    league: str
    round: int
    before: float
    after: float
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class PlayerRatingView:
    """A player's rating in one game (OpenSkill, ``app.league.ratings``): the ``ruleset``, the
    ordinal shown, ``mu``, ``sigma``, the rated games and the history, oldest first."""

    ruleset: str
    ordinal: float
    mu: float
    sigma: float
    games: int
    history: tuple[RatingLine, ...]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A player's page: their public name, their entries (newest league first; entries of open
    leagues that do not show entrants are left out, so the page does not tell them) and their
    ratings, one per game they were rated in, best first."""

    player: PlayerRef
    entries: tuple[PlayerEntry, ...]
    ratings: tuple[PlayerRatingView, ...] = ()


def player_ratings(session: Session, player_id: int) -> tuple[PlayerRatingView, ...]:
    """The player's rating in every game they were rated in, best first (none before their
    first rated game)."""
    from app.league import ratings

    out = []
    for game in ratings.rulesets_of(session, player_id):
        now = ratings.current(session, [player_id], game).get(player_id)
        if now is None:
            continue
        hist = tuple(
            RatingLine(h.league, h.round, h.ordinal_before, h.ordinal, h.wins, h.draws, h.losses)
            for h in ratings.history(session, player_id, game)
        )
        out.append(PlayerRatingView(game, now.ordinal, now.mu, now.sigma, now.games, hist))
    return tuple(sorted(out, key=lambda r: -r.ordinal))


def player_view(session: Session, player_id: int) -> PlayerView | None:
    """Player ``player_id``'s page, or ``None`` when there is no such player or nothing of theirs
    is public (no entry in a league that shows it)."""
    player = session.get(Player, player_id)
    if player is None:
        return None
    ref = PlayerRef(player.id, public_name(player.display_name, player.address, player.id))
    rows = session.execute(
        select(Entry, League)
        .join(League, Entry.league_id == League.id)
        .where(Entry.player_id == player.id)
        .order_by(League.id.desc())
    ).all()
    entries: list[PlayerEntry] = []
    for entry, league in rows:
        if not sheets_public(league):
            if not league.show_entrants or entry.status != "active":
                continue
            from app.league.entries import active_sheet

            sheet = active_sheet(session, entry)
            if sheet is None:
                continue
            entries.append(
                PlayerEntry(league.name, league.state, entry.status, sheet.unit_name, None, ())
            )
            continue
        if entry.seat is None:  # withdrew (or had no valid sheet) before entries closed
            continue
        names = Names(session, league)
        _after, table = _table(session, league, league_fingerprint(session, league))
        standing = next((x for x in table.lines if x.entry_id == entry.id), None)
        q = (
            select(*BOARD_COLUMNS)
            .join(Round, Battle.round_id == Round.id)
            .where(
                Round.league_id == league.id,
                or_(Battle.entry_a_id == entry.id, Battle.entry_b_id == entry.id),
            )
            .order_by(Round.number, Battle.board)
        )
        found = session.execute(q).all()
        decided = _decisions(league, found)
        entries.append(
            PlayerEntry(
                league.name,
                league.state,
                entry.status,
                names.entry(entry.id).unit,
                standing,
                tuple(board_line(r, names, decided) for r in found),
                table,
            )
        )
    if not entries:
        return None
    return PlayerView(ref, tuple(entries), player_ratings(session, player.id))
