"""The offline commands print words, not codes (issue 20, item 11): counts with the right
plural, why a tournament stopped in words, full column headers. Run as processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.rules import ruleset

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def _folder(tmp_path: Path, n: int) -> Path:
    for i, text in enumerate(ruleset().sample_sheets()[:n]):
        (tmp_path / f"s{i}.txt").write_text(text, encoding="utf-8")
    return tmp_path


def test_one_round_is_one_round(tmp_path: Path) -> None:
    out = _run("tournament", str(_folder(tmp_path, 2)))
    assert out.returncode == 0, out.stderr
    assert "2 units, 1 round, 1 battle; stopped: every round played" in out.stdout


@pytest.mark.parametrize(
    "fmt, options, header",
    [
        ("round-robin", [], "head-to-head  Sonneborn-Berger  HP margin"),
        (
            "knockout",
            [],
            "rounds survived  wins  draws  losses  byes      status  eliminated in round",
        ),
        ("hill", ["--format-option", "size=3"], "age (challenges survived)"),
    ],
)
def test_tournament_prints_words_and_full_headers(
    tmp_path: Path, fmt: str, options: list[str], header: str
) -> None:
    out = _run("tournament", str(_folder(tmp_path, 4)), "--format", fmt, *options)
    assert out.returncode == 0, out.stderr
    assert header in out.stdout
    stopped = next(line for line in out.stdout.splitlines() if "stopped:" in line)
    assert "(" not in stopped and "-" not in stopped.partition("stopped:")[2], stopped
    head = next(line for line in out.stdout.splitlines() if line.startswith("rank"))
    for short in ("Pts", "Rds", "H2H", "SB", " bye ", "out in"):
        assert short.strip() not in head.split(), head
