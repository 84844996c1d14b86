"""One big round shared by two ``amaryllis serve`` processes (real subprocesses, each with its own
data folder) on one PostgreSQL database (issue 22): the play lease holder opens the round to
sharing and both claim its battles in chunks (``FOR UPDATE SKIP LOCKED``); killed at a random
instant, one of them leaves the other to finish (a dead process's claims and play lease are taken
over). Either way the battles, the standings and the queued mails are those of a single process
playing the round uninterrupted (the reference, on a database of its own), and every battle is
stored and reported once."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import signal
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select, update
from sqlalchemy.pool import NullPool

from app.db.models import Battle, Entry, League, OutboxBody, OutboxMessage, Player, Round
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.league.play import SHARED_ENV
from app.mail.league_mail import LeagueMail
from tests.db.pgutil import fresh_postgres
from tests.faults.helpers import ROOT, crash_loop_module, until
from tests.league.helpers import DEADLINE, fill_league
from tests.mail.conftest import make_settings
from tests.servers import SmtpSink, free_port

#: entries of the accumulating league: one update of ENTRIES * (ENTRIES - 1) / 2 battles
ENTRIES = 40
BATTLES = ENTRIES * (ENTRIES - 1) // 2


def _setup(url: str, data: Path, due: dt.datetime) -> None:
    """The league ``big``: an accumulating round robin of one update, entries closed, its
    round due at ``due``."""
    factory = session_factory(url)
    fill_league(factory, "big", ENTRIES)
    with transaction(factory) as s:
        league = svc.get_league(s, "big")
        league.format = "accumulating"
        league.format_options = {"updates": 1}
    with transaction(factory) as s:
        svc.close_entries(
            s,
            svc.get_league(s, "big"),
            now=DEADLINE,
            mail=LeagueMail.of(make_settings(url, data_dir=data)),
        )
        s.execute(update(Round).values(scheduled_at=due))
    factory.kw["bind"].dispose()


def _body(data: bytes) -> str:
    """A stored outbox body's digest, its ``Date`` header left out (each process's clock)."""
    lines = zlib.decompress(data).split(b"\n")
    return hashlib.sha256(b"\n".join(x for x in lines if not x.startswith(b"Date:"))).hexdigest()


def _league(url: str) -> dict[str, Any]:
    """What players see of league ``big``: battles, rounds, standings and the outbox rows
    (key, recipient, kind and body)."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as c:
            who = dict(
                c.execute(
                    select(Entry.id, Player.address).join(Player, Player.id == Entry.player_id)
                ).all()
            )
            battles = sorted(
                (n, board, who.get(a), who.get(b), state, winner, reason, turns, hp_a, hp_b, margin)
                for n, board, a, b, state, winner, reason, turns, hp_a, hp_b, margin in c.execute(
                    select(
                        Round.number,
                        Battle.board,
                        Battle.entry_a_id,
                        Battle.entry_b_id,
                        Battle.state,
                        Battle.winner,
                        Battle.reason,
                        Battle.turns,
                        Battle.hp_a,
                        Battle.hp_b,
                        Battle.margin,
                    ).join(Round, Round.id == Battle.round_id)
                )
            )
            rounds = sorted(c.execute(select(Round.number, Round.state)).all())
            state = c.execute(select(League.state)).scalar_one()
            bodies = {
                sha: _body(data)
                for sha, data in c.execute(select(OutboxBody.sha256, OutboxBody.data))
            }
            outbox = sorted(
                (key, to, kind, bodies.get(sha))
                for key, to, kind, sha in c.execute(
                    select(
                        OutboxMessage.dedupe_key,
                        OutboxMessage.recipient,
                        OutboxMessage.kind,
                        OutboxMessage.body_sha256,
                    )
                )
            )
        factory = session_factory(url, migrate=False)
        with factory() as s:
            standings = svc.render_standings(s, svc.get_league(s, "big"), lang="en", fmt="text")
        factory.kw["bind"].dispose()
    finally:
        engine.dispose()
    return {
        "battles": battles,
        "rounds": rounds,
        "state": state,
        "standings": standings,
        "outbox": outbox,
    }


