"""Margaret Hundred 1.6.a (seed 000): 100 swords, MP, builds and parties, as the ruleset
``margaret-hundred`` (aliases ``hundred``, ``mh``).

Rules: ``shared/rules/margaret-hundred.md``; player docs: ``docs/hundred.md``. Modules:
``swords`` (the 100 swords and the build specs, as data), ``model`` (``Sword``, ``Swordmaster``,
the direct construction API), ``options`` (league configuration), ``table`` (a sword table for the
notation), ``notation`` (sheets: read, validate, print), ``problems`` (the catalogue), ``engine``
(the battle), ``events`` (log and result), ``report`` (the battle report), ``generate`` (random
valid swordmasters), ``ruleset`` (:class:`MargaretHundred`).
"""

from .engine import ENGINE_VERSION, battle
from .model import Sword, Swordmaster, parse_spec, read_codes, swordmaster
from .options import Options, parse_options
from .ruleset import MargaretHundred

__all__ = ["ENGINE_VERSION", "MargaretHundred", "Options", "Sword", "Swordmaster", "battle",
           "parse_options", "parse_spec", "read_codes", "swordmaster"]
