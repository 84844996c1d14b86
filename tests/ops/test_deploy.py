"""The deployment files: docker-compose.yml against the compose-spec schema, and what the schema cannot see
(dangling references, environment keys the app does not know, a root container, Dovecot config syntax)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from app.config import Settings
from tests.services import skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")


def _check_compose(path: Path) -> subprocess.CompletedProcess[str]:
    exe = str(CHECK_JSONSCHEMA) if CHECK_JSONSCHEMA.exists() else shutil.which("check-jsonschema")
    assert exe, "check-jsonschema is in the test extras: pip install -e '.[test]'"
    return subprocess.run(
        [exe, "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _compose() -> dict:
    return YAML(typ="safe").load(COMPOSE.read_text(encoding="utf-8"))


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    done = _check_compose(COMPOSE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok" in done.stdout


def test_the_schema_check_does_catch_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(
        COMPOSE.read_text(encoding="utf-8").replace(
            "restart: unless-stopped", "restart: [unless-stopped]", 1
        )
    )
    done = _check_compose(broken)
    assert done.returncode != 0
    assert "restart" in done.stdout + done.stderr


def test_compose_references_resolve() -> None:
    spec = _compose()
    services, volumes, networks = (
        spec["services"],
        spec.get("volumes", {}),
        spec.get("networks", {}),
    )
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
    for key in (
        "AMARYLLIS_DATABASE_URL",
        "AMARYLLIS_IMAP_URL",
        "AMARYLLIS_SMTP_URL",
        "AMARYLLIS_SERVER_ADDRESS",
    ):
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
    assert (
        lines[[i for i, ln in enumerate(lines) if ln.startswith("CMD ")][-1]]
        == 'CMD ["amaryllis", "serve"]'
    )
    assert any(ln.startswith("FROM python:3.11-slim") for ln in lines)
    for folder in ("app", "migrations", "templates"):
        assert f"COPY {folder} ./{folder}" in lines


def test_dovecot_config_parses() -> None:
    if shutil.which("doveconf") is None:
        skip_or_fail("Dovecot not installed (.ci/run installs it)")
    done = subprocess.run(
        ["doveconf", "-n", "-c", str(ROOT / "config/docker/dovecot/dovecot.conf")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "protocols = imap lmtp" in done.stdout
    assert "mail_location = maildir:/var/mail/%n" in done.stdout


@pytest.mark.dovecot
def test_the_compose_dovecot_config_delivers_plus_addresses_over_lmtp_to_the_imap_inbox() -> None:
    """Run config/docker/dovecot/dovecot.conf for real, moved to loopback and a temporary folder: the
    password is hashed the way the entrypoint does it, Postfix's LMTP delivery to tourney+spring@ lands in
    tourney's INBOX, an unknown user is refused at RCPT, and the app's IMAP login works."""
    if shutil.which("dovecot") is None or os.geteuid() != 0:
        skip_or_fail("needs Debian's dovecot-imapd/-lmtpd and root (.ci/run installs it)")
    import smtplib
    import tempfile
    import time

    from tests.servers import free_port, imap_client, wait_for_greeting

    base = Path(tempfile.mkdtemp(prefix="dcc"))  # short: unix socket paths are limited to 108 bytes
    imap_port, lmtp_port = free_port(), free_port()
    conf = (ROOT / "config/docker/dovecot/dovecot.conf").read_text(encoding="utf-8")
    for old, new in (
        ("listen = *", "listen = 127.0.0.1"),
        ("port = 143", f"port = {imap_port}"),
        ("port = 24", f"port = {lmtp_port}"),
        ("/var/mail", f"{base}/mail"),
        ("/etc/dovecot/users", f"{base}/users"),
        ("vmail", "dovecot"),
        ("first_valid_uid = 5000", "first_valid_uid = 1"),
        ("log_path = /dev/stderr", f"log_path = {base}/dovecot.log"),
        ("info_log_path = /dev/stdout", f"info_log_path = {base}/dovecot.log"),
    ):
        assert old in conf, old
        conf = conf.replace(old, new)
    conf = (
        f"base_dir = {base}/run\nstate_dir = {base}/state\ninstance_name = dcc-{imap_port}\n"
        "default_internal_user = dovecot\ndefault_login_user = dovenull\n" + conf
    )
    for sub in ("run", "state", "mail"):
        (base / sub).mkdir()
    shutil.chown(base / "mail", "dovecot", "dovecot")
    (base / "dovecot.conf").write_text(conf, encoding="utf-8")
    # the entrypoint's hashing command
    hashed = subprocess.run(
        ["doveadm", "pw", "-s", "SHA512-CRYPT", "-p", "pw-mailbox"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert hashed.startswith("{SHA512-CRYPT}$6$")
    base.chmod(0o755)
    (base / "users").write_text(f"tourney:{hashed}\n", encoding="utf-8")
    shutil.chown(base / "users", "root", "dovecot")  # as the entrypoint: root:dovecot, umask 027
    (base / "users").chmod(0o640)
    proc = subprocess.Popen(
        ["dovecot", "-F", "-c", str(base / "dovecot.conf")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_greeting(imap_port, b"* OK", proc=proc)
        wait_for_greeting(lmtp_port, b"220", proc=proc)
        msg = (
            b"From: player@example.org\r\nTo: tourney+spring@league.example\r\nSubject: [spring] entry\r\n"
            b"Message-ID: <m1@example.org>\r\n\r\nGrisk: 10/1/1/2\r\n"
        )
        with smtplib.LMTP("127.0.0.1", lmtp_port) as lmtp:
            lmtp.sendmail("player@example.org", ["tourney+spring@league.example"], msg)
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                lmtp.sendmail("player@example.org", ["ghost@league.example"], msg)
        client = imap_client("127.0.0.1", imap_port, "tourney", "pw-mailbox")
        try:
            client.select_folder("INBOX")
            deadline = time.monotonic() + 5
            uids = client.search(["ALL"])
            while not uids and time.monotonic() < deadline:
                time.sleep(0.05)
                client.noop()
                uids = client.search(["ALL"])
            [uid] = uids
            raw = client.fetch([uid], ["BODY.PEEK[]"])[uid][b"BODY[]"]
            assert (
                b"Delivered-To: tourney+spring@league.example" in raw
                or b"Delivered-To: <tourney" in raw
            )
            assert b"Message-ID: <m1@example.org>" in raw
            assert [
                f.decode() if isinstance(f, bytes) else f for _fl, _d, f in client.list_folders()
            ] == ["INBOX"]  # no "spring" folder: the detail is not a mailbox
        finally:
            client.logout()
        with pytest.raises(Exception):  # noqa: B017 - imapclient's LoginError
            imap_client("127.0.0.1", imap_port, "tourney", "wrong")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log = (
            (base / "dovecot.log").read_text(errors="replace")
            if (base / "dovecot.log").exists()
            else ""
        )
        shutil.rmtree(base, ignore_errors=True)
        print(log)  # shown by pytest when the test fails
