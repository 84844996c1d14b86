"""Where the files that are not Python code live: ``templates/`` (Jinja templates and the
message catalogs) and ``migrations/`` (Alembic).

In the repository they sit at the top level, next to ``app/`` (the project's layout); the build
copies both into the package (``setup.py``: ``app/templates``, ``app/migrations`` in the wheel),
so a plain ``pip install .`` works without the checkout. Each is looked up inside the package
first, then at the top of the checkout. Pure: paths only, no I/O beyond ``is_dir``.
"""

from __future__ import annotations

from pathlib import Path

#: the ``app`` package folder
PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder ``name`` (``templates`` or ``migrations``): ``app/<name>`` in an installed
    wheel, else ``<checkout>/<name>``. Raises ``FileNotFoundError`` when neither exists (a
    broken install), naming both places."""
    for candidate in (PACKAGE / name, PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no {name}/ folder at {PACKAGE / name} or {PACKAGE.parent / name}")


#: Jinja templates (web pages, mails, reports, partials) and ``locale/`` (the catalogs)
TEMPLATES = resource_dir("templates")
#: the Alembic scripts (``env.py``, ``versions/``)
MIGRATIONS = resource_dir("migrations")
