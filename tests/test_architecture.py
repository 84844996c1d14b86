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

# Files outside app/rules that import a particular ruleset package: none. The league and mail
# layers speak to the Ruleset interface (find_ruleset(league.ruleset)(league.options)).
ALLOWED_RULESET_IMPORTS: set[str] = set()


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
MAIL = Path(__file__).resolve().parents[1] / "app" / "mail"


def _mail_modules() -> dict[str, Path]:
    out = {}
    for path in MAIL.rglob("*.py"):
        rel = path.relative_to(MAIL.parents[1]).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def test_mail_modules_import_each_other_without_a_cycle() -> None:
    """Every import in ``app.mail`` (module level and inside functions) goes one way: no cycle
    such as the old ``commands -> inbound -> pipeline -> commands`` (issue #10.6). A package's
    ``__init__`` importing its own submodules is not a cycle."""
    modules = _mail_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        # a submodule importing its own package (``commands.player`` -> ``commands``, whose
        # __init__ registers it) is the registry pattern, not a cycle: edges to parents are left out
        graph[name] = {module for module, level in _imports(path)
                       if level == 0 and module in modules and module != name
                       and not name.startswith(module + ".")}
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(dep):] + [dep]))
            if dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_the_mail_layer_reaches_the_rules_through_one_module() -> None:
    """Only ``app/mail/sheets.py`` names a ruleset package (its ``rules()`` is the one function
    to switch to ``app.rules.find_ruleset`` later)."""
    for name, path in _mail_modules().items():
        for module, level in _imports(path):
            if level == 0 and module.startswith("app.rules.") and name != "app.mail.sheets":
                raise AssertionError(f"{path} imports {module}")
