"""The systemd unit of docs/deploy.md, as written there: it pulls in the network it waits for,
parses, and keeps its hardening (``systemd-analyze security``, issue 20: 9.2 UNSAFE before)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "docs" / "deploy.md"


def _unit() -> str:
    text = DEPLOY.read_text(encoding="utf-8")
    found = re.search(r"```ini\n(\[Unit\].*?)```", text, re.S)
    assert found, "docs/deploy.md has no systemd unit"
    return found.group(1)


def _settings(unit: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def test_the_unit_wants_the_network_it_waits_for_and_is_hardened() -> None:
    keys = _settings(_unit())
    assert "network-online.target" in keys["After"][0]
    assert keys["Wants"] == ["network-online.target"]
    for key, value in [
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("PrivateDevices", "yes"),
        ("CapabilityBoundingSet", ""),
        ("RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"),
    ]:
        assert keys[key] == [value], key
    assert "@system-service" in keys["SystemCallFilter"]
    data = [v for v in keys["Environment"] if v.startswith("AMARYLLIS_DATA_DIR=")]
    assert keys["ReadWritePaths"] == [data[0].partition("=")[2]]  # the data folder, writable


def test_systemd_analyze_verifies_the_unit_and_scores_it_ok(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # the unit as written, with ExecStart pointing at this checkout's amaryllis (verify checks it)
    exe = Path(sys.executable).with_name("amaryllis")
    unit = tmp_path / "amaryllis.service"
    unit.write_text(
        _unit().replace("/srv/amaryllis/.venv/bin/amaryllis", str(exe)), encoding="utf-8"
    )
    verified = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    scored = subprocess.run(
        [analyze, "security", "--offline=true", "--threshold=20", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert scored.returncode == 0, scored.stdout[-2000:] + scored.stderr  # exposure at most 2.0
    assert re.search(r"Overall exposure level for amaryllis\.service: [01]\.\d OK", scored.stdout)
