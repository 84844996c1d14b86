"""A plain ``pip install .`` (not editable) gives a working server: the wheel carries
``templates/`` and ``migrations/`` inside the ``app`` package (``setup.py``, ``app/paths.py``),
and ``amaryllis demo`` run from a folder outside the repository migrates its database, renders
every mail and report and serves the web view from the installed copy.

Bounded: one copy of the sources, one wheel build, one venv, one demo run (each step with a
timeout). The new venv has no dependencies of its own: a ``.pth`` file points it at this venv's
site-packages, so the test runs offline; the files of a ``.pth``-added folder are not processed
as site files, so this checkout's editable install does not leak in (asserted below)."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email import policy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: what a source distribution holds (MANIFEST.in) and the build needs
SOURCES = (
    "app",
    "templates",
    "migrations",
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
)


def _run(
    args: list[str], *, cwd: Path, timeout: int, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_a_wheel_installed_elsewhere_runs_the_demo(tmp_path: Path) -> None:
    # the sources as a source distribution has them (no .git, no .venv, no compiled files)
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name,
                src / name,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo"),
            )
        else:
            shutil.copy2(ROOT / name, src / name)
    wheels = tmp_path / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)],
        cwd=tmp_path,
        timeout=600,
    )
    built = list(wheels.glob("amaryllis_server-*.whl"))
    assert len(built) == 1, built
    with zipfile.ZipFile(built[0]) as whl:
        names = set(whl.namelist())
    for shipped in (
        "app/templates/_base.html",
        "app/templates/mail/help.txt",
        "app/templates/reports/battle.html",
        "app/templates/locale/ja/LC_MESSAGES/messages.po",
        "app/migrations/env.py",
        "app/migrations/script.py.mako",
        "app/web/static/site.css",
        "app/paths.py",
    ):
        assert shipped in names, shipped
    assert any(n.startswith("app/migrations/versions/0001") for n in names)
    assert not any(n.startswith(("templates/", "migrations/")) for n in names)  # inside app/

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path, timeout=300)
    python = venv / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            cwd=tmp_path,
            timeout=60,
        ).stdout.strip()
    )
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "project_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in ours), encoding="utf-8"
    )
    _run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(built[0])],
        cwd=tmp_path,
        timeout=300,
    )

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AMARYLLIS_", "PYTHON")) and k != "VIRTUAL_ENV"
    }
    where = _run(
        [
            str(python),
            "-c",
            "import app, app.paths as p; print(app.__file__); "
            "print(p.TEMPLATES); print(p.MIGRATIONS)",
        ],
        cwd=elsewhere,
        timeout=60,
        env=env,
    )
    package, templates, migrations = (Path(line) for line in where.stdout.split())
    assert package.is_relative_to(site) and not package.is_relative_to(ROOT), package
    assert templates == site / "app" / "templates" and migrations == site / "app" / "migrations"

    out = elsewhere / "demo"
    demo = _run(
        [
            str(venv / "bin" / "amaryllis"),
            "demo",
            "--out",
            str(out),
            "--web-port",
            "0",
            "--no-keep-web",
        ],
        cwd=elsewhere,
        timeout=900,
        env=env,
    )
    assert "順位表" in demo.stdout and "The league on the web: http://127.0.0.1:" in demo.stdout
    assert (out / "data").is_dir()
    # the mails were rendered from the installed templates: a report with its HTML layout
    reports = []
    for path in sorted((out / "mail").glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        html = msg.get_body(("html",))
        if html is not None and any(w in str(msg["Subject"]) for w in ("Round", "回戦")):
            reports.append(html.get_content())
    assert reports and all("<script" not in r and 'style="' in r for r in reports)
