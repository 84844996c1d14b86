"""``python -m app.cli``: the ``amaryllis`` command line (:func:`app.cli.main`)."""

from app.cli import main

main()
