"""One sheet reader for mail and the offline commands (issue 20, item 9): a sheet file written
the way a mail is (a byte-order mark, ``name:``/``名前：`` and ``key:`` header lines, a greeting,
blank lines, a ``-- `` signature) is read by ``check``, ``battle`` and ``tournament`` as mail
reads it, for every ruleset (``Ruleset.read_sheet``). The commands run as processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.rules import all_rulesets, ruleset

ROOT = Path(__file__).resolve().parents[1]
RULESETS = [cls.name for cls in all_rulesets()]


def wrapped(sheet: str, i: int = 0) -> str:
    """``sheet`` as a player writes it in a mail."""
    heads = ("name: Ben\nkey: ABCD-EFGH\n", "名前：ベン\n", "\ufeffName: Ben\n\n")[i % 3]
    greeting = ("Hello, here is my unit.\n\n", "よろしくお願いします。\n", "")[i % 3]
    return f"{heads}\n{greeting}\n{sheet.strip()}\n\n-- \nBen\n"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_check_reads_a_name_line_as_mail_does(tmp_path: Path) -> None:
    """The reported case: a file whose first line is ``name: Ben`` got "no action class Ben"."""
    sheet = "name: Ben\nBolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"
    out = _run("check", str(_write(tmp_path, "ben.txt", sheet)))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Ben" not in out.stdout and out.stdout.startswith("Bolt: 10/2/2/2/Spark, Spark")


@pytest.mark.parametrize("name", RULESETS)
def test_every_command_reads_mail_style_sheets_of_every_ruleset(tmp_path: Path, name: str) -> None:
    samples = ruleset(name).sample_sheets()[:3]
    files = [_write(tmp_path, f"s{i}.txt", wrapped(s, i)) for i, s in enumerate(samples)]
    for f in files:  # guessed and named
        for flags in ([], ["--ruleset", name]):
            out = _run("check", *flags, str(f))
            assert out.returncode == 0, (f.read_text(encoding="utf-8"), out.stdout, out.stderr)
    out = _run("battle", "--ruleset", name, str(files[0]), str(files[1]))
    assert out.returncode == 0, out.stdout + out.stderr
    out = _run("tournament", "--ruleset", name, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "left out" not in out.stderr, out.stderr
    assert out.stdout.count(".txt") >= 3 and f"{len(files)} units" in out.stdout
