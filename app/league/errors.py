"""The errors of the league services: each a :class:`LeagueError` with a stable ``code`` that the
CLI and the mail replies name.
"""

from __future__ import annotations


class LeagueError(Exception):
    """A league operation that cannot be done; ``code`` is a stable identifier, the message says
    why in English."""

    code = "league-error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class NoSuchLeague(LeagueError):
    """No league has that name."""

    code = "no-such-league"


class EntriesClosed(LeagueError):
    """The league no longer takes entries, replacements or withdrawals."""

    code = "entries-closed"


class NotEntered(LeagueError):
    """The player has no (active) entry in the league."""

    code = "not-entered"


class NotOwner(LeagueError):
    """The entry belongs to someone else."""

    code = "not-owner"


class BadState(LeagueError):
    """The league is not in a state that allows the operation (or the input is invalid)."""

    code = "bad-state"
