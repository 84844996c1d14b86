"""Leagues: scheduling (Berger tables), standings and the league lifecycle over the database."""
