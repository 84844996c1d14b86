"""Fixtures of every test: a test fails when it logs an ERROR it did not ask for (Datasette's
rule: an error in the log is a bug unless the test is about it)."""

from __future__ import annotations

import pytest


@pytest.fixture
def expect_error_log() -> list[bool]:
    """Request this in a test that is meant to log an ERROR (e.g. a shunted message)."""
    return [True]


@pytest.fixture(autouse=True)
def _no_unexpected_error_logs(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture):
    """Fail a test that logs an ERROR it did not ask for (Datasette style)."""
    import logging

    caplog.set_level(logging.WARNING)
    yield
    if "expect_error_log" in request.fixturenames:
        return
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]
