"""Crash safety: a round killed part-way (a real SIGKILL of a subprocess, after K battles) and run
again completes with no duplicate battle and no duplicate report; running it again is a no-op."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Battle, OutboxMessage, Round
from app.db.session import transaction
from app.league import service as svc
from tests.league.helpers import DEADLINE, fill_league

ROOT = Path(__file__).resolve().parents[2]


def _cli(
    db_url: str,
    cwd: Path,
    *args: str,
    kill_after: int | None = None,
    batch: int = 4,
    workers: int = 0,
    extra: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    env |= {
        "AMARYLLIS_DATABASE_URL": db_url,
        "AMARYLLIS_NOW": DEADLINE.isoformat(),
        "AMARYLLIS_LEAGUE_BATCH": str(batch),
        "AMARYLLIS_LEAGUE_WORKERS": str(workers),
        "PYTHONPATH": str(ROOT),
    }
    if kill_after is not None:
        env[svc.KILL_ENV] = str(kill_after)
    env |= extra or {}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _state(factory: sessionmaker[Session]) -> tuple[Counter[str], list[str], int]:
    with transaction(factory) as s:
        states = Counter(
            b.state for b in s.scalars(select(Battle).join(Round).where(Round.number == 1))
        )
        keys = list(s.scalars(select(OutboxMessage.dedupe_key)))
        n = len(list(s.scalars(select(Battle))))
    return states, keys, n


@pytest.mark.parametrize("kill_after", [6, 9])
def test_a_round_killed_part_way_resumes_without_duplicates(
    db_url: str, factory: sessionmaker[Session], tmp_path: Path, kill_after: int
) -> None:
    # 21 entries: 10 battles and a bye per round; batches of 4 battles per transaction
    fill_league(factory, "Crash", 21)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Crash"), now=DEADLINE)
    _, _, battles_before = _state(factory)

    killed = _cli(db_url, tmp_path, "league", "run-round", "Crash", kill_after=kill_after)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    states, keys, _ = _state(factory)
    committed = (kill_after - 1) // 4 * 4  # whole batches before the killed one
    assert states["done"] == committed + 1  # + the bye
    assert states["pending"] == 10 - committed
    assert len(keys) == 2 * committed and all(k.startswith("report:") for k in keys)

    again = _cli(db_url, tmp_path, "league", "run-round", "Crash")
    assert again.returncode == 0, again.stderr
    assert "played round 1 of Crash" in again.stdout
    states, keys, battles_after = _state(factory)
    assert states == {"done": 11}
    assert battles_after == battles_before  # no battle row added
    assert len(keys) == len(set(keys))
    with transaction(factory) as s:
        reports = Counter(k.rsplit(":", 1)[0] for k in keys if k.startswith("report:"))
        fought = [
            b.id
            for b in s.scalars(
                select(Battle).join(Round).where(Round.number == 1, Battle.entry_b_id.is_not(None))
            )
        ]
        assert reports == {f"report:{bid}": 2 for bid in fought}  # one per side, each once
        standings = [k for k in keys if k.startswith("standings:")]
        assert len(standings) == 21
        rounds = {r.number: r.state for r in s.scalars(select(Round))}
        assert rounds[1] == "done" and rounds[2] == "scheduled"

    twice = _cli(db_url, tmp_path, "league", "run-round", "Crash", "--round", "1")
    assert twice.returncode == 0, twice.stderr
    assert "nothing to play" in twice.stdout
    assert _state(factory)[1] == keys


def test_killed_during_the_last_batch_before_the_standings(
    db_url: str, factory: sessionmaker[Session], tmp_path: Path
) -> None:
    fill_league(factory, "Late", 5)  # 2 battles + a bye per round
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Late"), now=DEADLINE)
    killed = _cli(db_url, tmp_path, "league", "run-round", "Late", kill_after=2, batch=1)
    assert killed.returncode == -signal.SIGKILL
    states, keys, _ = _state(factory)
    assert states == {"done": 2, "pending": 1} and len(keys) == 2
    assert _cli(db_url, tmp_path, "league", "run-round", "Late").returncode == 0
    states, keys, _ = _state(factory)
    assert states == {"done": 3}
    assert Counter(k.split(":")[0] for k in keys) == {"report": 4, "standings": 5}


def test_killed_with_worker_processes_resumes_without_duplicates(
    db_url: str, factory: sessionmaker[Session], tmp_path: Path
) -> None:
    fill_league(factory, "Pool", 21)  # 10 battles + a bye per round
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Pool"), now=DEADLINE)
    killed = _cli(
        db_url, tmp_path, "league", "run-round", "Pool", "--all", kill_after=25, workers=2
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with transaction(factory) as s:
        states = Counter(b.state for b in s.scalars(select(Battle)))
        rounds = Counter(r.state for r in s.scalars(select(Round)))
    assert 0 < states["pending"] < 210 and rounds["done"] >= 1  # died part-way
    again = _cli(db_url, tmp_path, "league", "run-round", "Pool", "--all", workers=2)
    assert again.returncode == 0, again.stderr
    with transaction(factory) as s:
        assert Counter(b.state for b in s.scalars(select(Battle))) == {"done": 21 * 11}
        keys = list(s.scalars(select(OutboxMessage.dedupe_key)))
        assert len(keys) == len(set(keys))
        assert Counter(k.split(":")[0] for k in keys) == {
            "report": 21 * 10 * 2,
            "standings": 21 * 21,
        }
        assert svc.get_league(s, "Pool").state == "finished"


@pytest.mark.parametrize("workers", [0, 2])
def test_a_shared_round_killed_part_way_resumes_without_duplicates(
    db_url: str, factory: sessionmaker[Session], tmp_path: Path, workers: int
) -> None:
    # rounds are shared on PostgreSQL (docs/league.md "Shared rounds"): every round here is
    if not db_url.startswith("postgresql"):  # (share threshold 1), so battles are claimed
        pytest.skip("rounds are shared on PostgreSQL only")
    fill_league(factory, "Shared", 21)  # 10 battles + a bye per round
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "Shared"), now=DEADLINE)
    share = {"AMARYLLIS_LEAGUE_SHARE_MIN": "1"}
    killed = _cli(
        db_url,
        tmp_path,
        "league",
        "run-round",
        "Shared",
        "--all",
        kill_after=27,
        workers=workers,
        extra=share,
        timeout=600,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with transaction(factory) as s:
        states = Counter(b.state for b in s.scalars(select(Battle)))
        claimed = [b for b in s.scalars(select(Battle).where(Battle.claim_owner.is_not(None)))]
        assert all(r.shared for r in s.scalars(select(Round).where(Round.state == "done")))
    assert 0 < states["pending"] < 210 and claimed  # died part-way, holding claims
    assert all(b.state == "pending" for b in claimed)
    again = _cli(
        db_url,
        tmp_path,
        "league",
        "run-round",
        "Shared",
        "--all",
        workers=workers,
        extra=share,
        timeout=600,
    )  # the dead process's claims are taken over at once
    assert again.returncode == 0, again.stderr
    with transaction(factory) as s:
        assert Counter(b.state for b in s.scalars(select(Battle))) == {"done": 21 * 11}
        assert s.scalars(select(Battle).where(Battle.claim_owner.is_not(None))).first() is None
        keys = list(s.scalars(select(OutboxMessage.dedupe_key)))
        assert len(keys) == len(set(keys))
        assert Counter(k.split(":")[0] for k in keys) == {
            "report": 21 * 10 * 2,
            "standings": 21 * 21,
        }
        assert svc.get_league(s, "Shared").state == "finished"
