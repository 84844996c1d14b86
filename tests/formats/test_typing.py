"""``app/formats`` is ``mypy --strict`` clean (the package is typed; CI also runs mypy)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def test_formats_are_mypy_strict_clean(tmp_path: Path) -> None:
    out, err, status = api.run(
        ["--strict", "--cache-dir", str(tmp_path / "mypy"), str(ROOT / "app" / "formats")]
    )
    assert status == 0, out + err
