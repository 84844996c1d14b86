"""Read models of leagues, rounds, battles and players: typed, public, and shared by the web
view (``app.web``), the CLI and the mails, split by subject:

* :mod:`~app.league.queries.common` — public references, finding a league, the cache;
* :mod:`~app.league.queries.leagues` — the list of leagues and a league's page;
* :mod:`~app.league.queries.battles` — rounds, boards, feeds' recent results, one battle;
* :mod:`~app.league.queries.players` — a player's page and ratings.

Every function takes an open SQLAlchemy session, only reads, and returns frozen dataclasses of
plain values. The models are **public** (``docs/web.md``): no address anywhere, no sheet before
a league's sheets are public, no replacement before it has fought. The expensive parts of a
league (its standings, round counts, cross-table cells) are cached per process, keyed by
:func:`league_fingerprint`, a cheap query that changes whenever they may change.
"""

from __future__ import annotations

from app.league.queries.battles import (
    BattleView,
    SheetRef,
    battle_view,
    league_battles,
    recent_results,
    round_view,
)
from app.league.queries.common import (
    EntryRef,
    PlayerRef,
    clear_cache,
    find_league,
    league_fingerprint,
    sheets_public,
)
from app.league.queries.leagues import (
    CROSS_BLOCK,
    CROSS_FULL,
    INLINE_BOARDS,
    ArrivalLine,
    BoardLine,
    CrossCell,
    CrossTable,
    LeagueSettings,
    LeagueSummary,
    LeagueView,
    RoundLine,
    cross_blocks,
    league_view,
    list_leagues,
    summary_of,
)
from app.league.queries.players import (
    PlayerEntry,
    PlayerRatingView,
    PlayerView,
    RatingLine,
    player_ratings,
    player_view,
)

__all__ = [
    "CROSS_BLOCK",
    "CROSS_FULL",
    "INLINE_BOARDS",
    "ArrivalLine",
    "BattleView",
    "BoardLine",
    "CrossCell",
    "CrossTable",
    "EntryRef",
    "LeagueSettings",
    "LeagueSummary",
    "LeagueView",
    "PlayerEntry",
    "PlayerRatingView",
    "PlayerRef",
    "PlayerView",
    "RatingLine",
    "RoundLine",
    "SheetRef",
    "battle_view",
    "clear_cache",
    "cross_blocks",
    "find_league",
    "league_battles",
    "league_fingerprint",
    "league_view",
    "list_leagues",
    "player_ratings",
    "player_view",
    "recent_results",
    "round_view",
    "sheets_public",
    "summary_of",
]
