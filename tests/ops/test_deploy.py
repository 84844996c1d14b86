"""The deployment files: docker-compose.yml against the compose-spec schema, and what the schema cannot see
(dangling references, environment keys the app does not know, a root container, Dovecot config syntax)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from app.config import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")


def _check_compose(path: Path) -> subprocess.CompletedProcess[str]:
    exe = str(CHECK_JSONSCHEMA) if CHECK_JSONSCHEMA.exists() else shutil.which("check-jsonschema")
    assert exe, "check-jsonschema is in the test extras: pip install -e '.[test]'"
    return subprocess.run(
        [exe, "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True, text=True, timeout=60,
    )


def _compose() -> dict:
    return YAML(typ="safe").load(COMPOSE.read_text(encoding="utf-8"))


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    done = _check_compose(COMPOSE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok" in done.stdout


def test_the_schema_check_does_catch_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text(encoding="utf-8").replace("restart: unless-stopped",
                                                                   "restart: [unless-stopped]", 1))
    done = _check_compose(broken)
    assert done.returncode != 0
    assert "restart" in done.stdout + done.stderr


def test_compose_references_resolve() -> None:
    spec = _compose()
    services, volumes, networks = spec["services"], spec.get("volumes", {}), spec.get("networks", {})
    assert {"app", "db", "dovecot", "postfix"} <= set(services)
    for name, svc in services.items():
        for dep in svc.get("depends_on", {}) or {}:
            assert dep in services, f"{name} depends on unknown service {dep}"
        for vol in svc.get("volumes", []):
            source = vol.split(":", 1)[0]
            if not source.startswith((".", "/")):
                assert source in volumes, f"{name} uses undeclared volume {source}"
        for net in svc.get("networks", []):
            assert net in networks, f"{name} uses undeclared network {net}"
        build = svc.get("build")
        if isinstance(build, str):
            assert (ROOT / build / "Dockerfile").is_file(), f"{name}: no Dockerfile in {build}"


def test_app_environment_only_sets_keys_the_settings_know() -> None:
    env = _compose()["services"]["app"]["environment"]
    fields = {f"AMARYLLIS_{name.upper()}" for name in Settings.model_fields}
    assert set(env) <= fields, sorted(set(env) - fields)
    for key in ("AMARYLLIS_DATABASE_URL", "AMARYLLIS_IMAP_URL", "AMARYLLIS_SMTP_URL",
                "AMARYLLIS_SERVER_ADDRESS"):
        assert key in env
    # the URLs point at the compose services by name
    assert "@db:5432/" in env["AMARYLLIS_DATABASE_URL"]
    assert "@dovecot:143/INBOX" in env["AMARYLLIS_IMAP_URL"]
    assert env["AMARYLLIS_SMTP_URL"] == "smtp://postfix:25"


def test_every_variable_compose_reads_is_documented_in_env_example() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{([A-Z_]+)", text))
    example = (ROOT / "config/docker/env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^#?\s*([A-Z_]+)=", example, re.M))
    assert used <= documented, sorted(used - documented)


def test_app_image_runs_serve_as_a_non_root_user() -> None:
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()]
    users = [ln.split()[1] for ln in lines if ln.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert lines[[i for i, ln in enumerate(lines) if ln.startswith("CMD ")][-1]] == 'CMD ["amaryllis", "serve"]'
    assert any(ln.startswith("FROM python:3.11-slim") for ln in lines)
    for folder in ("app", "migrations", "templates"):
        assert f"COPY {folder} ./{folder}" in lines


@pytest.mark.skipif(shutil.which("doveconf") is None, reason="Dovecot not installed (.ci/run installs it)")
def test_dovecot_config_parses() -> None:
    done = subprocess.run(
        ["doveconf", "-n", "-c", str(ROOT / "config/docker/dovecot/dovecot.conf")],
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "protocols = imap lmtp" in done.stdout
    assert "mail_location = maildir:/var/mail/%n" in done.stdout
