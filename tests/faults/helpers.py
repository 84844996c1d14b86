"""``benchmarks/crash_loop.py`` loaded as a module, for the fault tests that start ``amaryllis
serve`` as a real subprocess: its entry mail (``_entry``), serve environment (``_env``), heartbeat
wait (``_wait_running``), work-left count (``_work_left``) and the crash loop itself."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def crash_loop_module() -> ModuleType:
    """``benchmarks/crash_loop.py`` (loaded once)."""
    spec = importlib.util.spec_from_file_location("crash_loop", ROOT / "benchmarks" / "crash_loop.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
