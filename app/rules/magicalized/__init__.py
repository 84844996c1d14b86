"""Margaret Magicalized (seed 002): Margaret battles interrupted by hidden hands of magic cards
played on a stack, as the ruleset ``margaret-magicalized`` (aliases ``magicalized``, ``mgz``).

Rules: ``shared/rules/margaret-magicalized.md``; player docs: ``docs/magicalized.md``. Built on
base Margaret's entry, sword-table machinery and sheet reader, and on Margaret Hundred's rules
(§7-§9) in its own engine. Modules: ``swords`` (lists 1-2, statuses, enchantments and the 18
cards as data), ``notation`` (sheets), ``problems`` (the sheet and orders catalogues),
``plays`` (the values of the trigger language), ``orders`` (its parser), ``engine`` (the battle
with windows, the stack and deciders), ``deciders`` (all-pass, scripted, standing orders),
``events`` (result and log), ``report`` (public report and private blocks), ``text`` (orders
printed back), ``generate`` (random sheets and orders), ``ruleset``
(:class:`MargaretMagicalized`).
"""

from .engine import ENGINE_VERSION, IllegalPlay, PublicState, WindowView, run_battle
from .orders import parse_orders, read_play
from .plays import OrdersText, Play, PlaySpec, SideOrders
from .ruleset import MargaretMagicalized, lead_draw

__all__ = [
    "ENGINE_VERSION",
    "IllegalPlay",
    "MargaretMagicalized",
    "OrdersText",
    "Play",
    "PlaySpec",
    "PublicState",
    "SideOrders",
    "WindowView",
    "lead_draw",
    "parse_orders",
    "read_play",
    "run_battle",
]
