"""The rules package is pure: it imports nothing from the rest of ``app`` and does no I/O."""

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "app" / "rules"
FORBIDDEN_MODULES = {
    "os", "io", "socket", "sqlalchemy", "jinja2", "time", "datetime", "random", "pathlib",
    "subprocess", "email", "imapclient", "smtplib", "click",
}


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.level if hasattr(node, "level") else 0) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_rules_import_nothing_from_the_rest_of_app() -> None:
    files = sorted(RULES.rglob("*.py"))
    assert files, "no rules modules found"
    for path in files:
        for module, level in _imports(path):
            if level == 0:
                assert not module.startswith("app.") or module.startswith("app.rules"), (
                    f"{path} imports {module}"
                )
                assert module.split(".")[0] not in FORBIDDEN_MODULES, f"{path} imports {module}"


def test_rules_do_not_open_files() -> None:
    for path in RULES.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, f"{path}: {node.func.id}()"


# -- the other direction: outside app/rules, code speaks to the Ruleset interface only ----------

APP = RULES.parent
INTERFACE = {"app.rules", "app.rules.base"}
"""What code outside ``app/rules`` may import from it: the registry and the interface types."""

# Files outside app/rules that still import a particular ruleset package. They belong to work in
# progress on other branches (mail: issue 8, league service: issues 9 and 10); the lead empties
# this list when the league and mail layers move onto the Ruleset interface. Nothing may be added.
ALLOWED_RULESET_IMPORTS = {
    "app/league/service.py",  # play and entries: parse_sheet/battle of app.rules.amaryllis
    "app/mail/pipeline.py",  # replies and test battles: app.rules.amaryllis
}


def _ruleset_imports(path: Path) -> list[str]:
    """The modules under ``app.rules`` other than the interface that ``path`` imports, by an
    import statement or by name (``importlib.import_module("app.rules.x")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "app.rules":
                names += [f"app.rules.{a.name}" for a in node.names
                          if (RULES / a.name).is_dir() or (RULES / f"{a.name}.py").is_file()]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("app.rules.") and " " not in node.value:
                names = [node.value]
        found += [n for n in names
                  if (n == "app.rules" or n.startswith("app.rules.")) and n not in INTERFACE]
    return found


def test_nothing_outside_rules_imports_a_particular_ruleset() -> None:
    offenders = {}
    for path in sorted(APP.rglob("*.py")):
        if RULES in path.parents:
            continue
        rel = path.relative_to(APP.parent).as_posix()
        found = _ruleset_imports(path)
        if found and rel not in ALLOWED_RULESET_IMPORTS:
            offenders[rel] = found
    assert not offenders, f"import app.rules / app.rules.base only: {offenders}"


def test_the_checker_sees_every_form_of_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import app.rules.amaryllis\nfrom app.rules.margaret.swords import BASIC\n"
        "from app.rules import amaryllis, find_ruleset\nfrom app.rules.base import Ruleset\n"
        "import importlib\nimportlib.import_module('app.rules.margaret')\n", encoding="utf-8")
    assert _ruleset_imports(probe) == [
        "app.rules.amaryllis", "app.rules.margaret.swords", "app.rules.amaryllis",
        "app.rules.margaret"]
