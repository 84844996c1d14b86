"""Configuration: one TOML file, overridden by environment variables.

The file is ``$AMARYLLIS_CONFIG`` if set, else ``config/amaryllis.toml`` in the working directory if it
exists; without a file the embedded defaults apply (SQLite in ``./amaryllis-data``, the local
mailbox of ``amaryllis demo``). Environment variables override any key: ``AMARYLLIS_<KEY>`` for
top-level keys and the three URLs ``AMARYLLIS_DATABASE_URL`` (an SQLAlchemy URL),
``AMARYLLIS_IMAP_URL`` (``imap://user:pass@host:port/MAILBOX``, ``imaps://`` for TLS,
``imap+starttls://`` for STARTTLS) and ``AMARYLLIS_SMTP_URL`` (``smtp://[user:pass@]host:port``,
``smtps://``, ``smtp+starttls://``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from app import NAME

DEFAULT_CONFIG = Path("config/amaryllis.toml")


class ConfigError(ValueError):
    """The configuration cannot be used: a missing or unreadable file, a value of the wrong type,
    an unknown key in the file, a bad URL. The message names the key or file and what is wrong."""


@dataclass(frozen=True)
class Endpoint:
    """A parsed mail server URL.

    ``security`` is ``"plain"``, ``"tls"`` (implicit TLS) or ``"starttls"``; ``path`` is the IMAP
    mailbox (empty for SMTP).
    """

    scheme: str
    host: str
    port: int
    user: str | None
    password: str | None
    security: str
    path: str


def parse_endpoint(url: str) -> Endpoint:
    """Parse ``imap://``, ``imaps://``, ``imap+starttls://``, ``smtp://``, ``smtps://`` or
    ``smtp+starttls://`` URLs. Raises ``ValueError`` for another scheme or a missing host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    table = {
        "imap": ("imap", "plain", 143),
        "imaps": ("imap", "tls", 993),
        "imap+starttls": ("imap", "starttls", 143),
        "smtp": ("smtp", "plain", 25),
        "smtps": ("smtp", "tls", 465),
        "smtp+starttls": ("smtp", "starttls", 587),
    }
    if scheme not in table or not parts.hostname:
        raise ValueError(f"not a mail server URL: {url!r}")
    proto, security, default_port = table[scheme]
    return Endpoint(
        scheme=proto,
        host=parts.hostname,
        port=parts.port or default_port,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        security=security,
        path=unquote(parts.path.lstrip("/")),
    )


