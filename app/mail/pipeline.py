"""Processing of stored inbound mail: one message, one transaction (Mailman style).

For each ``InboundMessage`` in status ``stored``, in id order::

    decode -> protection rules -> rate limit -> command -> league service -> reply -> outbox

all in one transaction, so the reply (dedupe key ``reply:<inbound id>``) is queued exactly when the
row becomes ``done``/``refused``. Outcomes (``InboundMessage.status``):

``done``      the command ran (its reply may say that it was rejected, e.g. a bad sheet);
``refused``   a rule refused it (rate limit, failed DKIM/SPF, not the organizer…); ``rules`` says which;
``ignored``   no automatic reply is allowed (bounce, auto-reply, list, ourselves; RFC 3834);
``shunted``   an unexpected exception; ``error`` holds the stage and the exception; logged; the
              next message is processed normally. ``requeue_shunted`` puts it back.

Organizer commands that run rounds (``run``, ``resend``) use their own transactions
(``app.league.service.run_round``); they run after the message's transaction is committed, and their
reply is queued in a second transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import getaddresses
from importlib import resources
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import InboundMessage, Player, SenderCounter, utcnow
from app.db.session import transaction
from app.mail.commands import WORDS, Command, is_chat, is_unit_line, parse_command
from app.mail.compose import build_message, enqueue, reply_subject
from app.mail.decode import DecodedMail, decode_message
from app.mail.protect import check_auto_reply, check_authentication

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# rendering


def render_mail(name: str, lang: str, /, **context: Any) -> str:
    """Render ``templates/mail/<name>.<lang>.txt`` (StrictUndefined) with ``context``."""
    from app.reports.render import environment

    if lang not in ("ja", "en"):
        lang = "ja"
    return environment().get_template(f"mail/{name}.{lang}.txt").render(**context)


def sample_units() -> list[str]:
    """The sheets of the league's sample units (``app/mail/sample_units/*.txt``, in name order)."""
    folder = resources.files("app.mail") / "sample_units"
    return [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".txt")]


def _rules() -> Any:
    import app.rules.amaryllis as rules

    return rules


def _service() -> Any:
    import app.league.service as service

    return service


def looks_like_sheet(text: str) -> bool:
    """True when some line looks like a unit line (``名前：HP／ATK／DEF／SPD…``,
    :func:`app.mail.commands.is_unit_line`)."""
    return any(is_unit_line(line) for line in text.split("\n"))


def split_sheets(text: str) -> list[str]:
    """Split a text holding several sheets at each unit line (lines before the first unit line
    belong to the first sheet); each sheet stripped."""
    return [chunk.strip() for _first, _last, chunk in split_sheets_at(text)]


def split_sheets_at(text: str) -> list[tuple[int, int, str]]:
    """Split ``text`` at each unit line like :func:`split_sheets`, keeping where each sheet
    stands: ``(first line, last line, sheet)`` with 1-based line numbers of ``text`` (blank lines
    around a sheet left out). ``sheet`` is preceded by ``first - 1`` empty lines, so that the
    line numbers the parser reports are those of ``text``."""
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if is_unit_line(line) or not chunks:
            chunks.append((number, [line]))
        else:
            chunks[-1][1].append(line)
    out = []
    for start, lines in chunks:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        if not filled:
            continue
        first, last = start + filled[0], start + filled[-1]
        out.append((first, last, "\n" * (first - 1) + "\n".join(lines[filled[0]:filled[-1] + 1])))
    return out


# ---------------------------------------------------------------------------------------------
# the handler of one message


@dataclass
class Outcome:
    """What handling one message decided (filled by :class:`Handler`)."""

    status: str = "done"
    rules: list[str] = field(default_factory=list)
    reply: tuple[str, dict[str, Any]] | None = None  # (template, context)
    html: str | None = None
    reply_subject: str | None = None
    deferred: Callable[[], tuple[str, dict[str, Any]]] | None = None  # after commit: (template, context)


