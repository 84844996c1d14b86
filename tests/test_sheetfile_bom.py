"""Issue 20: a sheet file that starts with a byte-order mark (one or two U+FEFF, UTF-8 or
UTF-16) reads as the sheet it is in the offline commands, run as processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.sheetfile import decode_sheet_bytes

SHEET = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"
BOM = "\ufeff"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("utf8-bom", (BOM + SHEET).encode("utf-8")),
        ("utf8-two-boms", (BOM * 2 + SHEET).encode("utf-8")),
        ("utf16le-bom", (BOM + SHEET).encode("utf-16-le")),
        ("utf16be-bom", (BOM + SHEET).encode("utf-16-be")),
    ],
)
def test_a_sheet_file_with_a_bom_reads_as_its_sheet(name: str, data: bytes, tmp_path: Path) -> None:
    assert decode_sheet_bytes(data) == SHEET
    path = tmp_path / f"{name}.txt"
    path.write_bytes(data)
    checked = _cli(tmp_path, "check", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("Bolt: 10/2/2/2/Spark, Spark\n") and BOM not in checked.stdout
    fought = _cli(tmp_path, "battle", "--json", str(path), str(path))
    assert fought.returncode == 0, fought.stderr
    final = json.loads(fought.stdout)["final"]
    assert final["A"]["name"] == final["B"]["name"] == "Bolt"


def test_a_bom_inside_the_text_stays() -> None:
    """Only the start of a text is a signature: a U+FEFF inside it is content (and the mail
    layer refuses it in a unit name)."""
    inner = "Bo" + BOM + "lt" + SHEET[4:]
    assert decode_sheet_bytes((BOM + inner).encode("utf-8")) == inner