class Settings(BaseSettings):
    """Every setting of the server, with its default: ``config.toml`` keys, each also read from
    ``AMARYLLIS_<KEY>`` (``docs/mail.md`` Configuration, ``docs/deploy.md``)."""

    model_config = SettingsConfigDict(env_prefix="AMARYLLIS_", extra="ignore")

    data_dir: Path = Field(Path("amaryllis-data"), description="work folder for SQLite and logs")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default SQLite in data_dir")
    imap_url: str = Field("imap://tourney:secret@127.0.0.1:1143/INBOX", description="IMAP mailbox")
    imap_processed_folder: str = Field(
        "", description="move processed mail here; empty: flag \\Seen"
    )
    smtp_url: str = Field("smtp://127.0.0.1:8025", description="SMTP relay for replies")
    server_address: str = Field("tourney@localhost", description="our address: From of replies")
    server_name: str = Field(NAME, description="display name in From")
    organizers: list[str] = Field(default_factory=list, description="organizer addresses")
    organizer_password: str = Field("", description="password line required on organizer mail")
    rate_limit_per_day: int = Field(
        50,
        ge=1,
        description=(
            "mails answered per sender per UTC day, every mail counted (proven mail on its own "
            "count), before one notice"
        ),
    )
    max_mail_bytes: int = Field(
        1_000_000, ge=1_000, description="larger mails are refused with a reply"
    )
    max_lines: int = Field(500, ge=10, description="lines of a mail body read; the rest is cut")
    poll_interval: float = Field(
        30.0, gt=0, description="seconds between polls when IDLE is absent"
    )
    tick_interval: float = Field(60.0, gt=0, description="seconds between scheduler ticks in serve")
    send_interval: float = Field(5.0, gt=0, description="seconds between outbox passes in serve")
    smtp_max_attempts: int = Field(8, ge=1, description="temporary SMTP failures before giving up")
    smtp_timeout: float = Field(
        30.0, gt=0, description="seconds any one SMTP read or write may take"
    )
    imap_timeout: float = Field(
        30.0, gt=0, description="seconds any one IMAP read or write may take"
    )
    outbox_retention_days: float = Field(
        30.0,
        ge=0,
        description="days the bytes of a delivered mail are kept (the row stays); 0: forever",
    )
    public_url: str = Field(
        "",
        description="the web view's public base URL (absolute links in "
        "feeds and mails); empty: links relative to the request",
    )
    web_host: str = Field("127.0.0.1", description="address the web view listens on")
    web_port: int = Field(
        8080, ge=0, le=65535, description="port of the web view; 0: serve runs no web view"
    )
    web_reuse_port: bool = Field(
        False,
        description="bind the web view with SO_REUSEPORT, so "
        "several processes on one host that share ONE database can "
        "listen on one port; off, a port already taken fails at start",
    )
    web_header_timeout: float = Field(
        10.0,
        gt=0,
        le=3600,
        description=(
            "seconds a client has to send a whole request (line, headers, body) from its first "
            "byte, or from connecting; then the connection is closed"
        ),
    )
    web_keepalive_timeout: int = Field(
        5,
        ge=1,
        le=3600,
        description=("seconds an idle connection of the web view is kept open between requests"),
    )
    web_max_connections: int = Field(
        256,
        ge=1,
        le=100_000,
        description=(
            "connections the web view holds open at once; one more is answered 503 and closed"
        ),
    )
    web_allowed_hosts: list[str] = Field(
        default_factory=list,
        description=(
            "host names the web view answers (Host header; '*.example.org' for subdomains, '*' for "
            "any); always also loopback, web_host and public_url's host; others get 400"
        ),
    )

    @field_validator("web_allowed_hosts")
    @classmethod
    def _allowed_hosts(cls, value: list[str]) -> list[str]:
        out = []
        for host in value:
            host = host.strip().lower()
            if (
                not host
                or "*" in host[1:]
                or (host.startswith("*") and host != "*" and not host.startswith("*."))
            ):
                raise ValueError(f"not a host name or '*.domain' pattern: {host!r}")
            out.append(host)
        return out

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        value = value.strip()
        if value:
            parts = urlsplit(value)
            if (
                parts.scheme not in ("http", "https")
                or not parts.netloc
                or parts.query
                or parts.fragment
            ):
                raise ValueError(
                    f"not an http(s) base URL: {value!r} (e.g. https://example.org/amaryllis)"
                )
        return value.rstrip("/")

    require_auth_results: bool = Field(
        False, description="refuse mail not authenticated by our MTA"
    )
    authserv_id: str = Field("", description="authserv-id of our MTA's Authentication-Results")
    max_line_chars: int = Field(1000, ge=100, description="characters of a body line read")
    confirm_hours: float = Field(
        48.0, gt=0, le=24 * 30, description="hours a replace/withdraw waits for confirmation"
    )
    confirmations_per_day: int = Field(5, ge=1, description="confirmation mails per entry per day")
    password_attempts: int = Field(
        5, ge=1, description="wrong passwords/keys per day before lockout"
    )
    unknown_replies_per_hour: int = Field(1000, ge=0, description="replies to new senders per hour")
    notice_digest_minutes: int = Field(60, ge=0, description="minutes between organizer digests")

    @model_validator(mode="after")
    def _auth_needs_id(self) -> Settings:
        if self.require_auth_results and not self.authserv_id.strip():
            raise ValueError(
                "require_auth_results needs authserv_id: the authserv-id your "
                "receiving MTA writes in Authentication-Results (e.g. mx.example.org)"
            )
        return self

    @field_validator("imap_url", "smtp_url")
    @classmethod
    def _mail_url(cls, value: str) -> str:
        parse_endpoint(value)  # raises ValueError with the URL in the message
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value:
            from sqlalchemy.engine import make_url
            from sqlalchemy.exc import ArgumentError

            try:
                url = make_url(value)
                url.get_dialect()
            except (ArgumentError, ImportError, ValueError) as exc:
                raise ValueError(f"not a usable SQLAlchemy URL: {value!r} ({exc})") from None
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = config_path()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    @property
    def resolved_database_url(self) -> str:
        """``database_url`` or SQLite at ``data_dir/amaryllis.sqlite3``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'amaryllis.sqlite3').as_posix()}"

    @property
    def imap(self) -> Endpoint:
        """The parsed ``imap_url``."""
        return parse_endpoint(self.imap_url)

    @property
    def smtp(self) -> Endpoint:
        """The parsed ``smtp_url``."""
        return parse_endpoint(self.smtp_url)


def config_path() -> Path | None:
    """The TOML file to read: ``$AMARYLLIS_CONFIG`` (which must exist), else
    ``config/amaryllis.toml`` when it exists, else ``None``. Raises :class:`ConfigError` when
    ``$AMARYLLIS_CONFIG`` names no file."""
    named = os.environ.get("AMARYLLIS_CONFIG")
    if named:
        if not Path(named).is_file():
            raise ConfigError(f"AMARYLLIS_CONFIG={named}: no such file")
        return Path(named)
    return DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else None


def load_settings(**overrides: object) -> Settings:
    """Read the settings (file, then environment, then ``overrides``).

    Raises :class:`ConfigError` for a missing ``$AMARYLLIS_CONFIG`` file, a file that is not valid
    TOML, a key the file should not have, or a value that does not fit its setting (every bad key
    is named in the message).
    """
    path = config_path()
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from None
        unknown = sorted(set(data) - set(Settings.model_fields))
        if unknown:
            raise ConfigError(
                f"{path}: unknown key(s) {', '.join(unknown)} "
                f"(known: {', '.join(Settings.model_fields)})"
            )
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"bad configuration: {problems}") from None
    except SettingsError as exc:  # e.g. a list setting given as something that is not JSON
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        raise ConfigError(
            f"bad configuration: {exc}{cause}; list settings such as "
            "AMARYLLIS_ORGANIZERS take JSON: '[\"a@example.org\"]'"
        ) from None
