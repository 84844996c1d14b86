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
