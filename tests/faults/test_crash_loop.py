"""A bounded crash loop (``benchmarks/crash_loop.py`` at a smaller size): 16 entry mails,
``amaryllis serve`` (a real subprocess) killed with SIGKILL at random instants and restarted until
every player is answered, on SQLite and PostgreSQL. Counts: 0 lost, every duplicate carries the
Message-ID of the first copy, every inbound mail processed once (one entry each)."""

from __future__ import annotations

from tests.faults.helpers import crash_loop_module


def test_serve_killed_again_and_again_loses_no_reply(db, tmp_path) -> None:
    url, factory = db
    factory.kw["bind"].dispose()
    result = crash_loop_module().crash_loop(
        url, tmp_path, mails=16, kill_after=(0.5, 2.0), seed=3, max_runs=150
    )
    assert result["runs"] < 150, result  # it finished: a crash-looping serve makes progress
    assert result["kills"] >= 1, result
    assert result["lost"] == 0 and result["dup_ids_differ"] == 0, result
    assert result["received"] == 16 + result["duplicates"], result
    assert result["inbound"] == {"done": 16} and result["entries"] == 16, result
    assert result["replies"] == 16 and result["outbox"] == {"sent": 16}, result
