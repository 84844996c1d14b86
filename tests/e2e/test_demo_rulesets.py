"""``amaryllis demo --ruleset NAME`` for every ruleset but the default, as a real process (embedded
IMAP + SMTP, SQLite): the league plays that ruleset, its demo sheets are entered (with their
orders, for a ruleset that takes them), an Amaryllis sheet is answered with the league's game,
and every battle report mail prints the ruleset record."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.ops.demo import script_for
from app.rules import DEFAULT_RULESET, all_rulesets
from app.rules import ruleset as door

OTHERS = [cls.name for cls in all_rulesets() if cls.name != DEFAULT_RULESET]


@pytest.mark.parametrize("ruleset", OTHERS)
def test_the_demo_plays_another_ruleset(tmp_path: Path, ruleset: str) -> None:
    out = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    (tmp_path / "no-config.toml").write_text("")
    env["AMARYLLIS_CONFIG"] = str(tmp_path / "no-config.toml")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "demo",
            "--ruleset",
            ruleset,
            "--no-web",
            "--no-keep-web",
            "--out",
            str(out),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    script, _ = script_for(ruleset)
    entrants = len(script) - 1  # the last one is the Amaryllis sheet, refused
    assert f"entries closed: {entrants} units" in done.stdout
    # the demo's single round robin applies no rewrite between rounds (H58): its record says so
    rs = door(ruleset, door(ruleset).demo_options()).without_rewrites()
    texts = [p.read_text(encoding="utf-8") for p in sorted((out / "mail").glob("*.txt"))]
    refused = [t for t in texts if "アマリリス" in t and "このリーグのルール" in t]
    assert refused, "the Amaryllis sheet got no wrong-ruleset reply"
    reports = [t for t in texts if "回戦" in t and "第" in t and " vs " in t or "Round" in t]
    battles = entrants * (entrants - 1) // 2
    header = [
        t
        for t in texts
        if all(line in t for line in rs.describe("ja"))
        or all(line in t for line in rs.describe("en"))
    ]
    assert len(header) >= 2 * battles, (len(header), battles)
    assert reports