class Handler:
    """Handles one stored message inside the caller's transaction."""

    def __init__(self, settings: Settings, session: Session, row: InboundMessage, now: dt.datetime,
                 factory: sessionmaker[Session]) -> None:
        self.settings, self.s, self.row, self.now, self.factory = settings, session, row, now, factory
        self.stage = "decode"
        self.out = Outcome()
        self.lang = "ja"
        self.player: Player | None = None
        self.mail: DecodedMail | None = None

    # -- helpers ---------------------------------------------------------------------------

    def reply(self, template: str, **context: Any) -> None:
        self.out.reply = (template, context)

    def refuse(self, rule: str, template: str | None = None, **context: Any) -> None:
        self.out.status = "refused"
        self.out.rules.append(rule)
        if template:
            self.reply(template, **context)

    def _plus_names(self) -> list[str]:
        msg = self.mail.message if self.mail else None
        if msg is None:
            return []
        values: list[str] = []
        for h in ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To"):
            try:
                values += [str(v) for v in (msg.get_all(h) or [])]
            except Exception:  # noqa: BLE001
                continue
        local = self.settings.server_address.split("@")[0].lower()
        names = []
        for _n, addr in getaddresses(values):
            lp = addr.split("@")[0]
            if "+" in lp and lp.split("+", 1)[0].lower() == local:
                names.append(lp.split("+", 1)[1])
        return list(dict.fromkeys(names))

    def _entered_leagues(self, mine: str) -> list[Any]:
        """The leagues the sender has an entry in, for the command ``mine``, not finished ones
        first, then the most recent first: ``standings`` any entry in any league; ``withdraw``
        a not withdrawn entry in a league that is not finished; ``entry`` any entry in an open
        league (a replacement or a re-entry)."""
        from app.db.models import Entry, League

        if self.player is None or self.player.id is None:
            return []
        q = (select(League).join(Entry, Entry.league_id == League.id)
             .where(Entry.player_id == self.player.id))
        if mine == "withdraw":
            q = q.where(Entry.status != "withdrawn", League.state != "finished")
        elif mine == "entry":
            q = q.where(League.state == "open")
        leagues = list(dict.fromkeys(self.s.scalars(q)))
        leagues.sort(key=lambda lg: (lg.state == "finished", -lg.id))
        return leagues

    def league(self, cmd: Command, *, any_state: bool = False, mine: str | None = None) -> Any | None:
        """The league the mail is about: the plus address, the ``[NAME]`` tag, then (``mine``
        given: ``standings``, ``withdraw``, ``entry``) the league the sender has an entry in
        (:meth:`_entered_leagues`; several not finished ones: ask which), then the only open one;
        sets a reply and returns ``None`` when it cannot be chosen."""
        svc = _service()
        names = self._plus_names()
        if names:
            league = svc.find_league(self.s, names[0])
            if league is None:
                self.refuse("no-such-league", "error", code="no-such-league", league=names[0],
                            open=[lg.name for lg in svc.open_leagues(self.s)])
            return league
        if cmd.tag:
            league = svc.find_league(self.s, cmd.tag)
            if league is None:
                self.refuse("no-such-league", "error", code="no-such-league", league=cmd.tag,
                            open=[lg.name for lg in svc.open_leagues(self.s)])
            return league
        opened = svc.open_leagues(self.s)
        entered = self._entered_leagues(mine) if mine else []
        if entered:
            current = [lg for lg in entered if lg.state != "finished"]
            pool = current or entered[:1]  # only finished leagues: the most recent one
            if mine == "withdraw" and any(lg.state == "open" for lg in pool):
                pool = [lg for lg in pool if lg.state == "open"]  # the ones it can work on
            if len(pool) == 1:
                return pool[0]
            self.refuse("which-league", "error", code="which-league", mine=[lg.name for lg in pool],
                        open=[lg.name for lg in opened])
            return None
        if len(opened) == 1:
            return opened[0]
        if any_state and not opened:
            every = svc.all_leagues(self.s)
            if every:
                return every[-1]
        self.refuse("which-league", "error", code="which-league", league=cmd.tag or "",
                    open=[lg.name for lg in opened])
        return None

    def sheet_text(self, cmd: Command) -> str:
        """The sheet of the mail: the body, or a text attachment holding a sheet; a greeting
        above the unit line is blanked (line numbers stay those of the mail) with a note."""
        text = cmd.body
        if not looks_like_sheet(cmd.body) and self.mail and self.mail.attachments:
            text = next((att for att in self.mail.attachments if looks_like_sheet(att)), cmd.body)
        skip = _rules().greeting_lines(text)
        lines = text.split("\n")
        if skip and any(line.strip() for line in lines[:skip]) and self.mail is not None:
            # (blank lines above the unit line, e.g. a blanked command line, are no greeting)
            text = "\n" * skip + "\n".join(lines[skip:])
            # only lines with text count (not blank lines nor the blanked command line)
            greeting = [n for n, line in enumerate(lines[:skip], start=1) if line.strip()]
            where = ", ".join(str(n) for n in greeting)
            self.mail.notes.append(
                f"ユニット行より前の{len(greeting)}行（{where}行目）は挨拶として読み飛ばしました"
                if self.lang == "ja" else
                f"{len(greeting)} line(s) above the unit line (line {where}) were read as a greeting "
                "and skipped")
        return text

    # -- the pipeline ----------------------------------------------------------------------

    def run(self) -> Outcome:
        settings, row = self.settings, self.row
        self.stage = "decode"
        mail = self.mail = decode_message(row.raw, max_lines=settings.max_lines,
                                          max_bytes=settings.max_mail_bytes)
        self.lang = mail.lang

        self.stage = "protect"
        rules = check_auto_reply(mail.message, ourselves=[settings.server_address])
        local, _, domain = settings.server_address.lower().partition("@")
        if mail.sender.startswith(local + "+") and mail.sender.endswith("@" + domain):
            rules.append("ourselves")
        if rules:
            self.out.status, self.out.rules = "ignored", rules
            return self.out
        failed_auth = check_authentication(mail.message)

        self.stage = "rate-limit"
        if not self._count_reply():
            return self.out

        self.stage = "command"
        cmd = parse_command(mail.subject, mail.text)
        no_command = False
        if cmd.source == "default" and cmd.name == "help" and any(looks_like_sheet(a) for a in mail.attachments):
            cmd.name = "entry"  # only an attached sheet: an entry, like a sheet in the body
        elif (cmd.source == "default" and cmd.name == "entry" and is_chat(mail.subject, cmd.body)
              and not any(looks_like_sheet(a) for a in mail.attachments)):
            # "Great game!" under a quoted battle report: no command, no sheet -> say so, with help
            cmd.name, no_command = "help", True
        self.row.command = cmd.name
        svc = _service()
        try:
            self.player = svc.get_or_create_player(self.s, mail.sender)
        except ValueError:  # an address the league layer cannot hold: nobody to answer
            self.out.status, self.out.rules = "ignored", ["bad-sender"]
            return self.out
        self.lang = cmd.lang or mail.lang
        if mail.charset == "iso-2022-jp":
            self.player.charset = "iso-2022-jp"
        if failed_auth and (settings.require_auth_results or self._league_requires_auth(cmd)):
            # a forged sender must not get mail from us: refuse without a reply
            self.out.status = "refused"
            self.out.rules += failed_auth
            return self.out
        if mail.too_large or row.size > settings.max_mail_bytes:
            self.refuse("too-large", "error", code="too-large", size=row.size,
                        limit=settings.max_mail_bytes)
            return self.out
        self.stage = f"command:{cmd.name}"
        if no_command:
            self.cmd_help(cmd, no_command=True)
        else:
            getattr(self, "cmd_" + cmd.name)(cmd)
        if self.out.reply is not None or self.out.deferred is not None:
            self.player.lang = self.lang
        return self.out

    def _league_requires_auth(self, cmd: Command) -> bool:
        svc = _service()
        names = self._plus_names() or ([cmd.tag] if cmd.tag else [])
        leagues = [svc.find_league(self.s, n) for n in names] or svc.open_leagues(self.s)
        return any(lg is not None and lg.require_auth for lg in leagues)

    def _count_reply(self) -> bool:
        """Count one reply for the sender today; False (and maybe one notice) over the limit."""
        day = self.now.date()
        addr = (self.mail.sender if self.mail else "") or self.row.sender
        counter = self.s.scalar(select(SenderCounter).where(
            SenderCounter.address == addr, SenderCounter.day == day))
        if counter is None:
            counter = SenderCounter(address=addr, day=day, count=0, noticed=False)
            self.s.add(counter)
        if counter.count >= self.settings.rate_limit_per_day:
            self.out.status = "refused"
            self.out.rules.append("rate-limit")
            if not counter.noticed:
                counter.noticed = True
                self.reply("error", code="rate-limit", limit=self.settings.rate_limit_per_day)
            return False
        counter.count += 1
        return True

    # -- commands --------------------------------------------------------------------------

    def cmd_help(self, cmd: Command, *, no_command: bool = False) -> None:
        """The help text; ``no_command``: led by "no command or sheet found" (a chatty mail)."""
        svc = _service()
        self.reply("help", words=WORDS, leagues=[lg.name for lg in svc.open_leagues(self.s)],
                   server=self.settings.server_address, no_command=no_command)

    def cmd_charset(self, cmd: Command) -> None:
        want = (cmd.args[0] if cmd.args else "").lower().replace("_", "-")
        table = {"iso-2022-jp": "iso-2022-jp", "jis": "iso-2022-jp", "iso2022jp": "iso-2022-jp",
                 "utf-8": "utf-8", "utf8": "utf-8", "unicode": "utf-8"}
        if want not in table:
            self.refuse("bad-charset", "error", code="bad-charset", value=want)
            return
        assert self.player is not None
        self.player.charset = table[want]
        self.reply("charset", charset=table[want])

    def _parse(self, text: str) -> Any:
        result = _rules().parse_sheet(text)
        self.lang = result.lang or self.lang
        return result

    def _problems(self, problems: list[Any], text: str) -> str:
        """The sheet's problems in words (``format_problems``), followed by a hint on the ``-- ``
        signature line when an ``unknown-line`` error stands below the unit line of ``text``
        (a sign-off such as "Thanks, / Bob" under the sheet; rules §1.3)."""
        out = _rules().format_problems(problems, self.lang)
        unit = next((n for n, line in enumerate(text.split("\n"), start=1) if is_unit_line(line)), None)
        if unit is not None and any(getattr(p, "code", "") == "unknown-line" and (p.line or 0) > unit
                                    for p in problems):
            out += "\n\n" + self._say(
                "ヒント: 結びの挨拶や名前はシートの下に書かず、シートの後に「-- 」（ハイフン2つと空白1つ）だけの"
                "署名区切り行を置いて、その下に書いてください。その行から下は読みません。",
                'Hint: closing remarks ("Thanks," and your name) go below a signature line "-- " '
                "(two hyphens and a space, alone on a line) after the sheet; nothing below that line "
                "is read.")
        return out

    def _sheet_context(self, result: Any, text: str = "") -> dict[str, Any]:
        rules = _rules()
        ctx: dict[str, Any] = {"ok": bool(result.ok and result.unit is not None),
                               "normalized": "", "costs": "", "problems": "",
                               "warnings": ""}
        if ctx["ok"]:
            ctx["normalized"] = rules.format_sheet(result.unit, self.lang)
            ctx["costs"] = rules.format_costs(result.unit, self.lang)
            warnings = list(getattr(result, "warnings", []) or [])
            ctx["warnings"] = rules.format_problems(warnings, self.lang) if warnings else ""
        else:
            ctx["problems"] = self._problems(list(result.problems), text)
        return ctx

    def cmd_check(self, cmd: Command) -> None:
        text = self.sheet_text(cmd)
        if not text.strip():
            self.refuse("no-sheet", "error", code="no-sheet")
            return
        self.reply("check", **self._sheet_context(self._parse(text), text))

    def _password_ok(self, league: Any, cmd: Command) -> bool:
        if league.password and (cmd.password or "") != league.password:
            self.refuse("password", "error", code="wrong-password" if cmd.password else "password",
                        league=league.name)
            return False
        return True

    def cmd_entry(self, cmd: Command) -> None:
        svc = _service()
        text = self.sheet_text(cmd)
        if not text.strip():
            self.refuse("no-sheet", "error", code="no-sheet")
            return
        league = self.league(cmd, mine="entry")
        if league is None or not self._password_ok(league, cmd):
            return
        from app.db.models import Entry

        before = self.s.scalar(select(Entry.status).where(Entry.league_id == league.id,
                                                          Entry.player_id == self.player.id))
        try:
            outcome = svc.submit_entry(self.s, league, self.player, text, inbound_id=self.row.id,
                                       now=self.now)
        except svc.LeagueError as exc:
            self.refuse(getattr(exc, "code", "league-error"), "error",
                        code=getattr(exc, "code", "league-error"), league=league.name, detail=str(exc))
            return
        self.lang = getattr(outcome.sheet, "lang", None) or self.lang
        ctx = self._sheet_context(outcome.sheet, text)
        reopened = bool(outcome.accepted and before == "withdrawn")
        self.reply("entry", league=league.name, accepted=outcome.accepted,
                   replaced=bool(outcome.replaced and before == "active"), reopened=reopened,
                   version=outcome.version, **ctx)

    def cmd_withdraw(self, cmd: Command) -> None:
        svc = _service()
        league = self.league(cmd, mine="withdraw")
        if league is None or not self._password_ok(league, cmd):
            return
        try:
            svc.withdraw(self.s, league, self.player, now=self.now)
        except svc.LeagueError as exc:
            self.refuse(getattr(exc, "code", "league-error"), "error",
                        code=getattr(exc, "code", "league-error"), league=league.name, detail=str(exc))
            return
        self.reply("withdrawn", league=league.name)

    def cmd_standings(self, cmd: Command) -> None:
        svc = _service()
        league = self.league(cmd, any_state=True, mine="standings")
        if league is None:
            return
        text = svc.render_standings(self.s, league, lang=self.lang, fmt="text")
        self.out.html = svc.render_standings(self.s, league, lang=self.lang, fmt="html")
        self.reply("standings", league=league.name, standings=text)

    def cmd_test(self, cmd: Command) -> None:
        rules = _rules()
        from app.reports.battle import render_battle

        text = self.sheet_text(cmd)
        sheets = split_sheets_at(text) if text.strip() else []
        if not sheets:
            self.refuse("no-sheet", "error", code="no-sheet")
            return
        parsed = [self._parse(t) for _first, _last, t in sheets[:2]]
        extra = len(sheets) - 2 if len(sheets) > 2 else 0
        bad = [{"which": i, "first": sheets[i][0], "last": sheets[i][1], "single": len(parsed) == 1,
                "problems": self._problems(list(p.problems), sheets[i][2])}
               for i, p in enumerate(parsed) if not (p.ok and p.unit is not None)]
        if bad:
            self.reply("test", reports=[], samples=False, bad=bad, extra=extra)
            return
        if len(parsed) >= 2:
            opponents = [parsed[1].unit]
        else:
            opponents = []
            for t in sample_units():
                r = rules.parse_sheet(t)
                if r.ok and r.unit is not None:
                    opponents.append(r.unit)
        me = parsed[0].unit
        texts, htmls = [], []
        for other in opponents:
            result = rules.battle(me, other, log=True)
            title = f"{me.name} ― {other.name}" if self.lang == "ja" else f"{me.name} vs {other.name}"
            texts.append(render_battle(me, other, result, lang=self.lang, fmt="text", title=title))
            htmls.append(render_battle(me, other, result, lang=self.lang, fmt="html", title=title))
        self.out.html = "\n<hr>\n".join(htmls)
        self.reply("test", reports=texts, samples=len(parsed) < 2, bad=[], extra=extra)

    # -- organizer commands ----------------------------------------------------------------
    #
    # Every organizer command checks its arguments, catches the league layer's errors
    # (LeagueError, ValueError, OverflowError) and answers with a reply that says in words what
    # was done, or why nothing was done.

    _ALL = ("all", "全部", "全て", "すべて")
    _MAX_AHEAD = dt.timedelta(days=3660)  # a deadline at most ~10 years ahead
    _MAX_EVERY = dt.timedelta(days=366)  # rounds at least once a year

    def _say(self, ja: str, en: str) -> str:
        return ja if self.lang == "ja" else en

    def _organizer(self, cmd: Command) -> bool:
        sender = self.mail.sender if self.mail else ""
        allowed = {a.lower() for a in self.settings.organizers}
        pw = self.settings.organizer_password
        if sender not in allowed or not pw or cmd.password != pw:
            self.refuse("not-organizer", "error", code="not-organizer")
            return False
        return True

    def _bad_arguments(self, usage: str, detail: str = "") -> None:
        self.refuse("bad-arguments", "error", code="bad-arguments", usage=usage, detail=detail)

    def _failed(self, action: str, league: str, exc: BaseException) -> None:
        self.refuse(getattr(exc, "code", "league-error"), "error", code="organizer-failed",
                    action=action, league=league, detail=_error_text(exc))

    def _target(self, cmd: Command, *, states: tuple[str, ...] | None = None) -> Any | None:
        """The league named by the first argument, else by the plus address / tag, else the
        only league in one of ``states`` (``None``: open leagues); sets an error reply and
        returns ``None`` when it cannot be chosen."""
        svc = _service()
        if cmd.args:
            league = svc.find_league(self.s, cmd.args[0])
            if league is None:
                self.refuse("no-such-league", "error", code="no-such-league", league=cmd.args[0],
                            open=[lg.name for lg in svc.open_leagues(self.s)])
            return league
        if states is None or self._plus_names() or cmd.tag:
            return self.league(cmd)
        candidates = [lg for lg in svc.all_leagues(self.s) if lg.state in states]
        if len(candidates) == 1:
            return candidates[0]
        self.refuse("which-league", "error", code="which-league", league="", action=cmd.name,
                    open=[lg.name for lg in candidates])
        return None

    def cmd_open(self, cmd: Command) -> None:
        if not self._organizer(cmd):
            return
        svc = _service()
        from app.league.timeparse import parse_duration, parse_instant

        usage = "open NAME [DEADLINE] [EVERY]"
        if not cmd.args or len(cmd.args) > 3:
            self._bad_arguments(usage)
            return
        try:
            deadline = parse_instant(cmd.args[1], self.now) if len(cmd.args) > 1 else \
                self.now + dt.timedelta(days=7)
            if deadline > self.now + self._MAX_AHEAD:
                raise ValueError(f"the deadline {cmd.args[1]!r} is more than 10 years ahead")
            every = parse_duration(cmd.args[2]) if len(cmd.args) > 2 else None
            if every is not None and every > self._MAX_EVERY:
                raise ValueError(f"the interval {cmd.args[2]!r} is longer than a year")
        except (ValueError, OverflowError) as exc:
            self._bad_arguments(usage, _error_text(exc))
            return
        try:
            with self.s.begin_nested():
                league = svc.create_league(self.s, cmd.args[0], entry_deadline=deadline,
                                           rounds_every=every, now=self.now)
        except (ValueError, OverflowError, svc.LeagueError) as exc:
            self._failed("open", cmd.args[0], exc)
            return
        until = _when(league.entry_deadline)
        if every is None:
            rounds = self._say("対戦は主催者が実行コマンドで行います。", "rounds are played when you run them.")
        else:
            rounds = self._say(f"対戦は{_span(every, 'ja')}ごと。", f"a round every {_span(every, 'en')}.")
        self.reply("organizer", action="open", league=league.name, summary=self._say(
            f"リーグ {league.name} を開設しました。エントリー締切 {until}、{rounds}",
            f"League {league.name} opened: entries until {until}; {rounds}"))

    def cmd_close(self, cmd: Command) -> None:
        if not self._organizer(cmd):
            return
        svc = _service()
        if len(cmd.args) > 1:
            self._bad_arguments("close [NAME]")
            return
        league = self._target(cmd)
        if league is None:
            return
        try:
            with self.s.begin_nested():
                svc.close_entries(self.s, league, now=self.now, settings=self.settings)
        except (ValueError, OverflowError, svc.LeagueError) as exc:
            self._failed("close", league.name, exc)
            return
        self.s.refresh(league)
        players = len([e for e in league.entries if e.seat is not None and e.status == "active"])
        rounds = list(league.rounds)
        if not rounds:
            summary = self._say(
                f"リーグ {league.name} のエントリーを締め切りました。参加者 {players} 人で対戦がないため、リーグは終了です。",
                f"Entries of {league.name} closed: {players} player(s), too few for a battle; "
                "the league is finished.")
        else:
            first = rounds[0].scheduled_at
            at_ja = f"第1回戦は {_when(first)}" if first else "第1回戦は実行コマンドで行います"
            at_en = f"round 1 at {_when(first)}" if first else "round 1 when you run it"
            summary = self._say(
                f"リーグ {league.name} のエントリーを締め切りました。参加者 {players} 人、全 {len(rounds)} 回戦、{at_ja}。",
                f"Entries of {league.name} closed: {players} players, {len(rounds)} rounds; {at_en}.")
        self.reply("organizer", action="close", league=league.name, summary=summary)

    def cmd_run(self, cmd: Command) -> None:
        if not self._organizer(cmd):
            return
        usage = "run [NAME] [all]"
        args = list(cmd.args)
        all_rounds = False
        if args and args[-1] in self._ALL:
            all_rounds = True
            args.pop()
        if len(args) > 1:
            self._bad_arguments(usage)
            return
        league = self._target(Command(name=cmd.name, args=args, tag=cmd.tag),
                              states=("closed", "running"))
        if league is None:
            return
        name, settings, factory, now, lang = league.name, self.settings, self.factory, self.now, self.lang

        def later() -> tuple[str, dict[str, Any]]:
            svc = _service()
            try:
                done = svc.run_round(factory, settings, name, all_rounds=all_rounds, now=now)
            except (ValueError, OverflowError, svc.LeagueError) as exc:
                return "error", {"code": "organizer-failed", "action": "run", "league": name,
                                 "detail": _error_text(exc)}
            return "organizer", {"action": "run", "league": name,
                                 "summary": _run_summary(factory, name, done, lang)}

        self.out.deferred = later

    def cmd_resend(self, cmd: Command) -> None:
        if not self._organizer(cmd):
            return
        usage = "resend [NAME] ROUND"
        if not cmd.args or len(cmd.args) > 2 or not cmd.args[-1].isdigit() \
                or not 1 <= int(cmd.args[-1]) <= 10_000:
            self._bad_arguments(usage, self._say("回戦は 1 以上の数で指定してください",
                                                 "the round is a number from 1"))
            return
        number = int(cmd.args[-1])
        league = self._target(Command(name=cmd.name, args=cmd.args[:-1], tag=cmd.tag),
                              states=("closed", "running", "finished"))
        if league is None:
            return
        name, settings, factory, lang = league.name, self.settings, self.factory, self.lang

        def later() -> tuple[str, dict[str, Any]]:
            svc = _service()
            try:
                n = svc.resend(factory, settings, name, number)
            except (ValueError, OverflowError, svc.LeagueError) as exc:
                return "error", {"code": "organizer-failed", "action": "resend", "league": name,
                                 "detail": _error_text(exc)}
            summary = (f"リーグ {name} の第{number}回戦の対戦報告と順位表を再送します（{n} 通）。" if lang == "ja"
                       else f"Round {number} of {name} sent again: {n} mails (reports and standings) queued.")
            return "organizer", {"action": "resend", "league": name, "summary": summary}

        self.out.deferred = later


