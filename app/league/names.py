"""A player's display name: unique across the server, set only by an accepted entry.

Two names are the same name when their keys are (``app.db.models.display_name_key``: NFKC, case
folding, no whitespace), and ``players.name_key`` is unique, so no table shows two "秋" nor "Aki"
beside "ａｋｉ". :func:`settle` is the one place a player's name is given: the mail layer calls it
after an entry is accepted (a rejected or refused mail changes nothing about its sender). A
player without a name of their own gets a readable default in their language (``名無しの桔梗``,
``Nameless Iris``), never a database id.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import Player, display_name_key

#: the longest display name kept (characters; the column holds 200)
NAME_MAX = 40

#: the flowers default names are made of, per language (``名無しの桔梗``, ``Nameless Iris``)
FLOWERS = {
    "ja": (
        "桔梗",
        "菫",
        "椿",
        "撫子",
        "水仙",
        "木蓮",
        "芍薬",
        "牡丹",
        "紫陽花",
        "向日葵",
        "竜胆",
        "菖蒲",
        "山茶花",
        "鈴蘭",
        "秋桜",
        "蓮華",
        "沈丁花",
        "金木犀",
        "百合",
        "薊",
    ),
    "en": (
        "Iris",
        "Violet",
        "Camellia",
        "Pink",
        "Daffodil",
        "Magnolia",
        "Peony",
        "Hydrangea",
        "Sunflower",
        "Gentian",
        "Lily",
        "Orchid",
        "Tulip",
        "Poppy",
        "Aster",
        "Lotus",
        "Daisy",
        "Jasmine",
        "Lilac",
        "Thistle",
    ),
}
_PATTERN = {"ja": "名無しの{flower}", "en": "Nameless {flower}"}


@dataclass(frozen=True)
class NameOutcome:
    """What :func:`settle` did to a player's name.

    Attributes:
        name: the name the player has now (as others see it).
        changed: ``name`` was given by this call (new, or changed).
        default: ``name`` is a default the server chose.
        refused: the name asked for and not given (``""`` when none was refused).
        reason: why: ``"taken"`` (another player has it or a look-alike of it),
            ``"needs-proof"`` (a name is already set and the mail did not prove its sender),
            ``""`` otherwise.
        suggestion: a free variant of ``refused`` (``秋 2``) when it was taken, else ``""``.
    """

    name: str
    changed: bool = False
    default: bool = False
    refused: str = ""
    reason: str = ""
    suggestion: str = ""


def is_free(session: Session, name: str, player: Player | None = None) -> bool:
    """True when no player but ``player`` has ``name`` or a look-alike of it
    (:func:`~app.db.models.display_name_key`)."""
    return _first_free(session, [name], player) == name


def _first_free(session: Session, names: list[str], player: Player | None) -> str:
    """The first of ``names`` that is free (:func:`is_free`), looked up a hundred at a time
    (one query each, not one a name: a league of a thousand nameless players had each new one
    try hundreds of names); ``""`` when none is."""
    for start in range(0, len(names), 100):
        chunk = names[start : start + 100]
        keys = {name: display_name_key(name) for name in chunk}
        q = select(Player.name_key).where(Player.name_key.in_({k for k in keys.values() if k}))
        if player is not None and player.id is not None:
            q = q.where(Player.id != player.id)
        taken = set(session.scalars(q))
        for name in chunk:
            if keys[name] is not None and keys[name] not in taken:
                return name
    return ""


def free_variant(session: Session, name: str, player: Player | None = None) -> str:
    """The first of ``NAME 2``, ``NAME 3``, … (cut to :data:`NAME_MAX` characters) that is free
    (:func:`is_free`); ``""`` when none of the first 1,000 is."""
    candidates = []
    for n in range(2, 1002):
        suffix = f" {n}"
        candidates.append(name[: NAME_MAX - len(suffix)].rstrip() + suffix)
    return _first_free(session, candidates, player)


def default_name(session: Session, player: Player, lang: str) -> str:
    """A readable name for a player who gave none, in ``lang`` (``ja``, else English): a
    flower (``名無しの桔梗``, ``Nameless Iris``), the first free one in an order drawn from the
    player's address (not from the database id, which would tell the order players came in),
    then ``名無しの桔梗 2``… once every flower is taken."""
    names = default_candidates(player.address, lang)
    return (
        _first_free(session, names, player)
        or free_variant(session, names[0], player)
        or f"{names[0]} {player.id}"
    )


def default_candidates(address: str, lang: str) -> list[str]:
    """Every default name of :data:`FLOWERS` in ``lang`` (``ja``, else English), in the order
    drawn from ``address`` (SHA-256): the order :func:`default_name` tries them. Pure."""
    flowers = FLOWERS["ja" if lang == "ja" else "en"]
    pattern = _PATTERN["ja" if lang == "ja" else "en"]
    start = int.from_bytes(hashlib.sha256(address.encode()).digest()[:4], "big")
    return [pattern.format(flower=flowers[(start + i) % len(flowers)]) for i in range(len(flowers))]


def _take(session: Session, player: Player, name: str) -> bool:
    """Give ``player`` the name ``name`` in a savepoint; ``False`` when another transaction took
    it meanwhile (the unique key refused it), the player unchanged."""
    before = player.display_name
    try:
        with session.begin_nested():
            player.display_name = name
            session.flush()
    except IntegrityError:
        player.display_name = before
        return False
    return True


def settle(
    session: Session, player: Player, wanted: str, lang: str, *, may_change: bool
) -> NameOutcome:
    """Give ``player`` a name after an accepted entry.

    ``wanted`` is the name the mail asked for (its ``name:`` line, else the From phrase; cleaned
    by the caller; ``""`` for none), ``lang`` the player's language (of a default name),
    ``may_change`` whether the mail may change a name already set (it proved its sender).
    A taken name (:func:`is_free`) is refused with a free variant as the suggestion; a player
    left without a name gets :func:`default_name`. Returns what was done
    (:class:`NameOutcome`). Flushes the session."""
    current = player.display_name or ""
    wanted = wanted.strip()[:NAME_MAX].strip()
    if wanted and display_name_key(wanted) == player.name_key and current:
        if wanted != current and may_change:  # the same name, written otherwise (case, width)
            if _take(session, player, wanted):
                return NameOutcome(wanted, changed=True)
        return NameOutcome(player.display_name)
    refused, reason, suggestion = "", "", ""
    if wanted and current and not may_change:
        refused, reason = wanted, "needs-proof"
    elif wanted:  # the unique key decides (no look-up first: one statement a mail less)
        if display_name_key(wanted) is not None and _take(session, player, wanted):
            return NameOutcome(wanted, changed=True)
        refused, reason = wanted, "taken"
        suggestion = free_variant(session, wanted, player)
    if player.display_name:
        return NameOutcome(
            player.display_name, refused=refused, reason=reason, suggestion=suggestion
        )
    for _attempt in range(3):
        name = default_name(session, player, lang)
        if _take(session, player, name):
            return NameOutcome(
                name,
                changed=True,
                default=True,
                refused=refused,
                reason=reason,
                suggestion=suggestion,
            )
    raise RuntimeError("no free default name")  # three races in a row: the mail is retried
