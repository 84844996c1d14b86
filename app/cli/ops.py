"""CLI commands of this part (registered by ``app.cli``): ``serve``, ``status``, ``mailserver``,
``demo``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


def _settings():  # type: ignore[no-untyped-def]
    from app.config import load_settings

    return load_settings()  # a ConfigError becomes a one-line error in app.cli


def register(group: click.Group) -> None:
    """Add ``serve``, ``status`` and ``demo`` to ``group``."""

    @group.command("serve")
    @click.option(
        "--log-format",
        type=click.Choice(["auto", "json", "console"]),
        default="auto",
        show_default=True,
        help="auto: JSON unless stderr is a terminal",
    )
    def serve_cmd(log_format: str) -> None:
        """Run the server: IMAP poller (IDLE), scheduler tick and outbox sender, until SIGTERM/SIGINT.

        Migrates the database first. Configuration: config/amaryllis.toml or AMARYLLIS_* variables."""
        import signal
        import threading

        # first thing, before the slow imports: a stop request from here on ends start-up cleanly
        # (exit 0); serve() replaces these with its full handlers
        stop = threading.Event()
        previous = {
            sig: signal.signal(sig, lambda _signum, _frame: stop.set())
            for sig in (signal.SIGTERM, signal.SIGINT)
        }
        from app.ops.serve import configure_logging, serve
        from app.signals import restore_handlers

        try:
            configure_logging(json_logs={"auto": None, "json": True, "console": False}[log_format])
            settings = _settings()
            try:
                code = serve(settings, stop=stop)
            except (ImportError, RuntimeError) as exc:
                raise click.ClickException(str(exc)) from exc
        finally:
            restore_handlers(previous)
        sys.exit(code)

    @group.command("status")
    @click.option("--json", "as_json", is_flag=True, help="print the status as one JSON object")
    @click.option(
        "--check",
        is_flag=True,
        help="exit 1 on any trouble: a failed check (database, mailbox, relay), "
        "serve died, failed mail, stuck rounds (health check)",
    )
    @click.option("--offline", is_flag=True, help="skip the IMAP and SMTP checks")
    def status_cmd(as_json: bool, check: bool, offline: bool) -> None:
        """Show health and load: database, mailbox, SMTP, queues, leagues, last poll, trouble.

        Exits 1 when the database cannot be read (with --check: on any trouble), else 0."""
        from app.ops.status import collect_status, exit_code, render_status

        status = collect_status(_settings(), network=not offline)
        if as_json:
            click.echo(json.dumps(status, indent=2, ensure_ascii=False, default=str))
        else:
            click.echo(render_status(status))
        sys.exit(exit_code(status, check=check, offline=offline))

    @group.command("mailserver")
    @click.option(
        "--out",
        "out_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("amaryllis-mail"),
        show_default=True,
        help="folder where every mail to a player is written (.eml and .txt)",
    )
    def mailserver_cmd(out_dir: Path) -> None:
        """Run the embedded mail server for trying `serve` on one machine: IMAP and SMTP on
        127.0.0.1 at the ports of the imap_url/smtp_url settings (default 1143 and 8025), until
        Ctrl-C/SIGTERM.

        Mail to the server's address (and its +NAME league addresses) lands in the mailbox that
        `serve` polls; every other mail (the replies) is written to --out. The mailbox lives in
        memory: mail not yet polled is gone when this stops. For trials, not for production."""
        import signal
        import threading
        from urllib.parse import urlsplit

        from app.ops.embedded import EmbeddedMailStack

        settings = _settings()
        imap, smtp = urlsplit(settings.imap_url), urlsplit(settings.smtp_url)
        if (imap.hostname, smtp.hostname) != ("127.0.0.1", "127.0.0.1"):
            raise click.ClickException(
                f"imap_url and smtp_url must point at 127.0.0.1 for the embedded mail server "
                f"(they are {imap.hostname} and {smtp.hostname})"
            )
        stack = EmbeddedMailStack(
            out_dir,
            server_address=settings.server_address,
            imap_port=imap.port or 143,
            smtp_port=smtp.port or 25,
            password=imap.password or "secret",
        )
        try:
            stack.start()
        except OSError as exc:
            raise click.ClickException(f"cannot start the mail server: {exc}") from exc
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda _signum, _frame: stop.set())
        click.echo(
            f"mail server: IMAP {stack.imap_url.replace(stack.password, '***')}, "
            f"SMTP smtp://127.0.0.1:{stack.smtp_port}; mail to {settings.server_address} "
            f"goes to the mailbox, every other mail to {out_dir}/ (Ctrl-C stops)"
        )
        try:
            stop.wait()
        finally:
            stack.stop()

    @group.command("demo")
    @click.option(
        "--out",
        "out",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("amaryllis-demo"),
        show_default=True,
        help="work folder (wiped at start): database, and every delivered mail as .eml + .txt",
    )
    @click.option(
        "--lang",
        type=click.Choice(["ja", "en"]),
        default="ja",
        show_default=True,
        help="language of the standings table printed at the end",
    )
    @click.option(
        "--web-port",
        type=click.IntRange(0, 65535),
        default=8080,
        show_default=True,
        help="port of the web view on 127.0.0.1 (a free one when taken; 0: any free port)",
    )
    @click.option("--no-web", is_flag=True, help="do not start the web view")
    @click.option(
        "--ruleset",
        default=None,
        help="the league's game, by name or alias (default: the default ruleset)",
    )
    @click.option(
        "--keep-web/--no-keep-web",
        default=None,
        help="keep the web view up after the league until Ctrl-C "
        "[default: when standard input is a terminal]",
    )
    def demo_cmd(
        out: Path,
        lang: str,
        web_port: int,
        no_web: bool,
        ruleset: str | None,
        keep_web: bool | None,
    ) -> None:
        """Run a whole league with nothing configured: embedded IMAP/SMTP, SQLite, sample players.

        Mails sample sheets in over SMTP, polls them over IMAP, replies, closes entries, runs every round,
        sends every report, and prints the standings and where the mails were written. The web view
        serves the league meanwhile; its URL is printed at the end."""
        from app.ops.demo import DemoError, run_demo
        from app.rules import DEFAULT_RULESET, find_ruleset

        if keep_web is None:
            keep_web = sys.stdin is not None and sys.stdin.isatty()
        try:
            name = find_ruleset(ruleset or DEFAULT_RULESET).name
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--ruleset") from exc
        try:
            run_demo(
                out,
                lang=lang,
                echo=click.echo,
                web_port=None if no_web else web_port,
                keep_web=_wait_for_stop if keep_web else None,
                ruleset=name,
            )
        except DemoError as exc:
            raise click.ClickException(str(exc)) from exc


def _wait_for_stop(url: str) -> None:
    """Block until SIGINT/SIGTERM (the demo's web view stays up meanwhile)."""
    import threading

    from app.signals import install_stop_handlers, restore_handlers

    stop = threading.Event()
    previous = install_stop_handlers(stop)
    click.echo(f"The web view stays up until Ctrl-C: {url}")
    try:
        while not stop.wait(0.5):
            pass
    finally:
        restore_handlers(previous)
