"""CLI command of this part (registered by ``app.cli``): ``web``."""

from __future__ import annotations

import sys

import click


def register(group: click.Group) -> None:
    """Add ``web`` to ``group``."""

    @group.command("web")
    @click.option(
        "--host",
        default=None,
        help="address to listen on (default: the web_host setting, 127.0.0.1)",
    )
    @click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=None,
        help="port (default: the web_port setting, 8080; 0: a free port)",
    )
    def web_cmd(host: str | None, port: int | None) -> None:
        """Serve the public web view (read-only) until SIGTERM/SIGINT.

        Pages, JSON, CSV and Atom of every league in the configured database (docs/web.md). It never
        writes to the database: migrate it first (`amaryllis db upgrade`; `serve` does it itself)."""
        from app.config import load_settings
        from app.web.server import run_web

        settings = load_settings()
        try:
            code = run_web(settings, host=host, port=port)
        except RuntimeError as exc:
            raise click.ClickException(str(exc)) from exc
        sys.exit(code)
