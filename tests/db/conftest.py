"""Fixtures of the storage tests."""

from tests.db.pgutil import db_url  # noqa: F401 - fixture
