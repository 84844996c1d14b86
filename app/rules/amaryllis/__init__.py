"""The Amaryllis ruleset (seed 001). Rules: ``shared/rules/amaryllis.md``.

Code outside ``app/rules`` speaks to the :class:`Amaryllis` ruleset (``ruleset.py``) through
``app.rules.find_ruleset("amaryllis")``. The module functions (``docs/contracts.md``):
``parse_sheet``, ``format_sheet``, ``format_costs``, ``format_problems``, ``format_state``,
``battle``, ``result_json``, ``ENGINE_VERSION``.
"""

from .costtext import format_costs
from .engine import ENGINE_VERSION, battle, result_json
from .notation import (
    SheetError,
    SheetResult,
    format_sheet,
    format_state,
    greeting_lines,
    parse_sheet,
    parse_unit,
    valid_name,
)
from .problems import Problem, format_problems, localize
from .ruleset import Amaryllis

__all__ = [
    "Amaryllis",
    "ENGINE_VERSION",
    "Problem",
    "SheetError",
    "SheetResult",
    "battle",
    "format_costs",
    "format_problems",
    "format_sheet",
    "format_state",
    "greeting_lines",
    "localize",
    "parse_sheet",
    "parse_unit",
    "result_json",
    "valid_name",
]