def _count(engine: Any, query: Any) -> int:
    with engine.connect() as c:
        return int(c.execute(query).scalar() or 0)


@pytest.mark.parametrize(
    "kill_seed,workers",
    [(None, 0), (None, 1), (1, 0), (2, 1), (3, 0)],
    ids=["both-live", "both-live-workers", "kill-1", "kill-2-workers", "kill-3"],
)
def test_two_serves_share_a_round_and_match_one_uninterrupted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill_seed: int | None, workers: int
) -> None:
    h = crash_loop_module()
    due = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
    with (
        fresh_postgres("amaryllis_shared") as reference,
        fresh_postgres("amaryllis_shared") as url,
        SmtpSink() as sink,
    ):
        for u in (reference, url):
            _setup(u, tmp_path / "setup", due)
        monkeypatch.setenv(SHARED_ENV, "0")  # the reference: one process, today's path
        ref = session_factory(reference, migrate=False)
        assert svc.run_round(
            ref, LeagueMail.of(make_settings(reference, data_dir=tmp_path / "r")), "big", now=due
        ) == [1]
        ref.kw["bind"].dispose()
        monkeypatch.delenv(SHARED_ENV)
        expected = _league(reference)
        assert len(expected["battles"]) == BATTLES and expected["state"] == "finished"

        engine = create_engine(url, poolclass=NullPool)
        procs: list[subprocess.Popen[bytes]] = []
        logs = [tmp_path / "a.log", tmp_path / "b.log"]
        try:
            for name, log in zip("ab", logs, strict=True):
                env = h._env(
                    url,
                    tmp_path / name,
                    SimpleNamespace(
                        imap_url=f"imap://u:p@127.0.0.1:{free_port()}/INBOX", smtp_url=sink.url
                    ),
                )
                env |= {
                    "AMARYLLIS_TICK_INTERVAL": "0.2",
                    "AMARYLLIS_LEAGUE_WORKERS": str(workers),
                    "AMARYLLIS_SEND_INTERVAL": "3600",
                }
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "app.cli", "serve"],
                        env=env,
                        cwd=ROOT,
                        stdout=subprocess.DEVNULL,
                        stderr=open(log, "wb"),
                    )
                )
            done = select(func.count()).select_from(Battle).where(Battle.state == "done")
            if kill_seed is not None:
                rng = random.Random(kill_seed)
                victim = rng.randrange(2)
                at = rng.randrange(1, BATTLES - 10)
                until(
                    lambda: _count(engine, done) >= at,
                    f"{at} battles stored",
                    procs[1 - victim],
                    logs[1 - victim],
                )
                procs[victim].send_signal(signal.SIGKILL)
                procs[victim].wait(30)
            live = next(i for i, p in enumerate(procs) if p.poll() is None)
            finished = select(func.count()).select_from(League).where(League.state == "finished")
            until(
                lambda: _count(engine, finished) == 1,
                "the league finished",
                procs[live],
                logs[live],
            )
            with engine.connect() as c:  # closed here: a connection left to the garbage
                # collector would be reset after DROP DATABASE … WITH (FORCE) and log an ERROR
                fought_at = {
                    t
                    for (t,) in c.execute(
                        select(Battle.fought_at).where(Battle.entry_b_id.is_not(None))
                    )
                }
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(60)
            engine.dispose()
        got = _league(url)
    assert got["battles"] == expected["battles"]
    assert got["standings"] == expected["standings"]
    assert got["rounds"] == expected["rounds"] and got["state"] == "finished"
    assert got["outbox"] == expected["outbox"]  # every mail queued once, the same mail
    # an accumulating update is mailed as digests: one a player, queued once (none per battle)
    keys = Counter(k for k, *_ in got["outbox"] if k.startswith("digest:"))
    assert len(keys) == ENTRIES and set(keys.values()) == {1}
    assert not any(k.startswith("report:") for k, *_ in got["outbox"])
    if kill_seed is None:
        assert len(fought_at) >= 2  # both processes stored chunks (each ticks at its own time)
