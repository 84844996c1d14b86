"""How players are named where others can read it: never by their mail address.

Every page, mail, feed and listing that shows a player to anyone but that player uses
:func:`public_name`; the address itself is shown only to its owner and to the operator's own
``--show-addresses`` style options (``docs/mail.md``, privacy). Pure functions over plain values.
"""

from __future__ import annotations

import unicodedata


def mask_address(address: str) -> str:
    """A recognisable but unusable form of ``address``: the first character of the local part,
    ``…``, and the first character of the domain, ``…`` (``alice@example.org`` → ``a…@e…``).
    An empty or malformed address gives ``"?"``."""
    local, at, domain = (address or "").strip().rpartition("@")
    if not at or not local or not domain:
        return "?"
    return f"{local[0]}…@{domain[0]}…"


def public_name(display_name: str | None, address: str, player_id: int | None = None) -> str:
    """The name under which a player appears to others: the display name (from the mail's From
    phrase or a ``name:`` line) when it has a visible character, else ``player #12`` (the player
    id keeps two unnamed players distinct). Nothing of the address shows: even its first letters
    (``a…@e…``, :func:`mask_address`) told other players too much."""
    name = (display_name or "").strip()
    if name and any(unicodedata.category(c)[0] in "LNPS" for c in name):
        return name
    return f"player #{player_id}" if player_id is not None else "player"
