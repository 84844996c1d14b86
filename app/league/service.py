"""League services over the database: one facade over the modules that do the work.

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

Callers may import from here or from the module itself; new code should prefer the module.
"""

from __future__ import annotations

from app.league.errors import (  # noqa: F401
    LeagueError,
    NoSuchLeague,
    EntriesClosed,
    NotEntered,
    NotOwner,
    BadState,
)
from app.league.entries import (  # noqa: F401
    ruleset_of,
    league_ruleset,
    engine_version,
    normalize_address,
    get_or_create_player,
    _name_key,
    find_league,
    get_league,
    open_leagues,
    all_leagues,
    SubmitOutcome,
    _check_open,
    check_open,
    _entry,
    submit_entry,
    withdraw,
    active_sheet,
    entries_of,
)
from app.league.lifecycle import (  # noqa: F401
    STATES,
    MAX_DEADLINE_AHEAD,
    MIN_ROUNDS_EVERY,
    MAX_ROUNDS_EVERY,
    MAX_POINTS,
    create_league,
    check_ruleset,
    set_options,
    NAME_PUNCTUATION,
    check_league_name,
    close_entries,
    tick,
    _tick_error,
)
from app.league.cast import (  # noqa: F401
    _P,
    _E,
    _S,
    _B,
    _Cast,
    _MSG_ID,
    thread_id,
    _load_cast,
    _lock_league,
)
from app.league.play import (  # noqa: F401
    BATCH,
    KILL_ENV,
    _final_json,
    _kill_hook,
    _env_int,
    _batch_size,
    _report_rows,
    _fight,
    _worker_fight,
    _workers,
    _apply,
    _Prepared,
    _prepare_rounds,
    _store_chunk,
    _close_round,
    _finish_round,
    run_round,
    _play_rounds,
)
from app.league.results import (  # noqa: F401
    _games,
    standings,
    standings_context,
    render_standings,
    _standings_subject,
    queue_standings,
)
from app.league.fixes import (  # noqa: F401
    disqualify,
    _same_result,
    engine_note,
    resend,
    _next_resend,
)
