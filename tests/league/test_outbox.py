"""One body to many recipients: the stamped copies are valid mails with their own envelope
headers, keys queued before are skipped, and unusual addresses take the ordinary path."""

from __future__ import annotations

import email
from email import policy

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import OutboxMessage
from app.db.session import transaction
from app.mail.outbox import Copy, queue_copies
from tests.league.helpers import T0

BODY = dict(
    sender="league@example.net",
    sender_name="Amaryllis League",
    subject="[Cup] 第1回戦：グリスク vs ヌト — ヌトの勝利",
    text="本文です。\nline 2\n",
    html="<p>本文</p>",
    auto_submitted="auto-generated",
)


def test_copies_are_complete_mails(factory: sessionmaker[Session]) -> None:
    copies = [
        Copy("k:1", "a@example.org", "<m1@example.org>"),
        Copy("k:2", "b@example.org"),
        Copy("k:3", "ü@exämple.org", "<m3@example.org>"),
    ]
    with transaction(factory) as s:
        assert queue_copies(s, copies, kind="report", now=T0, **BODY) == 3
    with transaction(factory) as s:
        assert (
            queue_copies(s, copies + [Copy("k:4", "d@example.org")], kind="report", now=T0, **BODY)
            == 1
        )
        rows = {r.dedupe_key: r for r in s.scalars(select(OutboxMessage))}
    assert sorted(rows) == ["k:1", "k:2", "k:3", "k:4"]
    ids = set()
    for key, to, irt in [
        ("k:1", "a@example.org", "<m1@example.org>"),
        ("k:2", "b@example.org", None),
        ("k:3", "ü@exämple.org", "<m3@example.org>"),
    ]:
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


def test_a_body_is_stored_once_and_pruned_after_the_retention(
    factory: sessionmaker[Session], tmp_path
) -> None:
    """Issue 9 (outbox scale): copies of one family share one compressed body row; a row's own
    bytes are its few header lines. After ``outbox_retention_days`` a delivered row keeps its
    dedupe key (the copy is never queued again) but loses its bytes, and the body no row uses is
    deleted."""
    import datetime as dt
    import zlib

    from sqlalchemy import func

    from app.config import Settings
    from app.db.models import OutboxBody
    from app.mail.send import prune

    copies = [Copy(f"k:{i}", f"p{i}@example.org") for i in range(50)]
    with transaction(factory) as s:
        assert queue_copies(s, copies, kind="standings", now=T0, **BODY) == 50
    with factory() as s:
        bodies = s.scalars(select(OutboxBody)).all()
        rows = s.scalars(select(OutboxMessage)).all()
        assert len(bodies) == 1 and {r.body_sha256 for r in rows} == {bodies[0].sha256}
        assert len(zlib.decompress(bodies[0].data)) == bodies[0].size > len(bodies[0].data)
        assert max(len(r.head or b"") for r in rows) < 120 and all(
            r.raw_whole is None for r in rows
        )
    with transaction(factory) as s:
        for r in s.scalars(select(OutboxMessage)):
            r.status, r.sent_at = "sent", T0
    settings = Settings(data_dir=tmp_path, outbox_retention_days=30)
    assert prune(settings, factory, T0 + dt.timedelta(days=29)) == 0
    assert prune(settings, factory, T0 + dt.timedelta(days=31)) == 50
    with transaction(factory) as s:
        assert s.scalar(select(func.count()).select_from(OutboxBody)) == 0
        assert {(r.content_pruned, r.raw) for r in s.scalars(select(OutboxMessage))} == {
            (True, b"")
        }
        assert queue_copies(s, copies, kind="standings", now=T0, **BODY) == 0  # keys still guard


