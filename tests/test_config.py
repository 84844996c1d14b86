"""Configuration: file, environment, and a one-line error (never a traceback) for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.config import ConfigError, load_settings, parse_endpoint


def test_defaults_need_no_file(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AMARYLLIS_CONFIG", raising=False)
    s = load_settings()
    assert s.resolved_database_url == "sqlite:///amaryllis-data/amaryllis.sqlite3"
    assert (s.imap.host, s.imap.port, s.imap.path, s.smtp.port) == (
        "127.0.0.1",
        1143,
        "INBOX",
        8025,
    )


def test_file_then_environment(monkeypatch, tmp_path: Path) -> None:
    conf = tmp_path / "a.toml"
    conf.write_text('poll_interval = 7\norganizers = ["org@example.org"]\n', encoding="utf-8")
    monkeypatch.setenv("AMARYLLIS_CONFIG", str(conf))
    monkeypatch.setenv("AMARYLLIS_POLL_INTERVAL", "3")
    s = load_settings()
    assert s.poll_interval == 3 and s.organizers == ["org@example.org"]


def test_endpoints() -> None:
    e = parse_endpoint("imaps://u%40x:p%3Aw@mail.example.org/Inbox/Sub")
    assert (e.security, e.port, e.user, e.password, e.path) == (
        "tls",
        993,
        "u@x",
        "p:w",
        "Inbox/Sub",
    )
    assert parse_endpoint("smtp+starttls://relay").port == 587
    with pytest.raises(ValueError):
        parse_endpoint("http://x")


@pytest.mark.parametrize(
    ("env", "file", "says"),
    [
        ({"AMARYLLIS_ORGANIZERS": "a@b.org"}, None, "take JSON"),
        ({"AMARYLLIS_DATABASE_URL": "foo://x"}, None, "not a usable SQLAlchemy URL"),
        ({"AMARYLLIS_POLL_INTERVAL": "-5"}, None, "poll_interval: Input should be greater than 0"),
        ({"AMARYLLIS_IMAP_URL": "http://x"}, None, "not a mail server URL"),
        ({"AMARYLLIS_CONFIG": "/nonexistent/amaryllis.toml"}, None, "no such file"),
        ({}, "poll_interval = [\n", "a.toml"),
        ({}, "pol_interval = 3\n", "unknown key(s) pol_interval"),
    ],
)
def test_bad_configuration_is_one_clear_line(monkeypatch, tmp_path: Path, env, file, says) -> None:
    if file is not None:
        (tmp_path / "a.toml").write_text(file, encoding="utf-8")
        monkeypatch.setenv("AMARYLLIS_CONFIG", str(tmp_path / "a.toml"))
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ConfigError, match=None) as err:
        load_settings()
    assert says in str(err.value)
    out = CliRunner().invoke(main, ["league", "list"])
    assert out.exit_code == 1 and says in out.output and "Traceback" not in out.output


def test_unreachable_database_is_one_line(monkeypatch) -> None:
    monkeypatch.setenv("AMARYLLIS_DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/x")
    out = CliRunner().invoke(main, ["league", "list"])
    assert out.exit_code == 1 and out.output.startswith("Error: database error:")
