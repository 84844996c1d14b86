"""The shape of ``app/`` (``docs/architecture.md``), checked on every import of every module,
function-level imports and ``from package import submodule`` included:

* the layer table: a module imports its own package and lower layers only;
* no import cycle among modules;
* the rules and the formats are pure (no I/O module, no file, no print);
* nothing outside ``app/rules`` imports a particular ruleset or names one in a string;
* nothing outside ``app/formats`` imports a particular format or names one in a string
  (what varies per format is a capability of its class).

Each check is also run on a probe tree that breaks it, so a checker that sees nothing fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.formats import FORMAT_MODULES, all_formats
from app.rules import RULESET_MODULES, all_rulesets
from tests.architecture import (
    APP,
    cycles,
    graph,
    imports_of,
    layer_violations,
    literal_strings,
    modules,
)

FORBIDDEN_IN_PURE = {
    "os",
    "io",
    "socket",
    "sqlalchemy",
    "jinja2",
    "time",
    "datetime",
    "random",
    "pathlib",
    "subprocess",
    "email",
    "imapclient",
    "smtplib",
    "click",
    "secrets",
    "uuid",
}

#: the strings outside ``app/rules`` equal to a ruleset's name, and why: the program and the
#: server are called after the default game (``app.PROGRAM``, ``app.NAME``), once each
RULESET_NAME_ALLOWED = {("app/__init__.py", "amaryllis"), ("app/__init__.py", "Amaryllis")}


def test_imports_follow_the_layer_table() -> None:
    assert layer_violations(graph()) == []


def test_no_import_cycle_among_modules() -> None:
    assert cycles(graph()) == []


def _probe(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_a_function_level_import_that_closes_a_cycle_is_found(tmp_path: Path) -> None:
    root = _probe(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/league/__init__.py": "",
            "app/league/a.py": "from app.league import b\n",
            "app/league/b.py": "def f():\n    from app.league.a import g\n    return g\n",
            "app/mail/__init__.py": "",
            "app/mail/c.py": "import importlib\nimportlib.import_module('app.mail.d')\n",
            "app/mail/d.py": "def f():\n    from app.mail import c\n",
        },
    )
    found = cycles(graph(root))
    assert ["app.league.a", "app.league.b", "app.league.a"] in found
    assert ["app.mail.c", "app.mail.d", "app.mail.c"] in found


def test_an_import_up_the_table_is_found(tmp_path: Path) -> None:
    root = _probe(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/league/__init__.py": "",
            "app/web/__init__.py": "",
            "app/web/urls.py": "",
            "app/rules/__init__.py": "",
            "app/league/x.py": "def f():\n    from app.web import urls\n",
            "app/rules/y.py": "from app.league import x\n",
        },
    )
    bad = layer_violations(graph(root))
    assert any(b.startswith("app.league.x -> app.web.urls") for b in bad), bad
    assert any(b.startswith("app.rules.y -> app.league.x") for b in bad), bad


def test_relative_and_submodule_imports_resolve(tmp_path: Path) -> None:
    root = _probe(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/p/__init__.py": "",
            "app/p/q.py": "",
            "app/p/r.py": "from . import q\nfrom .q import z\n",
        },
    )
    mods = modules(root)
    assert imports_of(mods["app.p.r"], "app.p.r", mods) == {"app.p.q"}


@pytest.mark.parametrize("package", ["rules", "formats"])
def test_the_pure_packages_use_no_io(package: str) -> None:
    import ast

    files = sorted((APP / package).rglob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_IN_PURE, f"{path} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, f"{path}: {node.func.id}()"


# --------------------------------------------------------------------------- particular ones


def _particular(package: str, registry: tuple[str, ...]) -> set[str]:
    return {m for m in registry if m.startswith(f"app.{package}.")}


def particular_imports(root: Path, package: str, registry: tuple[str, ...]) -> dict[str, list[str]]:
    """Modules outside ``app/<package>`` that import a particular ruleset or format module
    (one of ``registry`` or below it), by file."""
    edges = graph(root)
    parts = _particular(package, registry)
    out: dict[str, list[str]] = {}
    for src, targets in edges.items():
        if src == f"app.{package}" or src.startswith(f"app.{package}."):
            continue
        hits = sorted(t for t in targets if any(t == p or t.startswith(p + ".") for p in parts))
        if hits:
            out[src] = hits
    return out


def named_literals(
    root: Path, package: str, names: set[str], allowed: set[tuple[str, str]] = frozenset()
) -> list[str]:
    """String constants outside ``app/<package>`` that are a ruleset's or format's name or
    alias (case-insensitive), as ``file:line 'value'``."""
    out = []
    for path in sorted((root / "app").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(f"app/{package}/"):
            continue
        for line, value in literal_strings(path):
            if value.strip().lower() in names and (rel, value) not in allowed:
                out.append(f"{rel}:{line} {value!r}")
    return out


RULESET_NAMES = {n.lower() for cls in all_rulesets() for n in (cls.name, *cls.aliases)}
FORMAT_NAMES = {n.lower() for cls in all_formats() for n in (cls.name, *cls.aliases)}


def test_nothing_outside_the_rules_imports_a_particular_ruleset() -> None:
    assert particular_imports(APP.parent, "rules", RULESET_MODULES) == {}


def test_nothing_outside_the_formats_imports_a_particular_format() -> None:
    assert particular_imports(APP.parent, "formats", FORMAT_MODULES) == {}


def test_nothing_outside_the_rules_names_a_ruleset() -> None:
    assert named_literals(APP.parent, "rules", RULESET_NAMES, RULESET_NAME_ALLOWED) == []


def test_nothing_outside_the_formats_names_a_format() -> None:
    assert named_literals(APP.parent, "formats", FORMAT_NAMES) == []


def test_the_name_checks_catch_a_literal_and_an_import(tmp_path: Path) -> None:
    root = _probe(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/league/__init__.py": "",
            "app/formats/__init__.py": "",
            "app/formats/hill.py": "",
            "app/rules/__init__.py": "",
            "app/rules/amaryllis/__init__.py": "",
            "app/league/x.py": (
                "def f(league):\n"
                "    if league.format == 'hill':\n        return 1\n"
                "    from app.formats.hill import Hill\n"
                "    return league.ruleset != 'Margaret-Hundred'\n"
            ),
            "app/league/y.py": "import importlib\nimportlib.import_module('app.rules.amaryllis')\n",
        },
    )
    assert named_literals(root, "formats", FORMAT_NAMES) == ["app/league/x.py:2 'hill'"]
    assert named_literals(root, "rules", RULESET_NAMES) == ["app/league/x.py:5 'Margaret-Hundred'"]
    assert particular_imports(root, "formats", FORMAT_MODULES) == {
        "app.league.x": ["app.formats.hill"]
    }
    assert particular_imports(root, "rules", RULESET_MODULES) == {
        "app.league.y": ["app.rules.amaryllis"]
    }
