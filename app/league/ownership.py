"""Entry ownership: who may replace or withdraw an entry (issue #8.3; ``docs/mail.md``).

An entry belongs to the player row of the address that entered it (its *registered address*).
A mail's From header proves nothing — anyone can write any address there — so a change to an
existing entry (a replacement sheet, a withdrawal, re-opening a withdrawn entry) takes effect only
with a proof a forger lacks:

1. the **entry key** (:func:`ensure_key`): 8 characters shown in every acceptance reply, which
   only the registered address receives; a mail with the line ``key: 7F3K-Q9PD`` changes the
   entry at once (:func:`key_matches`);
2. the receiving server's ``Authentication-Results`` saying the From domain passed DMARC (the mail
   layer decides that, ``app.mail.protect``);
3. otherwise a **confirmation round trip** (Mailman's confirmation of subscriptions): the change
   is kept as a :class:`~app.db.models.PendingChange` (:func:`request_change`), a mail with a
   one-time token goes to the registered address, and the change is made when that token comes
   back (:func:`find_change`, :func:`mark_done`) before it expires (``confirm_hours``) and while
   entries are open (closing entries expires pending changes: :func:`expire_pending`).

Only the SHA-256 of a token is stored; keys are stored as shown (they are restated in later
replies). Every function works in the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import unicodedata

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.db.models import Entry, League, PendingChange

#: the letters of keys: Crockford's base32 without 0/O, 1/I/L and U (no look-alikes)
KEY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
#: characters of a key (shown as two groups of four: ``7F3K-Q9PD``; about 39 bits)
KEY_LENGTH = 8
#: the states of a :class:`PendingChange`
STATES = ("pending", "done", "expired", "superseded", "refused")


def new_key() -> str:
    """A fresh random entry key, ``XXXX-XXXX`` over :data:`KEY_ALPHABET` (``secrets``)."""
    raw = "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalize_key(text: str) -> str:
    """A key as typed, compared form: NFKC (full-width letters), upper case, only letters and
    digits (``7f3k q9pd`` and ``７Ｆ３Ｋ－Ｑ９ＰＤ`` are ``7F3KQ9PD``)."""
    return "".join(
        c for c in unicodedata.normalize("NFKC", text).upper() if c.isascii() and c.isalnum()
    )


def ensure_key(entry: Entry) -> str:
    """The entry's key, made (and set on the row) when it has none yet."""
    if not entry.owner_key:
        entry.owner_key = new_key()
    return entry.owner_key


def key_matches(entry: Entry, given: str | None) -> bool:
    """True when ``given`` (a ``key:`` line's value) is the entry's key, compared in constant
    time after :func:`normalize_key`. False when the entry has no key yet or ``given`` is
    empty."""
    if not given or not entry.owner_key:
        return False
    return hmac.compare_digest(
        normalize_key(given).encode(), normalize_key(entry.owner_key).encode()
    )


def token_hash(token: str) -> str:
    """The stored form of a confirmation token: SHA-256 hex of its lower-cased text."""
    return hashlib.sha256(token.strip().lower().encode("ascii", "replace")).hexdigest()


def request_change(
    session: Session,
    entry: Entry,
    kind: str,
    *,
    sheet_text: str | None,
    inbound_id: int | None,
    now: dt.datetime,
    ttl: dt.timedelta,
) -> tuple[PendingChange, str]:
    """Keep a change of ``entry`` (``kind`` ``replace`` with ``sheet_text``, ``withdraw``, or
    ``orders`` with the orders text in ``sheet_text``, for a ruleset that takes orders) until
    its owner confirms it: earlier pending changes of the entry of the same family (an entry
    change, or orders) are ``superseded``. Returns ``(row, token)``: the token (32 hex digits,
    128 bits) goes into the confirmation mail and nowhere else. Raises ``ValueError`` for
    another ``kind``."""
    if kind not in ("replace", "withdraw", "orders"):
        raise ValueError(f"unknown change {kind!r}")
    family = ("orders",) if kind == "orders" else ("replace", "withdraw")
    session.execute(
        update(PendingChange)
        .where(
            PendingChange.entry_id == entry.id,
            PendingChange.state == "pending",
            PendingChange.kind.in_(family),
        )
        .values(state="superseded", done_at=now)
    )
    token = secrets.token_hex(16)
    row = PendingChange(
        entry_id=entry.id,
        kind=kind,
        sheet_text=sheet_text,
        token_hash=token_hash(token),
        inbound_id=inbound_id,
        state="pending",
        created_at=now,
        expires_at=now + ttl,
    )
    session.add(row)
    session.flush()
    return row, token


def find_change(session: Session, token: str) -> PendingChange | None:
    """The change a confirmation token stands for (any state), or ``None``."""
    if not token or len(token) > 128:
        return None
    return session.scalar(
        select(PendingChange).where(PendingChange.token_hash == token_hash(token))
    )


def is_expired(change: PendingChange, now: dt.datetime) -> bool:
    """True when ``change`` is past its ``expires_at``."""
    at = change.expires_at
    if at.tzinfo is None:
        at = at.replace(tzinfo=dt.timezone.utc)
    return now >= at


def mark_done(
    change: PendingChange, state: str, now: dt.datetime, detail: str | None = None
) -> None:
    """End ``change`` in ``state`` (``done``, ``expired``, ``refused``) at ``now``."""
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}")
    change.state, change.done_at, change.detail = state, now, detail


def expire_pending(session: Session, league: League, now: dt.datetime) -> int:
    """Expire every pending replacement or withdrawal of ``league``'s entries (entries are
    closing: neither can be made any more; orders waiting for confirmation stay). Returns how
    many were expired."""
    ids = select(Entry.id).where(Entry.league_id == league.id)
    result = session.execute(
        update(PendingChange)
        .where(
            PendingChange.entry_id.in_(ids),
            PendingChange.state == "pending",
            PendingChange.kind.in_(("replace", "withdraw")),
        )
        .values(state="expired", done_at=now, detail="entries closed before it was confirmed")
    )
    return int(getattr(result, "rowcount", 0) or 0)
