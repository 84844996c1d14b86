"""The examples in the public docstrings of the sheet modules run and hold."""

from __future__ import annotations

import doctest

import pytest

from app.rules.amaryllis import notation, problems
from app.rules.margaret import validate as margaret_validate


@pytest.mark.parametrize(
    "module", [notation, problems, margaret_validate], ids=lambda m: m.__name__
)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
