"""The ``amaryllis`` command line: thin commands over the services.

Each command parses its arguments and calls one service function; see ``docs/cli.md``.
"""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="amaryllis-server")
def main() -> None:
    """Amaryllis play-by-mail tournament server."""


if __name__ == "__main__":  # pragma: no cover
    main()
