"""The report and standings mails of a played round, as queued: their HTML parts are mail
layouts (no script, no stylesheet link, no SVG), show players by public name only (no address,
in any part), and, with the ``public_url`` setting, link to the battle's and the league's page;
without it they carry no link."""

from __future__ import annotations

import email
import re
from email import policy

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import Battle, OutboxMessage
from app.db.session import transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, fill_league

PUBLIC = "https://leagues.example.org/amaryllis"


def _mails(factory: sessionmaker[Session]) -> list[tuple[str, email.message.EmailMessage]]:
    with factory() as s:
        rows = [
            (m.kind, m.raw)
            for m in s.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.kind.in_(("report", "standings")))
                .order_by(OutboxMessage.id)
            )
        ]
    return [
        (kind, email.message_from_bytes(raw, policy=policy.default))  # type: ignore[misc]
        for kind, raw in rows
    ]


@pytest.mark.parametrize("public_url", [PUBLIC, ""])
def test_round_mails_link_to_their_pages_and_show_no_address(
    factory: sessionmaker[Session], settings: Settings, public_url: str
) -> None:
    settings = settings.model_copy(update={"public_url": public_url})
    name = "Links"
    fill_league(factory, name, 3, langs=("ja", "en"))
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, name), now=DEADLINE)
    assert svc.run_round(factory, LeagueMail.of(settings), name, now=DEADLINE) == [1]
    with factory() as s:
        battle_ids = set(s.scalars(select(Battle.id).where(Battle.entry_b_id.is_not(None))))
    mails = _mails(factory)
    kinds = {kind for kind, _ in mails}
    assert kinds == {"report", "standings"}
    for kind, msg in mails:
        html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
        text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        low = html.lower()
        assert "<script" not in low and "<svg" not in low and "<link" not in low
        for part in (html, text):
            assert not re.search(r"p\d@example\.org", part, re.I), part  # players' addresses
        links = re.findall(r'href="([^"]+)"', html)
        if not public_url:
            assert links == []
        elif kind == "report":
            assert len(links) == 1 and links[0].startswith(f"{PUBLIC}/leagues/{name}/battles/")
            assert int(links[0].rsplit("/", 1)[1]) in battle_ids
        else:
            assert links == [f"{PUBLIC}/leagues/{name}"]
