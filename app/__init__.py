"""Amaryllis play-by-mail tournament server."""

__version__ = "0.1.0"
