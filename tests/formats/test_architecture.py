"""The formats package is pure: it imports nothing from the rest of ``app`` (not even the rules)
and does no I/O, reads no clock and draws no random number."""

import ast
from pathlib import Path

FORMATS = Path(__file__).resolve().parents[2] / "app" / "formats"
FORBIDDEN_MODULES = {
    "os", "io", "socket", "sqlalchemy", "jinja2", "time", "datetime", "random", "pathlib",
    "subprocess", "email", "imapclient", "smtplib", "click", "secrets", "uuid",
}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append(node.module or "")
    return found


def test_formats_import_nothing_from_the_rest_of_app() -> None:
    files = sorted(FORMATS.rglob("*.py"))
    assert len(files) >= 8
    for path in files:
        for module in _imports(path):
            assert not module.startswith("app.") or module.startswith("app.formats"), (
                f"{path} imports {module}")
            assert module.split(".")[0] not in FORBIDDEN_MODULES, f"{path} imports {module}"


def test_formats_do_not_open_files_or_print() -> None:
    for path in FORMATS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, f"{path}: {node.func.id}()"
