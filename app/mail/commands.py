"""CLI commands of this part (registered by ``app.cli``)."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add this part's commands to ``group``."""
