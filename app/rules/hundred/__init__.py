"""Margaret Hundred 1.6.a (seed 000): 100 swords, MP, builds and parties.

Rules: ``shared/rules/margaret-hundred.md``. Player docs: ``docs/hundred.md``.
"""
