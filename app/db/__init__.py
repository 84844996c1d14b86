"""Storage: SQLAlchemy 2.x models (``models``) and engine/session helpers (``session``)."""
