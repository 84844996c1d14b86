"""Fixtures of the mail tests: real servers from ``tests.servers``."""

from tests.servers import dovecot, mail_user, pymap_server, smtp_sink  # noqa: F401 - fixtures
