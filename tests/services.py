"""Skipping a test whose server cannot run here: allowed on a developer's machine, an error in CI.

``.ci/run`` installs Dovecot and starts PostgreSQL, so in CI (``CI`` set) a missing service means a
broken set-up, and a silent skip would hide every test that needs it.
"""

from __future__ import annotations

import os

import pytest


def skip_or_fail(reason: str) -> None:
    """``pytest.skip(reason)``, or ``pytest.fail`` when running in CI. Never returns."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must provide it: see .ci/run)", pytrace=False)
    pytest.skip(reason)
