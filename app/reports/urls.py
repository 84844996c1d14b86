"""The URLs of the web view, in one place (``docs/web.md``, URLs): pure path builders shared by the
web view and the mails (which link to the pages with ``public_url``).

Paths are stable: ``/``, ``/leagues/NAME``, ``/leagues/NAME/rounds/N``,
``/leagues/NAME/battles/ID``, ``/players/ID``, ``/rules/RULESET``; each page's JSON twin is the
same path with ``.json`` (``/index.json`` for ``/``). Names are percent-encoded (UTF-8), so
``春`` is ``/leagues/%E6%98%A5``.

With the ``public_url`` setting (e.g. ``https://example.org/amaryllis``), :func:`absolute` and
:func:`mail_link` give absolute links (feeds, and the report and standings mails); without it,
mails carry no link and feeds use the address the request came to.
"""

from __future__ import annotations

from urllib.parse import quote


def _seg(value: object) -> str:
    return quote(str(value), safe="")


def index(suffix: str = "") -> str:
    """``/`` (``suffix`` ``.json``: ``/index.json``)."""
    return "/index.json" if suffix == ".json" else "/"


def league(name: str, suffix: str = "") -> str:
    """``/leagues/NAME`` plus ``suffix`` (``.json``)."""
    return f"/leagues/{_seg(name)}{suffix}"


def league_file(name: str, file: str) -> str:
    """A file of a league: ``standings.csv``, ``battles.csv``, ``feed.atom``."""
    return f"/leagues/{_seg(name)}/{file}"


def round_(name: str, number: int, suffix: str = "") -> str:
    """``/leagues/NAME/rounds/N`` plus ``suffix``."""
    return f"/leagues/{_seg(name)}/rounds/{int(number)}{suffix}"


def battle(name: str, battle_id: int, suffix: str = "") -> str:
    """``/leagues/NAME/battles/ID`` plus ``suffix`` (``.json``, ``.csv``)."""
    return f"/leagues/{_seg(name)}/battles/{int(battle_id)}{suffix}"


def player(player_id: int, suffix: str = "") -> str:
    """``/players/ID`` plus ``suffix``."""
    return f"/players/{int(player_id)}{suffix}"


def rules(ruleset: str, suffix: str = "") -> str:
    """``/rules/RULESET`` plus ``suffix``."""
    return f"/rules/{_seg(ruleset)}{suffix}"


def feed() -> str:
    """The feed of every league: ``/feed.atom``."""
    return "/feed.atom"


def schema() -> str:
    """The JSON Schema of every JSON document: ``/schemas/web.v2.json`` (version 1, the
    round-robin-only standings, stays published for old readers)."""
    return "/schemas/web.v2.json"


def absolute(base: str, path: str) -> str:
    """``path`` under the base URL ``base`` (``public_url`` or the request's), without doubling
    the slash: ``absolute("https://x.org/a/", "/leagues/b")`` → ``https://x.org/a/leagues/b``."""
    return base.rstrip("/") + path


def mail_link(public_url: str, league_name: str, battle_id: int | None = None) -> str:
    """The link a report (``battle_id`` given) or standings mail carries to its page, or ``""``
    when ``public_url`` is empty (the mail then has no link). For the mail templates."""
    if not public_url:
        return ""
    path = battle(league_name, battle_id) if battle_id is not None else league(league_name)
    return absolute(public_url, path)
