"""League services over the database: one facade over the public names of the modules that do
the work.

The contract is ``docs/contracts.md`` (section League); the lifecycle and the choices are in
``docs/league.md``. The work lives in:

- :mod:`app.league.errors` — the errors, each with a stable ``code``;
- :mod:`app.league.entries` — players, entering, replacing and withdrawing sheets;
- :mod:`app.league.lifecycle` — creating and finding leagues, closing entries, :func:`tick`;
- :mod:`app.league.cast` — the picklable snapshot of a league for play and reports;
- :mod:`app.league.play` — playing rounds in crash-safe batches;
- :mod:`app.league.results` — standings and the standings mails;
- :mod:`app.league.fixes` — organizer fixes (disqualify, resend);
- :mod:`app.league.queries` — the read queries shared by the CLI, mail and the web view.

Only public names are re-exported; callers may import from here or from the module itself.
"""

from __future__ import annotations

from app.league.cast import thread_id
from app.league.entries import (
    active_sheet,
    all_leagues,
    check_open,
    engine_version,
    entries_of,
    find_league,
    get_league,
    get_or_create_player,
    league_ruleset,
    normalize_address,
    open_leagues,
    submit_entry,
    SubmitOutcome,
    withdraw,
)
from app.league.errors import BadState, EntriesClosed, LeagueError, NoSuchLeague, NotEntered, NotOwner
from app.league.fixes import disqualify, resend
from app.league.lifecycle import (
    check_league_name,
    check_ruleset,
    close_entries,
    create_league,
    set_options,
    tick,
)
from app.league.play import KILL_ENV, run_round
from app.league.results import render_standings, standings, standings_context

__all__ = [
    "BadState", "EntriesClosed", "KILL_ENV", "LeagueError", "NoSuchLeague", "NotEntered",
    "NotOwner", "SubmitOutcome", "active_sheet", "all_leagues", "check_league_name",
    "check_open", "check_ruleset", "close_entries", "create_league", "disqualify",
    "engine_version", "entries_of", "find_league", "get_league", "get_or_create_player",
    "league_ruleset", "normalize_address", "open_leagues", "render_standings", "resend",
    "run_round", "set_options", "standings", "standings_context", "submit_entry",
    "thread_id", "tick", "withdraw",
]
