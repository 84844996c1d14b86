"""Helpers of the league tests: a league filled with valid random sheets, the clock."""

from __future__ import annotations

import datetime as dt
import random

from sqlalchemy.orm import Session, sessionmaker

from app.db.models import InboundMessage
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.rules import find_ruleset
from app.rules.amaryllis import format_sheet
from app.rules.amaryllis.generate import random_unit

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
DEADLINE = T0 + dt.timedelta(days=2)


def sheet_text(
    i: int, lang: str = "ja", ruleset: str = "amaryllis", options: dict | None = None
) -> str:
    """A valid sheet (normalized notation) of a reproducible random unit (or swordmaster) named
    ``U<i>`` of ``ruleset`` with league ``options`` (``Ruleset.random_entry``)."""
    if ruleset != "amaryllis":
        rs = find_ruleset(ruleset)(options)
        return rs.format_sheet(rs.random_entry(random.Random(1000 + i), f"U{i}"), lang)
    unit = random_unit(random.Random(1000 + i), f"U{i}", lang=lang)
    return format_sheet(unit, lang)


def fill_league(
    factory: sessionmaker[Session],
    name: str,
    n: int,
    *,
    double: bool = False,
    rounds_every: dt.timedelta | None = None,
    langs: tuple[str, ...] = ("ja", "en"),
    with_inbound: bool = True,
    ruleset: str = "amaryllis",
    options: dict | None = None,
) -> None:
    """Create league ``name`` at ``T0`` (deadline ``DEADLINE``) with ``n`` entries
    ``p<i>@example.org``; each sheet arrives in a stored inbound mail ``<sheet-<i>@example.org>``
    (so reports can be threaded)."""
    with transaction(factory) as s:
        league = svc.create_league(
            s,
            name,
            entry_deadline=DEADLINE,
            rounds_every=rounds_every,
            double=double,
            ruleset=ruleset,
            options=options,
            now=T0,
        )
        for i in range(n):
            lang = langs[i % len(langs)]
            player = svc.get_or_create_player(
                s, f"P{i}@Example.org", display_name=f"Player {i}", lang=lang
            )
            inbound_id = None
            if with_inbound:
                msg = InboundMessage(
                    message_key=f"<sheet-{name}-{i}@example.org>",
                    sender=player.address,
                    subject="entry",
                    raw=b"x",
                )
                s.add(msg)
                s.flush()
                inbound_id = msg.id
            out = svc.submit_entry(
                s,
                league,
                player,
                sheet_text(i, lang, ruleset, options),
                inbound_id=inbound_id,
                now=T0,
            )
            assert out.accepted, out.sheet.problems


def enter_players(db_url: str, league: str, n: int) -> None:
    """Enter ``n`` players ``p<i>@example.org`` (English, sheet ``sheet_text(i)`` of the league's
    ruleset) in ``league``."""
    factory = session_factory(db_url)
    with transaction(factory) as s:
        lg = svc.get_league(s, league)
        for i in range(n):
            p = svc.get_or_create_player(
                s, f"p{i}@example.org", display_name=f"Player {i}", lang="en"
            )
            out = svc.submit_entry(s, lg, p, sheet_text(i, "en", lg.ruleset, lg.options), now=T0)
            assert out.accepted, out.sheet.problems
    factory.kw["bind"].dispose()
