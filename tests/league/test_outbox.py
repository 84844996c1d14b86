"""One body to many recipients: the stamped copies are valid mails with their own envelope
headers, keys queued before are skipped, and unusual addresses take the ordinary path."""

from __future__ import annotations

import email
from email import policy

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import OutboxMessage
from app.db.session import transaction
from app.league.outbox import Copy, queue_copies
from tests.league.helpers import T0

BODY = dict(sender="league@example.net", sender_name="Amaryllis League",
            subject="[Cup] 第1回戦：グリスク vs ヌト — ヌトの勝利", text="本文です。\nline 2\n",
            html="<p>本文</p>", auto_submitted="auto-generated")


def test_copies_are_complete_mails(factory: sessionmaker[Session]) -> None:
    copies = [Copy("k:1", "a@example.org", "<m1@example.org>"), Copy("k:2", "b@example.org"),
              Copy("k:3", "ü@exämple.org", "<m3@example.org>")]
    with transaction(factory) as s:
        assert queue_copies(s, copies, kind="report", now=T0, **BODY) == 3
    with transaction(factory) as s:
        assert queue_copies(s, copies + [Copy("k:4", "d@example.org")], kind="report", now=T0,
                            **BODY) == 1
        rows = {r.dedupe_key: r for r in s.scalars(select(OutboxMessage))}
    assert sorted(rows) == ["k:1", "k:2", "k:3", "k:4"]
    ids = set()
    for key, to, irt in [("k:1", "a@example.org", "<m1@example.org>"),
                         ("k:2", "b@example.org", None), ("k:3", "ü@exämple.org", "<m3@example.org>")]:
        row = rows[key]
        msg = email.message_from_bytes(row.raw, policy=policy.default)
        assert msg["To"] == to and row.recipient == to
        assert msg["Message-ID"] == row.message_id and row.message_id not in ids
        ids.add(row.message_id)
        assert msg["In-Reply-To"] == irt and msg["References"] == irt
        assert str(msg["Subject"]) == BODY["subject"]
        assert msg["From"].addresses[0].addr_spec == "league@example.net" == row.sender
        assert len(msg.get_all("To")) == 1 and len(msg.get_all("Message-ID")) == 1
        assert msg.get_body(("plain",)).get_content() == BODY["text"]
        assert "本文" in msg.get_body(("html",)).get_content()
        assert row.status == "queued" and row.kind == "report"
