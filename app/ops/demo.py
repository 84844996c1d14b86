"""``amaryllis demo``: a whole league, end to end, with nothing configured.

What it does, in order (every player step goes through the real mail path):

1. wipes and recreates the work folder (default ``./amaryllis-demo/``; a folder is only wiped when it is
   empty or carries the ``.amaryllis-demo`` marker this command writes, so ``--out ~`` cannot destroy a
   home directory);
2. starts :class:`~app.ops.embedded.EmbeddedMailStack` (IMAP + SMTP on free 127.0.0.1 ports; every mail
   the server sends to a player is written to ``<out>/mail/NNNN-<recipient>.eml`` and ``.txt``) and an
   SQLite database in ``<out>/data/``;
3. organizer step: creates the league ``demo`` (``app.league.service.create_league``);
4. players mail their sheets over SMTP to ``tourney@localhost`` with the subject ``[demo] entry`` /
   ``[demo] 登録``: the seed's グリスク and ヌト (exact seed text, sent ISO-2022-JP like a classic Japanese
   mailer), six more units in Japanese and English notation, one invalid sheet; then one player replaces
   his entry. Each wave is read by ``app.mail.inbound.poll_once`` over IMAP, handled by
   ``app.mail.pipeline.process_pending`` and answered by ``app.mail.send.send_once`` over SMTP;
5. organizer steps: ``close_entries`` (Berger table) and ``run_round(all_rounds=True)``; the reports and
   standings go out through the outbox and SMTP like any other mail;
6. prints the standings table and where the mails are.

A missing part of the product raises :class:`DemoError` with a clear message; nothing is faked.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import shutil
import smtplib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = [
    "DemoError",
    "DemoMail",
    "DemoSummary",
    "SCRIPT",
    "REPLACEMENT",
    "run_demo",
    "sheet_text",
]

MARKER = ".amaryllis-demo"
LEAGUE = "demo"
SERVER_ADDRESS = "tourney@localhost"
ORGANIZER = "organizer@localhost"


class DemoError(Exception):
    """The demo cannot run or did not get the results it expects (the message says which step)."""


@dataclass(frozen=True)
class DemoMail:
    """One mail a demo player sends: who (``address``, ``name``), the subject, the sheet file in
    ``app/ops/demo_sheets/``, and the charset of the body (``utf-8`` or ``iso-2022-jp``)."""

    address: str
    name: str
    subject: str
    sheet: str
    charset: str = "utf-8"
    expect: str = "accepted"  # "accepted", "rejected" or "replaced": what the reply should say
    text: str = ""  # the sheet itself (a ruleset's sample sheet) instead of the file ``sheet``


#: The first wave: eight valid entries and one invalid sheet.
SCRIPT: tuple[DemoMail, ...] = (
    DemoMail("grisk@example.jp", "グリスク使い", "[demo] 登録", "grisk.txt", "iso-2022-jp"),
    DemoMail("nut@example.jp", "ヌト使い", "[demo] 登録", "nut.txt", "iso-2022-jp"),
    DemoMail("wall@example.org", "Iron Wall player", "[demo] entry", "iron-wall.txt"),
    DemoMail("viper@example.org", "Viper player", "[demo] entry", "viper-v1.txt"),
    DemoMail("hayate@example.jp", "疾風", "[demo] 登録", "hayate.txt"),
    DemoMail("kagami@example.jp", "鏡", "[demo] 登録", "kagami.txt"),
    DemoMail("medic@example.org", "Medic player", "[demo] entry", "medic.txt"),
    DemoMail("doku@example.jp", "毒使い", "[demo] 登録", "doku.txt"),
    DemoMail("newbie@example.jp", "初心者", "[demo] 登録", "broken.txt", expect="rejected"),
)
#: The second wave: Viper's player replaces his sheet before entries close.
REPLACEMENT = DemoMail(
    "viper@example.org", "Viper player", "[demo] replace", "viper-v2.txt", expect="replaced"
)


def sheet_text(name: str) -> str:
    """The text of the demo sheet ``name`` (a file in the ``app.ops.demo_sheets`` package)."""
    return files("app.ops.demo_sheets").joinpath(name).read_text(encoding="utf-8")


def _text(mail: DemoMail) -> str:
    return mail.text or sheet_text(mail.sheet)


def script_for(ruleset: str) -> tuple[tuple[DemoMail, ...], DemoMail | None]:
    """The players' mails of a demo of ``ruleset``: the default game
    (:data:`app.rules.DEFAULT_RULESET`, whose sheets the demo's sheet files are) plays
    :data:`SCRIPT` and :data:`REPLACEMENT`; another ruleset up to eight entries of its
    ``Ruleset.demo_sheets`` (one per name) and one sheet of the default game, answered with the
    league's game and an example (no replacement wave)."""
    from app.rules import DEFAULT_RULESET
    from app.rules import ruleset as door

    rs = door(ruleset, door(ruleset).demo_options())
    if rs.name == DEFAULT_RULESET:
        return SCRIPT, REPLACEMENT
    chosen: dict[str, str] = {}
    from app.mail.sheets import split_orders

    for text in rs.demo_sheets():  # a sheet, perhaps with its orders below (a ruleset with orders)
        parsed = rs.parse_sheet(split_orders(text, rs)[0])
        if parsed.ok and rs.label(parsed.entry) not in chosen:
            chosen[rs.label(parsed.entry)] = text
    picked = list(chosen.items())[:8]
    mails = [
        DemoMail(
            f"player{i + 1}@example.{'jp' if i % 2 == 0 else 'org'}",
            f"{name}使い" if i % 2 == 0 else f"{name} player",
            "[demo] 登録" if i % 2 == 0 else "[demo] entry",
            "",
            "iso-2022-jp" if i % 4 == 0 else "utf-8",
            text=text + "\n",
        )
        for i, (name, text) in enumerate(picked)
    ]
    mails.append(
        DemoMail("newbie@example.jp", "初心者", "[demo] 登録", "grisk.txt", expect="rejected")
    )
    return tuple(mails), None


@dataclass
class DemoSummary:
    """What the demo did: the work folder, the mail folder, every mail delivered to players (the
    embedded stack's :class:`~app.ops.embedded.SinkMail` records), the standings text, the rounds run,
    and the league's page on the web view (``""`` without it)."""

    out: Path
    mail_dir: Path
    database_url: str
    mails: list[Any] = field(default_factory=list)
    standings: str = ""
    rounds: list[int] = field(default_factory=list)
    entries: int = 0
    league_url: str = ""


def _compose(mail: DemoMail, now: dt.datetime, key: str = "") -> EmailMessage:
    local, _, domain = mail.address.partition("@")
    msg = EmailMessage(policy=default_policy)
    msg["From"] = Address(display_name=mail.name, username=local, domain=domain)
    msg["To"] = SERVER_ADDRESS
    msg["Subject"] = mail.subject
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = make_msgid(domain=domain)
    text = _text(mail)
    if key:  # the entry key of the acceptance reply: a replacement takes effect at once
        text = f"key: {key}\n{text}"
    if mail.charset == "iso-2022-jp":
        msg.set_content(
            text.encode("iso-2022-jp"),
            maintype="text",
            subtype="plain",
            cte="7bit",
            params={"charset": "iso-2022-jp"},
        )
    else:
        msg.set_content(text, charset="utf-8")
    return msg


def _prepare(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise DemoError(f"{out} exists and is not a folder")
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise DemoError(
                f"refusing to wipe {out}: it is not empty and was not made by `amaryllis demo` "
                f"(no {MARKER} file). Choose another --out folder."
            )
        shutil.rmtree(out)
    (out / "mail").mkdir(parents=True)
    (out / "data").mkdir()
    (out / MARKER).write_text("made by `amaryllis demo`; wiped by the next run\n", encoding="utf-8")


def _parts() -> tuple[Any, Any, Any, Any]:
    missing = []
    mods = []
    for name in ("app.mail.inbound", "app.mail.pipeline", "app.mail.send", "app.league.service"):
        try:
            mods.append(__import__(name, fromlist=["_"]))
        except ImportError as exc:
            missing.append(f"{name} ({exc})")
    if missing:
        raise DemoError(
            "the demo needs parts of the product that are not there yet: " + "; ".join(missing)
        )
    return tuple(mods)  # type: ignore[return-value]


def run_demo(
    out: Path | str = Path("amaryllis-demo"),
    *,
    lang: str = "ja",
    echo: Callable[[str], None] = print,
    timeout: float = 30.0,
    web_port: int | None = 8080,
    keep_web: Callable[[str], None] | None = None,
    ruleset: str = "",
) -> DemoSummary:
    """Run the demo (see the module docstring) in ``out`` and return a :class:`DemoSummary`.

    ``lang`` is the language of the printed standings (``ja`` or ``en``); ``echo`` receives each progress
    line. The web view (``app.web``) serves the demo's database on 127.0.0.1:``web_port`` (a free port
    when that one is taken; ``None``: no web view) from the start, and the league's URL is printed at the
    end; ``keep_web`` (given the league's URL) is called before the web view stops, e.g. to wait for
    Ctrl-C. ``ruleset`` is the league's game (:func:`script_for`: its sample sheets are mailed in,
    :data:`DEMO_OPTIONS` its league options). Raises :class:`DemoError` when a part is missing, the folder cannot be wiped, or a reply or
    report does not arrive within ``timeout`` seconds."""
    inbound, pipeline, send, service = _parts()
    out = Path(out).resolve()
    _prepare(out)
    # the demo's own progress lines are the output; library warnings still reach stderr
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.WARNING)
    try:
        return _run(
            out, lang, echo, timeout, inbound, pipeline, send, service, web_port, keep_web, ruleset
        )
    finally:
        root.setLevel(level)


def _start_web(settings: Any, port: int) -> Any:
    """The web view on 127.0.0.1:``port``, or on a free port when that one is taken."""
    from app.web.server import start_web

    try:
        return start_web(settings, host="127.0.0.1", port=port, access_log=False)
    except OSError:
        return start_web(settings, host="127.0.0.1", port=0, access_log=False)


def _run(
    out: Path,
    lang: str,
    echo: Callable[[str], None],
    timeout: float,
    inbound: Any,
    pipeline: Any,
    send: Any,
    service: Any,
    web_port: int | None = None,
    keep_web: Callable[[str], None] | None = None,
    ruleset: str = "",
) -> DemoSummary:
    from app.config import load_settings
    from app.db.session import session_factory
    from app.ops.embedded import EmbeddedMailStack

    mail_dir = out / "mail"
    stack = EmbeddedMailStack(mail_dir, server_address=SERVER_ADDRESS)
    try:
        stack.start()
    except (OSError, RuntimeError) as exc:
        raise DemoError(f"the embedded mail server could not start: {exc}") from exc
    with stack:
        db_url = f"sqlite:///{(out / 'data' / 'amaryllis.sqlite3').as_posix()}"
        settings = load_settings(
            data_dir=out / "data",
            database_url=db_url,
            imap_url=stack.imap_url,
            smtp_url=stack.smtp_url,
            imap_processed_folder="",
            server_address=SERVER_ADDRESS,
            organizers=[ORGANIZER],
            rate_limit_per_day=1000,
        )
        summary = DemoSummary(out=out, mail_dir=mail_dir, database_url=db_url)
        echo(f"Amaryllis demo in {out}")
        echo(
            f"  mail server: IMAP {stack.imap_url.replace(':secret@', ':***@')}  SMTP {stack.smtp_url}"
        )
        echo(f"  database:    {db_url}")
        factory = session_factory(db_url)
        web = None
        if web_port is not None:
            try:
                web = _start_web(settings, web_port)
            except (OSError, RuntimeError) as exc:
                raise DemoError(f"the web view could not start: {exc}") from exc
            echo(f"  web view:    {web.url}/")
        try:
            summary = _league(
                out,
                lang,
                echo,
                timeout,
                inbound,
                pipeline,
                send,
                service,
                settings,
                stack,
                factory,
                summary,
                ruleset,
            )
            if web is not None:
                league_url = f"{web.url}/leagues/{LEAGUE}"
                summary.league_url = league_url
                echo(f"The league on the web: {league_url}")
                if keep_web is not None:
                    keep_web(league_url)
        finally:
            if web is not None:
                web.shutdown()
    return summary


def _league(
    out: Path,
    lang: str,
    echo: Callable[[str], None],
    timeout: float,
    inbound: Any,
    pipeline: Any,
    send: Any,
    service: Any,
    settings: Any,
    stack: Any,
    factory: Any,
    summary: DemoSummary,
    ruleset: str = "",
) -> DemoSummary:
    """The league itself: entries by mail, closing, every round, the reports (see the module
    docstring); the work folder, mail stack, settings and database are ready."""
    from app.db.session import transaction
    from app.mail.league_mail import LeagueMail

    mail_dir = out / "mail"

    from app.rules import DEFAULT_RULESET
    from app.rules import ruleset as door

    rs = door(ruleset)
    now = dt.datetime.now(dt.timezone.utc)
    with transaction(factory) as session:
        made = service.create_league(
            session,
            LEAGUE,
            entry_deadline=now + dt.timedelta(days=7),
            ruleset=rs.name,
            options=rs.demo_options(),
            now=now,
        )
        record = service.league_ruleset(made).describe("en")
    script, replacement = script_for(rs.name)
    default = rs.name == DEFAULT_RULESET
    echo(
        f"\n[organizer] league '{LEAGUE}' opened (entries until {now + dt.timedelta(days=7):%Y-%m-%d}, "
        f"points 3/1/0)" + ("" if default else f", ruleset {rs.name}")
    )
    if not default:
        for line in record:
            echo(f"  {line}")

    seen = 0

    def cycle(label: str, expected: int) -> list[Any]:
        """Poll IMAP, run the pipeline, send the outbox; wait for ``expected`` new mails to players."""
        nonlocal seen
        stored = inbound.poll_once(settings, factory, process=False)
        processed = pipeline.process_pending(settings, factory, now=_now())
        report = send.send_once(settings, factory, now=_now())
        echo(
            f"[server] {label}: {stored} mail(s) read over IMAP, {processed} processed, "
            f"outbox: {report}"
        )
        _check_shunted(factory, label)
        if report.failed or report.retry or getattr(report, "unknown", None):
            raise DemoError(f"{label}: the outbox could not deliver everything: {report}")
        try:
            mails = stack.wait_for_sink(seen + expected, timeout=timeout)
        except TimeoutError as exc:
            raise DemoError(f"{label}: {exc}") from exc
        new = mails[seen:]
        seen = len(mails)
        return new

    keys: dict[str, str] = {}

    def player_sends(batch: tuple[DemoMail, ...]) -> None:
        with smtplib.SMTP("127.0.0.1", stack.smtp_port, timeout=timeout) as smtp:
            for mail in batch:
                smtp.send_message(_compose(mail, _now(), keys.get(mail.address, "")))
                first = _text(mail).strip().splitlines()[0]
                echo(f"[player] {mail.address:<20} -> {SERVER_ADDRESS}  {mail.subject:<16} {first}")

    echo("\nPlayers mail their sheets:")
    player_sends(script)
    for reply in cycle("entries", len(script)):
        echo(f"  reply -> {reply.recipient:<20} {_first_line(reply.text)}")
        found = re.search(r"(?:key: |キー：)([0-9A-Z]{4}-[0-9A-Z]{4})", reply.text)
        if found:
            keys[reply.recipient] = found.group(1)

    if replacement is not None:
        echo("\nOne player replaces his entry (with the entry key his acceptance reply gave him):")
        player_sends((replacement,))
        for reply in cycle("replacement", 1):
            echo(f"  reply -> {reply.recipient:<20} {_first_line(reply.text)}")

    with transaction(factory) as session:
        league = service.get_league(session, LEAGUE)
        service.close_entries(session, league, now=_now(), mail=LeagueMail.of(settings))
        entries = sum(1 for e in league.entries if e.status == "active")
        rounds_total = len(league.rounds)
    summary.entries = entries
    echo(f"\n[organizer] entries closed: {entries} units, {rounds_total} rounds (Berger table)")

    summary.rounds = service.run_round(
        factory, LeagueMail.of(settings), LEAGUE, all_rounds=True, now=_now()
    )
    echo(f"[organizer] rounds played: {', '.join(map(str, summary.rounds)) or 'none'}")
    with factory() as session:
        from sqlalchemy import func, select

        from app.db.models import OutboxMessage

        queued = (
            session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.status == "queued")
            )
            or 0
        )
    reports = cycle("reports", int(queued))
    kinds: dict[str, int] = {}
    for mail in reports:
        kinds[mail.recipient] = kinds.get(mail.recipient, 0) + 1
    echo(f"  {len(reports)} report and standings mails sent to {len(kinds)} players")

    with factory() as session:
        league = service.get_league(session, LEAGUE)
        summary.standings = service.render_standings(session, league, lang=lang)
    summary.mails = stack.sink
    factory.kw["bind"].dispose()

    echo("\nStandings:\n")
    echo(summary.standings.rstrip())
    echo(
        f"\n{len(summary.mails)} mails were delivered to players; each is in {mail_dir}/ "
        f"as NNNN-<recipient>.eml (raw) and .txt (readable)."
    )
    replies = len(script) + (1 if replacement is not None else 0)
    grisk_vs_nut = [
        m
        for m in summary.mails[replies:]
        if m.recipient == "grisk@example.jp" and "グリスク" in m.subject and "ヌト" in m.subject
    ]
    if grisk_vs_nut:
        echo(f"The seed's battle グリスク vs ヌト: {grisk_vs_nut[0].txt}")
    return summary


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0][:90] if lines else "(empty)"


def _check_shunted(factory: Any, label: str) -> None:
    """Raise :class:`DemoError` when the pipeline parked a mail as ``shunted`` (an unexpected error)."""
    from sqlalchemy import select

    from app.db.models import InboundMessage

    with factory() as session:
        rows = session.execute(
            select(InboundMessage.id, InboundMessage.error).where(
                InboundMessage.status == "shunted"
            )
        ).all()
    if rows:
        first = (rows[0].error or "").strip().splitlines()
        raise DemoError(
            f"{label}: the pipeline failed on {len(rows)} mail(s) (shunted); first error: "
            f"{first[-1] if first else 'unknown'}"
        )


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


if __name__ == "__main__":  # pragma: no cover
    t0 = time.monotonic()
    run_demo()
    print(f"({time.monotonic() - t0:.1f} s)")
