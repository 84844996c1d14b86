"""The ``poll`` and ``send`` commands of the CLI (registered by ``app.cli``).

Kept apart from the mail grammar and the command registry so that nothing in ``app.mail`` imports
this module: ``cli`` → ``inbound``/``pipeline``/``send`` is the only way the arrows go.
"""

from __future__ import annotations

import click


def _factory(settings):  # type: ignore[no-untyped-def]
    from app.db.session import session_factory

    return session_factory(settings.resolved_database_url)


def register(group: click.Group) -> None:
    """Add ``poll`` and ``send`` to ``group``."""

    @group.command("poll")
    @click.option("--once", is_flag=True, help="one pass (store, mark, process) and exit")
    @click.option(
        "--retry-shunted",
        is_flag=True,
        help="put shunted mail (an unexpected error) back to 'stored' first",
    )
    def poll_cmd(once: bool, retry_shunted: bool) -> None:
        """Read new mail from the IMAP mailbox, store it, mark it and process it."""
        from app.config import load_settings
        from app.mail import inbound

        settings = load_settings()
        factory = _factory(settings)
        if retry_shunted:
            from app.mail.pipeline import requeue_shunted

            click.echo(f"{requeue_shunted(factory)} shunted mail(s) back in the queue")
        if once:
            from imapclient.exceptions import IMAPClientError

            from app.mail.pipeline import process_pending

            try:
                n = inbound.poll_once(settings, factory, process=False)
            except (OSError, IMAPClientError) as exc:
                ep = settings.imap
                process_pending(settings, factory)  # mail stored earlier still gets its answer
                raise click.ClickException(
                    f"IMAP server {ep.host}:{ep.port} ({ep.security}): {exc}; nothing was lost, run again"
                ) from exc
            done = process_pending(settings, factory)
            click.echo(f"stored {n} new mail(s), processed {done}")
        else:
            inbound.run_forever(settings, factory)

    @group.command("send")
    @click.option("--once", is_flag=True, help="one pass over the outbox and exit")
    @click.option(
        "--requeue",
        "requeue",
        type=int,
        multiple=True,
        help="put an outbox row in state unknown/failed back in the queue (by id)",
    )
    def send_cmd(once: bool, requeue: tuple[int, ...]) -> None:
        """Deliver queued outbox mail over SMTP (retries with backoff)."""
        from app.config import load_settings
        from app.mail import send

        settings = load_settings()
        factory = _factory(settings)
        if requeue:
            n = send.requeue(factory, list(requeue))
            click.echo(f"requeued {n} row(s)")
            return
        try:
            if once:
                with send.sender_lock(settings):
                    report = send.send_once(settings, factory)
                click.echo(str(report))
            else:
                send.run_forever(settings, factory)
        except send.SenderLocked as exc:
            raise click.ClickException(
                f"{exc}: `amaryllis serve` or another `amaryllis send` is delivering this outbox; "
                "nothing was sent (it will deliver the queued mail)"
            ) from None
