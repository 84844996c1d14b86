"""Reading the import structure of ``app/`` for the architecture tests: every import of every
module, at module level or inside a function, ``from package import submodule`` resolved to the
submodule, and ``importlib.import_module("app.x")`` with a literal name.

:data:`LAYERS` is the layer table of ``shared/design.md`` / ``docs/architecture.md``: a module
may import its own package, and packages of a lower layer; :data:`ALSO` lists the few imports
between packages of one layer that the table allows (configuration and paths below storage, the
reports' links below nothing else). :func:`layer_violations` and :func:`cycles` are the checks;
they take any tree, so the tests can feed them a probe.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"

#: package (or top-level module) of ``app`` → its layer; a module belongs to the longest prefix
LAYERS: dict[str, int] = {
    "app.rules": 0,
    "app.formats": 0,
    "app": 1,
    "app.paths": 1,
    "app.config": 1,
    "app.signals": 1,
    "app.db": 1,
    "app.reports": 1,
    "app.league": 2,
    "app.mail": 3,
    "app.web": 3,
    "app.cli": 4,
    "app.ops": 4,
}
#: imports allowed between two packages of one layer (``(importer, imported)``)
ALSO: set[tuple[str, str]] = {
    ("app.db", "app.config"),
    ("app.db", "app.paths"),
    ("app.db", "app"),
    ("app.config", "app.paths"),
    ("app.config", "app"),
    ("app.reports", "app.paths"),
    ("app.reports", "app"),
    ("app.signals", "app"),
    ("app.paths", "app"),
    ("app.cli", "app.ops"),
}


def module_name(path: Path, root: Path = ROOT) -> str:
    """``app/league/play.py`` → ``app.league.play``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT, package: str = "app") -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name."""
    base = root.joinpath(*package.split("."))
    return {module_name(p, root): p for p in sorted(base.rglob("*.py"))}


def imports_of(path: Path, name: str, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (file ``path``) imports, anywhere in it:
    ``import a.b``, ``from a import b`` (``a.b`` when it is a module, else ``a``), relative
    imports, and ``importlib.import_module("a.b")`` with a literal name."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target:
            out.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                add(full if full in known else mod)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            add(node.args[0].value)
    out.discard(name)
    return out


def graph(root: Path = ROOT, package: str = "app") -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports (:func:`imports_of`)."""
    mods = modules(root, package)
    return {name: imports_of(path, name, mods) for name, path in mods.items()}


def owner(module: str, layers: Mapping[str, int] = LAYERS) -> str:
    """The entry of ``layers`` a module belongs to: the longest matching prefix."""
    best = ""
    for key in layers:
        if (module == key or module.startswith(key + ".")) and len(key) > len(best):
            best = key
    return best


def layer_violations(
    edges: Mapping[str, set[str]],
    layers: Mapping[str, int] = LAYERS,
    also: set[tuple[str, str]] = ALSO,
) -> list[str]:
    """Every import that runs up the layer table or across one layer (not in ``also``), as
    ``"a.b -> c.d (layer 2 imports layer 3)"``."""
    bad = []
    for src, targets in sorted(edges.items()):
        a = owner(src, layers)
        for dst in sorted(targets):
            b = owner(dst, layers)
            if not a or not b or a == b:
                continue
            if layers[b] < layers[a] or (a, b) in also:
                continue
            bad.append(f"{src} -> {dst} (layer {layers[a]} {a} imports layer {layers[b]} {b})")
    return bad


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The import cycles among modules (each as the modules around it, first repeated at the
    end). An edge from a module to a package it is inside is left out: a package's
    ``__init__`` that imports its submodules to register them is not a cycle with them."""

    def inside(child: str, parent: str) -> bool:
        return child.startswith(parent + ".")

    g = {n: {d for d in ds if not inside(n, d)} for n, ds in edges.items()}
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(g.get(node, ())):
            if state.get(dep) == 1:
                found.append(stack[stack.index(dep) :] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for node in sorted(g):
        if node not in state:
            visit(node, [node])
    return found


def literal_strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module with its line (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]
