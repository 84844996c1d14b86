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
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

DEFAULT_CONFIG = Path("config/amaryllis.toml")


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
    """Every setting of the server, with its default. See ``docs/config.md``."""

    model_config = SettingsConfigDict(env_prefix="AMARYLLIS_", extra="ignore")

    data_dir: Path = Field(Path("amaryllis-data"), description="work folder for SQLite and logs")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default SQLite in data_dir")
    imap_url: str = Field("imap://tourney:secret@127.0.0.1:1143/INBOX", description="IMAP mailbox")
    imap_processed_folder: str = Field("", description="move processed mail here; empty: flag \\Seen")
    smtp_url: str = Field("smtp://127.0.0.1:8025", description="SMTP relay for replies")
    server_address: str = Field("tourney@localhost", description="our address: From of replies")
    server_name: str = Field("Amaryllis", description="display name in From")
    organizers: list[str] = Field(default_factory=list, description="organizer addresses")
    organizer_password: str = Field("", description="password line required on organizer mail")
    rate_limit_per_day: int = Field(50, description="replies per sender per day before one notice")
    max_mail_bytes: int = Field(1_000_000, description="larger mails are refused with a reply")
    max_lines: int = Field(500, description="lines of a mail body read; the rest is cut")
    poll_interval: float = Field(30.0, description="seconds between polls when IDLE is absent")
    tick_interval: float = Field(60.0, description="seconds between scheduler ticks in serve")
    send_interval: float = Field(5.0, description="seconds between outbox passes in serve")
    smtp_max_attempts: int = Field(8, description="temporary SMTP failures before giving up")
    require_auth_results: bool = Field(False, description="refuse mail failing DKIM/SPF")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = Path(os.environ.get("AMARYLLIS_CONFIG", DEFAULT_CONFIG))
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path.is_file():
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


def load_settings(**overrides: object) -> Settings:
    """Read the settings (file, then environment, then ``overrides``). Raises pydantic's
    ``ValidationError`` on a bad value."""
    return Settings(**overrides)  # type: ignore[arg-type]
