"""``benchmarks/crash_loop.py`` loaded as a module, for the fault tests that start ``amaryllis
serve`` as a real subprocess: its entry mail (``_entry``), serve environment (``_env``), heartbeat
wait (``_wait_running``), work-left count (``_work_left``) and the crash loop itself; and
:func:`until`, the condition wait of the tests that kill servers under a running ``serve``."""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
#: seconds before a condition that never comes fails the test (a busy CI machine)
WAIT = 300.0


@functools.cache
def crash_loop_module() -> ModuleType:
    """``benchmarks/crash_loop.py`` (loaded once)."""
    spec = importlib.util.spec_from_file_location(
        "crash_loop", ROOT / "benchmarks" / "crash_loop.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def until(
    condition: Callable[[], object],
    what: str,
    proc: subprocess.Popen[bytes],
    log: Path,
    timeout: float = WAIT,
) -> None:
    """Poll ``condition()`` until true; fail naming ``what`` when ``serve`` (``proc``, logging to
    ``log``) exits first, or after ``timeout`` seconds (a bound for a condition that never
    comes, not a duration under test)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, (
            f"serve exited ({proc.returncode}) waiting for {what}:\n"
            + log.read_text(errors="replace")[-3000:]
        )
        assert time.monotonic() < deadline, f"still waiting for {what} after {timeout} s"
        time.sleep(0.005)
