"""The Amaryllis ruleset (seed 001). Rules: ``shared/rules/amaryllis.md``."""