def test_bulk_rows_take_the_column_defaults(factory: sessionmaker[Session]) -> None:
    """Rows queued in bulk (one COPY on PostgreSQL, one executemany elsewhere) are ready to
    send as a row queued one at a time is: queued, no attempt, due now, ids in order."""
    copies = [Copy(f"d:{i}", f"p{i}@example.org") for i in range(30)]
    with transaction(factory) as s:
        assert queue_copies(s, copies, kind="report", now=T0, **BODY) == 30
    with transaction(factory) as s:
        rows = list(s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))
        assert [r.dedupe_key for r in rows] == [c.key for c in copies]
        for r in rows:
            assert (r.status, r.attempts, r.content_pruned, r.kind) == (
                "queued",
                0,
                False,
                "report",
            )
            assert r.next_attempt_at is not None and r.created_at is not None
            assert r.lease_owner is None and r.sent_at is None and r.inbound_id is None
            assert r.body_sha256 == rows[0].body_sha256 and r.raw.endswith(b"\n")


def test_insert_ignore_skips_stored_and_repeated_keys(factory: sessionmaker[Session]) -> None:
    """``insert_ignore`` (one ``unnest`` statement on PostgreSQL): a key stored before, or
    twice in one call, is skipped; the rest are stored with their values."""
    import datetime as dt

    from app.db.models import OutboxBody
    from app.db.session import insert_ignore

    at = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)

    def body(key: str, data: bytes) -> dict[str, object]:
        return dict(sha256=key, data=data, size=len(data), created_at=at)

    with transaction(factory) as s:
        insert_ignore(s, OutboxBody, [body("a" * 64, b"\x00one"), body("b" * 64, b"two")])
    with transaction(factory) as s:
        insert_ignore(
            s,
            OutboxBody,
            [body("a" * 64, b"changed"), body("c" * 64, b"three"), body("c" * 64, b"again")],
        )
    with transaction(factory) as s:
        stored = {b.sha256[0]: (b.data, b.size) for b in s.scalars(select(OutboxBody))}
    assert stored == {"a": (b"\x00one", 4), "b": (b"two", 3), "c": (b"three", 5)}


def test_bulk_update_writes_every_column(factory: sessionmaker[Session]) -> None:
    """``bulk_update`` (one ``UPDATE ... FROM unnest`` on PostgreSQL): each row gets its own
    values, JSON and NULL included; rows not named are left alone."""
    import datetime as dt

    from app.db.models import Battle
    from app.db.session import bulk_update
    from app.league import service as svc
    from tests.league.helpers import DEADLINE, fill_league

    fill_league(factory, "Upd", 3)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Upd"), now=DEADLINE)
    at = dt.datetime(2026, 12, 3, 9, 30, tzinfo=dt.timezone.utc)
    with transaction(factory) as s:
        fought = [b for b in s.scalars(select(Battle).order_by(Battle.id)) if b.entry_b_id]
        first, second, untouched = fought[0], fought[1], fought[2]
        rows = [
            dict(
                id=first.id,
                state="done",
                winner=None,
                reason="draw",
                hp_a=3,
                hp_b=3,
                outcome={"winner": None, "notes": ["ü", 1]},
                final=None,
                fought_at=at,
            ),
            dict(
                id=second.id,
                state="done",
                winner=1,
                reason="death",
                hp_a=-2,
                hp_b=4,
                outcome={"winner": 1},
                final=[{"hp": 4}],
                fought_at=at,
            ),
        ]
        ids = (first.id, second.id, untouched.id)
        bulk_update(s, Battle, rows)
    with transaction(factory) as s:
        got = {b.id: b for b in s.scalars(select(Battle).where(Battle.id.in_(ids)))}
        a, b, c = (got[i] for i in ids)
        assert (a.state, a.winner, a.reason, a.hp_a, a.outcome, a.final) == (
            "done",
            None,
            "draw",
            3,
            {"winner": None, "notes": ["ü", 1]},
            None,
        )
        assert (b.winner, b.reason, b.hp_a, b.outcome, b.final) == (
            1,
            "death",
            -2,
            {"winner": 1},
            [{"hp": 4}],
        )
        assert a.fought_at is not None and a.fought_at.replace(tzinfo=dt.timezone.utc) == at
        assert c.state == "pending" and c.outcome is None