def _error_text(exc: BaseException) -> str:
    """The message of an error for a reply (never the exception's class name)."""
    if isinstance(exc, OverflowError):
        return "a date or number is out of range"
    text = str(exc.args[0]) if exc.args else str(exc)
    return text or "the command could not be done"


def _when(value: dt.datetime | None) -> str:
    """``2026-12-02 14:22 UTC``."""
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _span(value: dt.timedelta, lang: str) -> str:
    """A span in words: ``2 days``, ``12 hours``, ``90 minutes`` (``2日``, ``12時間``, ``90分``)."""
    seconds = int(value.total_seconds())
    for size, ja, en in ((86400, "日", "day"), (3600, "時間", "hour"), (60, "分", "minute"), (1, "秒", "second")):
        if seconds % size == 0:
            n = seconds // size
            return f"{n}{ja}" if lang == "ja" else f"{n} {en}{'s' if n != 1 else ''}"
    return str(value)


def _run_summary(factory: sessionmaker[Session], name: str, done: list[int], lang: str) -> str:
    """What ``run`` did, in words: one line per round played (battles fought, reports queued)."""
    from app.db.models import Battle, League, OutboxMessage, Round

    svc = _service()
    with factory() as s:
        league = svc.find_league(s, name)
        if not done or league is None:
            return (f"リーグ {name} に実行する回戦はありません（すべて実行済み）。" if lang == "ja"
                    else f"Nothing to run in {name}: every round is played.")
        lines = []
        for number in done:
            rnd = s.scalar(select(Round).where(Round.league_id == league.id, Round.number == number))
            battles = [b for b in s.scalars(select(Battle).where(Battle.round_id == rnd.id))
                       if b.entry_b_id is not None] if rnd is not None else []
            reports = 0
            for b in battles:
                reports += len(list(s.scalars(select(OutboxMessage.id).where(
                    OutboxMessage.dedupe_key.in_([f"report:{b.id}:0", f"report:{b.id}:1"])))))
            lines.append(f"リーグ {name} の第{number}回戦を実行しました。対戦 {len(battles)}、対戦報告 {reports} 通。"
                         if lang == "ja" else
                         f"Round {number} of {name} played: {len(battles)} battles, {reports} reports queued.")
        state = s.scalar(select(League.state).where(League.id == league.id))
        if state == "finished":
            lines.append("全回戦が終わり、リーグは終了しました。" if lang == "ja"
                         else "Every round is played: the league is finished.")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# driving


