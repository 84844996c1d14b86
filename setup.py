"""Build hook (the rest of the build is declared in pyproject.toml).

``templates/`` and ``migrations/`` stay at the top of the repository (the project's layout), and
the build ships them inside the ``app`` package, as ``app/templates`` and ``app/migrations`` of
the wheel, where ``app.paths`` finds them when there is no checkout. Editable installs copy
nothing: ``app.paths`` then finds the checkout's folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: top-level folders copied into the package
SHIPPED = ("templates", "migrations")


class BuildPyWithResources(build_py):
    """``build_py`` that also copies :data:`SHIPPED` into ``<build_lib>/app/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in SHIPPED:
            target = Path(self.build_lib) / "app" / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(
                ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )


setup(cmdclass={"build_py": BuildPyWithResources})
