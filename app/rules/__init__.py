"""Pure game rules, one subpackage per ruleset.

Nothing in ``app.rules`` imports from the rest of ``app`` and nothing here does I/O, reads a clock
or touches a database (``tests/test_architecture.py`` enforces the first rule).

A ruleset is a module that provides, at least:

* ``parse_sheet(text: str) -> SheetResult`` - parse and validate a unit sheet;
* ``battle(a, b, *, log=True) -> BattleResult`` - resolve a battle deterministically;
* ``ENGINE_VERSION: str`` - bumped whenever a rules change may change a result.

``RULESETS`` maps the ruleset name stored with leagues and battles to that module's name.
"""

RULESETS: dict[str, str] = {"amaryllis": "app.rules.amaryllis"}
