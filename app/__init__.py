"""Amaryllis play-by-mail tournament server."""

__version__ = "0.1.0"

#: the program's name: its command, its loggers, its processes (status finds them by it)
PROGRAM = "amaryllis"
#: the server's name for people: the display name of its mails, its feeds' author
NAME = "Amaryllis"
