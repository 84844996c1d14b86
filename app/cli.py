"""The ``amaryllis`` command line: thin commands over the services.

Each part registers its commands from its own module (``app/<part>/commands.py`` exposes
``register(group)``), so the parts stay independent. See ``docs/cli.md``.
"""

from __future__ import annotations

import importlib

import click

PARTS = (
    "app.rules_commands",  # check
    "app.battle_commands",  # battle, tournament
    "app.league.commands",  # db upgrade, league ..., tick
    "app.mail.commands",  # poll, send
    "app.ops.commands",  # serve, status, demo
)


@click.group()
@click.version_option(package_name="amaryllis-server")
def main() -> None:
    """Amaryllis play-by-mail tournament server."""


for _part in PARTS:
    importlib.import_module(_part).register(main)


if __name__ == "__main__":  # pragma: no cover
    main()