def _queue_reply(session: Session, settings: Settings, row: InboundMessage, mail: DecodedMail,
                 player: Player | None, lang: str, template: str, context: dict[str, Any],
                 html: str | None, now: dt.datetime) -> None:
    plus_local, _, plus_domain = settings.server_address.partition("@")
    base = {"lang": lang, "subject": mail.subject, "cut_lines": mail.cut_lines,
            "plus_local": plus_local, "plus_domain": plus_domain or "localhost",
            "max_lines": settings.max_lines, "notes": mail.notes, "server": settings.server_address,
            "league": "", "detail": "", "open": [], "mine": [], "code": "", "action": "", "summary": ""}
    base.update(context)
    text = render_mail(template, lang, **base)
    msg = mail.message
    try:
        in_reply_to = str(msg.get("Message-ID") or "").strip() or None
        refs = str(msg.get("References") or "").split()
    except Exception:  # noqa: BLE001
        in_reply_to, refs = None, []
    charset = player.charset if player is not None else "utf-8"
    to = mail.sender or row.sender
    out = build_message(
        sender=settings.server_address, sender_name=settings.server_name, to=to,
        subject=reply_subject(mail.subject or "Amaryllis"), text=text, html=html,
        in_reply_to=in_reply_to, references=refs, charset=charset, now=now,
    )
    enqueue(session, dedupe_key=f"reply:{row.id}", message=out, kind="reply", inbound_id=row.id)


