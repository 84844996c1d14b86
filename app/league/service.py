"""League services over the database: one facade over the public names of the modules that do
the work.

The contract is ``docs/contracts.md`` (section League); the lifecycle and the choices are in
``docs/league.md``. The work lives in:

- :mod:`app.league.errors` — the errors, each with a stable ``code``;
- :mod:`app.league.entries` — players, entering, replacing and withdrawing sheets;
- :mod:`app.league.lifecycle` — creating and finding leagues, closing entries, :func:`tick`;
- :mod:`app.league.cast` — the picklable snapshot of a league for play and reports;
- :mod:`app.league.play` — playing rounds in crash-safe batches;
- :mod:`app.league.formats` — a league's format, history and rounds, its ruleset as it plays it;
- :mod:`app.league.standings` — the one standings pipeline (every format, every surface);
- :mod:`app.league.challenge` — arrivals fought at once (an always-open format: the hill);
- :mod:`app.league.fixes` — organizer fixes (disqualify, resend);
- :mod:`app.league.queries` — the read queries shared by the CLI, mail and the web view.

Only public names are re-exported; callers may import from here or from the module itself.
"""

from __future__ import annotations

from app.league.cast import thread_id
from app.league.entries import (
    SubmitOutcome,
    active_sheet,
    all_leagues,
    check_open,
    create_player,
    engine_version,
    entries_of,
    find_league,
    get_league,
    get_or_create_player,
    normalize_address,
    open_leagues,
    submit_entry,
    withdraw,
)
from app.league.errors import (
    BadState,
    EntriesClosed,
    LeagueError,
    NoSuchLeague,
    NotEntered,
    NotOwner,
)
from app.league.fixes import disqualify, resend
from app.league.formats import league_rules as league_ruleset
from app.league.lifecycle import (
    check_league_name,
    check_ruleset,
    close_entries,
    create_league,
    set_options,
    tick,
)
from app.league.orders import mark_ready, paused_battles, revise_orders, submit_orders
from app.league.play import KILL_ENV, run_round
from app.league.standings import render_standings, standings, standings_context

__all__ = [
    "BadState",
    "EntriesClosed",
    "KILL_ENV",
    "LeagueError",
    "NoSuchLeague",
    "NotEntered",
    "NotOwner",
    "SubmitOutcome",
    "active_sheet",
    "all_leagues",
    "check_league_name",
    "check_open",
    "check_ruleset",
    "close_entries",
    "create_league",
    "create_player",
    "disqualify",
    "engine_version",
    "entries_of",
    "find_league",
    "get_league",
    "get_or_create_player",
    "league_ruleset",
    "mark_ready",
    "normalize_address",
    "open_leagues",
    "paused_battles",
    "render_standings",
    "resend",
    "revise_orders",
    "run_round",
    "set_options",
    "standings",
    "standings_context",
    "submit_entry",
    "submit_orders",
    "thread_id",
    "tick",
    "withdraw",
]
