"""Base Margaret, 15 swords (``shared/rules/margaret.md``), as the ruleset ``margaret``.

Modules: ``swords`` (the data-driven sword table; Margaret Hundred's starts with the same 15),
``model`` (``Sword``, ``Swordmaster``), ``notation`` (full and compact forms over any sword table),
``validate`` (budget and warnings; ``parse_sheet``), ``problems`` (the catalogue), ``compile`` (a
swordmaster as its Amaryllis unit, Ruling M6), ``ruleset`` (:class:`Margaret`), ``samples``,
``generate`` (random legal swordmasters).
"""

from .model import Sword, Swordmaster
from .ruleset import ENGINE_VERSION, Margaret
from .swords import BASIC, SwordSpec, SwordTable
from .validate import parse_sheet

__all__ = [
    "BASIC",
    "ENGINE_VERSION",
    "Margaret",
    "Sword",
    "SwordSpec",
    "SwordTable",
    "Swordmaster",
    "parse_sheet",
]
