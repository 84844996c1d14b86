"""An organizer's ``run`` by mail survives a crash (issue 9.5): the mail's transaction records a
request; ``amaryllis tick`` (the real CLI) is killed with SIGKILL after 3 battles of the round;
the next ``tick`` takes the dead process's request over, finishes the round and queues the one
answer. Before: the round ran after the mail's commit, and a crash left it half played with no
answer and nothing to resume it."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import os
import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from app.db.models import Battle, InboundMessage, LeagueRequest, OutboxMessage, Round
from app.db.session import transaction
from app.league import service as svc
from app.mail.pipeline import process_pending
from tests.mail.conftest import make_settings
from tests.mail.test_rules_and_commands import mail_from, store

ROOT = Path(__file__).resolve().parents[2]
SHEET = "Bolt{n}: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def tick(url: str, data: Path, kill_after: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env.update(
        AMARYLLIS_DATABASE_URL=url,
        AMARYLLIS_DATA_DIR=str(data),
        AMARYLLIS_SERVER_ADDRESS="tourney@localhost",
        AMARYLLIS_LEAGUE_WORKERS="0",
        AMARYLLIS_ORGANIZERS='["org@example.com"]',
        AMARYLLIS_ORGANIZER_PASSWORD="orgpw",
    )
    if kill_after:
        env["AMARYLLIS_LEAGUE_KILL_AFTER_BATTLES"] = str(kill_after)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "tick"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_run_by_mail_is_resumed_after_a_kill_and_answered_once(db, tmp_path) -> None:
    url, factory = db
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as s:
        league = svc.create_league(s, "spring", entry_deadline=now + dt.timedelta(days=1), now=now)
        for n in range(8):
            player = svc.get_or_create_player(s, f"p{n}@example.org")
            assert svc.submit_entry(s, league, player, SHEET.format(n=n), now=now).accepted
        svc.close_entries(s, league, now=now)
    settings = make_settings(url, data_dir=tmp_path)
    rid = store(factory, mail_from("org@example.com", "run spring", "password: orgpw\n", 1))
    assert process_pending(settings, factory, now=now) == 1
    with factory() as s:
        assert s.get(InboundMessage, rid).status == "done"
        [req] = s.scalars(select(LeagueRequest)).all()
        assert (req.kind, req.state, req.params["rounds"]) == ("run", "queued", [1])
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) == 0  # answered later

    killed = tick(url, tmp_path, kill_after=3)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with factory() as s:
        rnd = s.scalar(select(Round).where(Round.number == 1))
        states = [
            b.state
            for b in s.scalars(
                select(Battle).where(Battle.round_id == rnd.id, Battle.entry_b_id.is_not(None))
            )
        ]
        assert rnd.state != "done" and states.count("pending") > 0  # half played
        assert s.scalar(select(LeagueRequest)).state == "queued"

    again = tick(url, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "organizer run of spring: done" in again.stdout
    assert "organizer run" not in tick(url, tmp_path).stdout  # nothing left to do
    with factory() as s:
        rnd = s.scalar(select(Round).where(Round.number == 1))
        assert rnd.state == "done"
        assert s.scalar(select(Round.state).where(Round.number == 2)) != "done"  # only "next"
        req = s.scalar(select(LeagueRequest))
        assert req.state == "done" and req.attempts == 2
        answers = s.scalars(select(OutboxMessage).where(OutboxMessage.inbound_id == rid)).all()
        assert len(answers) == 1  # one answer, threaded under the organizer's mail
        msg = email.message_from_bytes(answers[0].raw, policy=email.policy.default)
        assert msg["In-Reply-To"] == "<r1@x>"
        assert (
            "Round 1 of spring played: 4 battles, 8 reports queued."
            in msg.get_body(("plain",)).get_content()
        )
        reports = s.scalar(
            select(func.count()).select_from(OutboxMessage).where(OutboxMessage.kind == "report")
        )
        assert reports == 8  # every battle of the round reported once
