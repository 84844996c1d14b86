"""Margaret Hundred 1.6.a (seed 000): 100 swords, MP, builds and parties, as the ruleset
``margaret-hundred`` (aliases ``hundred``, ``mh``).

Rules: ``shared/rules/margaret-hundred.md``; player docs: ``docs/hundred.md``. Built on base
Margaret (``app.rules.margaret``): its entry types, its sword-table machinery and its sheet
reader and printers, extended to the 100 swords. Modules: ``swords`` (the 100 swords with their
effect programs and the build specs, as data), ``table`` (the notation table: base Margaret's 15
rows and Hundred's 85), ``model`` (``Sword``, ``Swordmaster``, the direct construction API),
``options`` (league configuration), ``notation`` (Hundred's check over base Margaret's reader),
``problems`` (base Margaret's catalogue, extended), ``engine`` (the battle), ``events`` (log and
result), ``report`` (the battle report), ``generate`` (random valid swordmasters), ``ruleset``
(:class:`MargaretHundred`).
"""

from .engine import ENGINE_VERSION, battle
from .model import Sword, Swordmaster, parse_spec, read_codes, swordmaster
from .options import Options, parse_options
from .ruleset import MargaretHundred

__all__ = [
    "ENGINE_VERSION",
    "MargaretHundred",
    "Options",
    "Sword",
    "Swordmaster",
    "battle",
    "parse_options",
    "parse_spec",
    "read_codes",
    "swordmaster",
]
