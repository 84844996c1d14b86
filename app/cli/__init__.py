"""The ``amaryllis`` command line: thin commands over the services.

Every command module lives here, in ``app/cli/`` (layer 4: it may import every part below);
each module registers its commands (``register(group)``), so the parts stay independent:
``rules`` (``check``), ``battle`` (``battle``, ``tournament``; ``tournament.py`` is its offline
driver and ``sheetfile.py`` reads sheet files), ``league`` (``db``, ``league …``, ``tick``),
``mail`` (``poll``, ``send``), ``ops`` (``serve``, ``status``, ``demo``, ``mailserver``) and
``web`` (``web``). Usage: README.md (Organizing a league) and ``docs/league.md`` (CLI).
"""

from __future__ import annotations

import importlib

import click

PARTS = (
    "app.cli.rules",  # check
    "app.cli.battle",  # battle, tournament
    "app.cli.league",  # db upgrade, league ..., tick
    "app.cli.mail",  # poll, send
    "app.cli.ops",  # serve, status, demo
    "app.cli.web",  # web
)


class _Main(click.Group):
    """The root group: configuration and database errors end the command with one line on stderr
    and exit code 1, never a traceback (bugs still show theirs)."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except Exception as exc:
            # imported only on failure, so that start-up stays fast (serve's signal handlers
            # must be in place within milliseconds)
            from sqlalchemy.exc import SQLAlchemyError

            from app.config import ConfigError

            if isinstance(exc, ConfigError):
                raise click.ClickException(str(exc)) from exc
            if isinstance(exc, SQLAlchemyError):
                detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
                raise click.ClickException(f"database error: {detail}") from exc
            raise


@click.group(cls=_Main)
@click.version_option(package_name="amaryllis-server")
def main() -> None:
    """Amaryllis play-by-mail tournament server."""


for _part in PARTS:
    importlib.import_module(_part).register(main)


if __name__ == "__main__":  # pragma: no cover
    main()
