"""Mail commands (subject or first body line, English and Japanese) and the ``poll``/``send`` CLI.

The exact words are listed in ``docs/mail.md``; :data:`WORDS` is the single source of them.
Commands are matched after Unicode NFKC normalization and lower-casing, so ``ＥＮＴＲＹ`` and
``entry`` are the same word.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import click

#: command -> words that name it (after NFKC + lower-case). Longest match wins.
WORDS: dict[str, tuple[str, ...]] = {
    "entry": ("entry", "enter", "submit", "replace", "登録", "エントリー", "エントリ", "参加", "差し替え", "差替え", "差替"),
    "check": ("check", "validate", "チェック", "確認", "検証"),
    "test": ("test battle", "test", "battle", "テストバトル", "対戦テスト", "テスト", "模擬戦"),
    "withdraw": ("withdraw", "辞退", "取り消し", "取消し", "取消", "取り下げ"),
    "standings": ("standings", "順位表", "順位", "成績"),
    "help": ("help", "ヘルプ", "使い方", "説明"),
    "charset": ("charset", "文字コード"),
    # organizer commands (organizer address + password line)
    "open": ("open", "開設", "募集開始"),
    "close": ("close", "締切", "締め切り", "受付終了"),
    "run": ("run", "実行", "対戦実行"),
    "resend": ("resend", "再送"),
}
ORGANIZER_COMMANDS = frozenset({"open", "close", "run", "resend"})
JAPANESE_WORDS = frozenset(w for ws in WORDS.values() for w in ws if not w.isascii())

_PASSWORD = re.compile(r"^\s*(password|pass|パスワード|合言葉)\s*[:：=]\s*(\S.*?)\s*$", re.I)
_REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv|転送|返信)\s*(\[\d+\])?\s*[:：]\s*)+", re.I)
_TAG = re.compile(r"\[([^\]\s]{1,64})\]")
#: a unit line (``名前：HP／ATK／DEF／SPD…``) after NFKC normalization and ``、`` -> ``,`` (rules §1)
_UNIT_LINE = re.compile(r"^[^・\-\*\s].*?[:].*?/.*?/.*?/")


def is_unit_line(line: str) -> bool:
    """True when ``line`` looks like a unit line (``名前：HP／ATK／DEF／SPD／…``, rules §1).

    Such a line is never a command line nor a password line: ``Test Pilot: 10/1/1/2/G`` is a unit
    named "Test Pilot", not the ``test`` command, and ``Pass: 10/1/1/2/G`` is a unit named "Pass".
    """
    return bool(_UNIT_LINE.match(unicodedata.normalize("NFKC", line.replace("、", ",")).strip()))


@dataclass
class Command:
    """A parsed mail command.

    Attributes:
        name: one of :data:`WORDS`' keys, or ``"entry"``/``"help"`` by default (see
            :func:`parse_command`).
        args: the words after the command word (e.g. ``["iso-2022-jp"]`` for ``charset``).
        source: ``"subject"``, ``"body"`` or ``"default"`` (no command word found).
        lang: ``"ja"`` when the command word was Japanese, ``"en"`` when English, else ``None``.
        body: the body with the command line and the password line blanked (replaced by empty
            lines, so that line numbers stay those of the mail body).
        password: the value of a ``password:``/``パスワード：`` line, or ``None``.
        tag: the league named by a ``[NAME]`` subject tag, or ``None``.
    """

    name: str
    args: list[str] = field(default_factory=list)
    source: str = "default"
    lang: str | None = None
    body: str = ""
    password: str | None = None
    tag: str | None = None

    @property
    def organizer(self) -> bool:
        """True for open/close/run/resend."""
        return self.name in ORGANIZER_COMMANDS


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


def match_command(line: str) -> tuple[str, str, list[str]] | None:
    """``(name, word, args)`` when ``line`` starts with a command word, else ``None``.

    An English word must be followed by a space or the end; a Japanese word may be followed by
    anything that is not a sheet (``登録`` matches, ``登録：…`` with a colon is a sheet line, not
    a command).
    """
    text = _norm(line)
    best: tuple[str, str] | None = None
    for name, words in WORDS.items():
        for word in words:
            if text == word or text.startswith(word + " ") or text.startswith(word + "\u3000"):
                if best is None or len(word) > len(best[1]):
                    best = (name, word)
            elif not word.isascii() and text.startswith(word):
                rest = text[len(word):]
                if rest[:1] not in (":", "/", "(", "<") and (best is None or len(word) > len(best[1])):
                    best = (name, word)
    if best is None:
        return None
    name, word = best
    args = text[len(word):].replace("\u3000", " ").split()
    return name, word, args


def is_reply_subject(subject: str) -> bool:
    """True when ``subject`` starts with a reply or forward prefix (``Re:``, ``Fwd:``, ``AW:``,
    ``返信：``…)."""
    return bool(_REPLY_PREFIX.match(subject or ""))


def is_chat(subject: str, body: str) -> bool:
    """True when a mail without a command word is talk, not a sheet: no line looks like a unit
    line (:func:`is_unit_line`) and either the subject is a reply/forward (a "Great game!" answer
    to a battle report) or no line of ``body`` has a colon (``:`` or ``：``) at all. A fresh mail
    with a broken sheet (colon lines but no valid unit line) is not chat: it gets the sheet's
    problems."""
    lines = (body or "").split("\n")
    if any(is_unit_line(line) for line in lines):
        return False
    colon = any(":" in unicodedata.normalize("NFKC", line) for line in lines)
    return is_reply_subject(subject) or not colon


def strip_subject(subject: str) -> tuple[str, str | None]:
    """Remove ``Re:``/``Fwd:`` prefixes and a ``[NAME]`` tag: ``(rest, tag)``."""
    s = _REPLY_PREFIX.sub("", subject or "")
    tag = None
    m = _TAG.search(s)
    if m:
        tag = m.group(1)
        s = (s[: m.start()] + s[m.end():]).strip()
        s = _REPLY_PREFIX.sub("", s)
    return s.strip(), tag


def parse_command(subject: str, body: str) -> Command:
    """Find the command of a mail.

    Order: the subject (after ``Re:``/``Fwd:`` and a ``[NAME]`` tag), then the first non-blank body
    line; for a reply (subject starting with ``Re:``/``Fwd:``) the body line comes first, since the
    subject is then the old one. Without a command word the mail is an ``entry`` when the body has text (a sheet), else
    ``help``. The first password line is blanked in ``body`` and returned in ``password``; a body
    command line is blanked too (empty lines, so that line numbers in replies are those of the
    mail). A line that looks like a unit line (:func:`is_unit_line`) is never a command line nor a
    password line. Never raises.
    """
    rest, tag = strip_subject(subject)
    lines = (body or "").split("\n")
    password = None
    kept: list[str] = []
    for line in lines:
        m = None if is_unit_line(line) else _PASSWORD.match(unicodedata.normalize("NFKC", line))
        if m and password is None:
            password = m.group(2)
            kept.append("")
            continue
        kept.append(line)
    is_reply = bool(_REPLY_PREFIX.match(subject or ""))
    found = None
    source = "subject"
    if not is_reply and rest:
        found = match_command(rest)
    if found is None:
        idx = next((i for i, line in enumerate(kept) if line.strip()), None)
        if idx is not None and not is_unit_line(kept[idx]):
            found = match_command(kept[idx])
            if found is not None:
                source = "body"
                kept[idx] = ""
    if found is None and is_reply and rest:
        found = match_command(rest)
    text = "\n".join(kept).rstrip("\n")
    if not text.strip():
        text = ""
    if found is None:
        name = "entry" if text.strip() else "help"
        return Command(name=name, source="default", body=text, password=password, tag=tag)
    name, word, args = found
    return Command(name=name, args=args, source=source, lang="en" if word.isascii() else "ja",
                   body=text, password=password, tag=tag)


# ---------------------------------------------------------------------------------------------
# CLI


def _factory(settings):  # type: ignore[no-untyped-def]
    from app.db.session import session_factory

    return session_factory(settings.resolved_database_url)


def register(group: click.Group) -> None:
    """Add ``poll`` and ``send`` to ``group``."""

    @group.command("poll")
    @click.option("--once", is_flag=True, help="one pass (store, mark, process) and exit")
    @click.option("--retry-shunted", is_flag=True,
                  help="put shunted mail (an unexpected error) back to 'stored' first")
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
    @click.option("--requeue", "requeue", type=int, multiple=True,
                  help="put an outbox row in state unknown/failed back in the queue (by id)")
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
                "nothing was sent (it will deliver the queued mail)") from None