def process_one(settings: Settings, factory: sessionmaker[Session], inbound_id: int, *,
                now: dt.datetime | None = None) -> str | None:
    """Process one stored message (see the module docstring). Returns its new status, or
    ``None`` when it was not in status ``stored``. Never raises for a bad message."""
    now = now or utcnow()
    handler: Handler | None = None
    try:
        with transaction(factory) as s:
            row = s.get(InboundMessage, inbound_id)
            if row is None or row.status != "stored":
                return None
            handler = Handler(settings, s, row, now, factory)
            out = handler.run()
            handler.stage = "reply"
            if out.reply is not None and handler.mail is not None:
                template, ctx = out.reply
                _queue_reply(s, settings, row, handler.mail, handler.player, handler.lang, template,
                             ctx, out.html, now)
            row.status = out.status
            row.rules = out.rules or None
            row.processed_at = now
            row.error = None
            status = out.status
    except Exception as exc:  # noqa: BLE001 - shunt the message, go on with the next
        stage = handler.stage if handler is not None else "load"
        log.exception("inbound #%s shunted at %s", inbound_id, stage)
        with transaction(factory) as s:
            row = s.get(InboundMessage, inbound_id)
            if row is not None:
                row.status = "shunted"
                row.error = f"{stage}: {type(exc).__name__}: {exc}"[:4000]
                row.processed_at = now
        return "shunted"
    if handler is not None and handler.out.deferred is not None:
        try:
            template, ctx = handler.out.deferred()
        except Exception:  # noqa: BLE001 - a bug: logged, and the organizer still gets an answer
            log.exception("organizer command of inbound #%s failed", inbound_id)
            ctx, template = {"code": "organizer-failed", "action": handler.stage.rpartition(":")[2],
                             "detail": "an internal error; it is in the server log"}, "error"
        with transaction(factory) as s:
            row = s.get(InboundMessage, inbound_id)
            player = s.scalar(select(Player).where(Player.address == (handler.mail.sender if handler.mail else "")))
            assert row is not None and handler.mail is not None
            _queue_reply(s, settings, row, handler.mail, player, handler.lang, template, ctx, None, now)
    return status


def process_pending(settings: Settings, factory: sessionmaker[Session], *,
                    now: dt.datetime | None = None, limit: int | None = None) -> int:
    """Process every ``stored`` inbound message in id order. Returns how many were processed."""
    with factory() as s:
        q = select(InboundMessage.id).where(InboundMessage.status == "stored").order_by(InboundMessage.id)
        if limit:
            q = q.limit(limit)
        ids = list(s.scalars(q))
    n = 0
    for inbound_id in ids:
        if process_one(settings, factory, inbound_id, now=now) is not None:
            n += 1
    return n


def requeue_shunted(factory: sessionmaker[Session], ids: list[int] | None = None) -> int:
    """Put shunted messages (all, or those in ``ids``) back to ``stored``. Returns the count."""
    with transaction(factory) as s:
        q = select(InboundMessage).where(InboundMessage.status == "shunted")
        if ids:
            q = q.where(InboundMessage.id.in_(ids))
        rows = list(s.scalars(q))
        for row in rows:
            row.status, row.error = "stored", None
        return len(rows)
