"""Protection: when the server must not answer a mail, must refuse it, or must limit it.

The table :data:`CHAIN` is Mailman's chain: an ordered list of named rules, each an object with a
``name``, a ``description`` and ``check(ctx)`` returning a :class:`Verdict` (stop here) or
``None`` (go on). The pipeline runs it after decoding and parsing the command, before the command
itself, and records the names that matched in ``InboundMessage.rules``. The order matters and is
the design (``docs/mail.md``, Limits):

1. ``auto-reply`` — loops and robots (bounce, auto-submitted, list, ourselves, no or unusable
   sender): ``ignored``, no reply (RFC 3834 §2).
2. ``authentication`` — with ``require_auth_results`` (or the league's ``require_auth``), a mail
   whose From domain did not pass at *our* receiving server (its ``Authentication-Results``,
   found by ``authserv_id``; RFC 8601) is ``refused`` without a reply: the From is probably
   forged, and a reply would be backscatter.
3. ``lockout`` — an address that sent ``password_attempts`` wrong organizer passwords, league
   passwords or entry keys today is refused for that purpose until the next UTC day (one alert
   to the organizers when it starts).
4. ``rate-limit`` — every mail counts toward its address's daily limit (``rate_limit_per_day``
   per UTC day, then one notice); a mail with a proof (DMARC pass, the organizer password, a
   valid entry key or confirmation token: :func:`proof`) is counted on a counter of its own, so
   forged mail cannot use up its owner's quota for proven mail.
5. ``unknown-senders`` — replies to addresses the server has never seen, for all of them together
   per UTC hour (``unknown_replies_per_hour``): a flood of forged senders gets no backscatter
   beyond that (one notice to the organizers per hour).
6. ``too-large`` — over ``max_mail_bytes`` with no text part within it: a reply says so.

Authentication comes before every counter, so forged mail counts against nobody once
``require_auth_results`` is on. Sources: RFC 3834 (automatic responses), RFC 2369/2919
(``List-*``), RFC 3464 (``multipart/report``), RFC 8601 (``Authentication-Results``, parsed with
the ``authres`` library), RFC 7489 §3.1 (identifier alignment: a DMARC result's
``header.from`` must be the From domain; DKIM/SPF relaxed, without the public-suffix list:
:func:`aligned`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import Message
from email.utils import getaddresses
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import SenderCounter

log = logging.getLogger(__name__)

BOUNCE_LOCALPARTS = ("mailer-daemon", "postmaster", "mail-daemon", "mailer_daemon")
LIST_HEADERS = (
    "List-Id",
    "List-Unsubscribe",
    "List-Post",
    "List-Help",
    "List-Owner",
    "List-Archive",
)
#: characters of one ``Authentication-Results`` header that are parsed, and headers looked at
MAX_AUTH_HEADER = 2000
MAX_AUTH_HEADERS = 20


def _get(msg: Message, name: str) -> str | None:
    """The first header ``name`` as written (not parsed: the ``email`` header parser is slow on
    long values), at most 4,000 characters; ``None`` when absent."""
    want = name.lower()
    try:
        for key, value in msg.raw_items():
            if key.lower() == want:
                return " ".join(str(value)[:4000].split())
    except Exception:
        return ""
    return None


def _addresses(value: str | None) -> list[str]:
    if not value:
        return []
    try:
        return [a.strip().lower() for _n, a in getaddresses([value]) if a]
    except Exception:
        return []


def check_auto_reply(msg: Message, *, ourselves: Iterable[str] = ()) -> list[str]:
    """Names of the rules that forbid an automatic reply to ``msg`` (empty list: a reply is allowed).

    Rules (RFC 3834 §2):
        ``bounce``: empty Return-Path (``<>``), a MAILER-DAEMON/postmaster sender, or a
            ``multipart/report`` delivery status notification.
        ``auto-submitted``: ``Auto-Submitted`` present with any value other than ``no``; also the
            older ``X-Autoreply``/``X-Autorespond``/``Precedence: auto_reply`` markers.
        ``list``: ``Precedence: bulk|list|junk`` or any ``List-*`` header.
        ``ourselves``: the From address is one of ``ourselves`` (a loop).
        ``no-sender``: no From address at all.
    """
    rules: list[str] = []
    return_path = _get(msg, "Return-Path")
    froms = _addresses(_get(msg, "From"))
    sender = froms[0] if froms else ""
    if return_path is not None and return_path.strip() in ("<>", ""):
        rules.append("bounce")
    elif any(a.split("@")[0] in BOUNCE_LOCALPARTS for a in froms + _addresses(return_path)):
        rules.append("bounce")
    elif msg.get_content_type() == "multipart/report":
        rules.append("bounce")
    auto = (_get(msg, "Auto-Submitted") or "").strip().lower()
    precedence = (_get(msg, "Precedence") or "").strip().lower()
    if (
        (auto and not auto.startswith("no"))
        or _get(msg, "X-Autoreply") is not None
        or _get(msg, "X-Autorespond") is not None
        or precedence == "auto_reply"
    ):
        rules.append("auto-submitted")
    if precedence in ("bulk", "list", "junk") or any(
        _get(msg, h) is not None for h in LIST_HEADERS
    ):
        rules.append("list")
    ours = {a.lower() for a in ourselves}
    if sender and sender in ours:
        rules.append("ourselves")
    if not sender:
        rules.append("no-sender")
    return rules


# ---------------------------------------------------------------------------------------------
# authentication (RFC 8601, RFC 7489)


@dataclass(frozen=True)
class AuthResult:
    """What our receiving server said about a mail's sender.

    Attributes:
        found: a header with our ``authserv_id`` was there (and could be parsed).
        passed: the From domain is authenticated: a ``dmarc=pass`` whose ``header.from`` is the
            From domain itself; or, without such a DMARC result, a ``dkim=pass`` whose
            ``header.d`` or an ``spf=pass`` whose ``smtp.mailfrom`` domain is aligned with the
            From domain (:func:`aligned`: the same domain, or one a subdomain of the other).
        failures: rule names when not ``passed``: ``auth-missing`` (no header of ours),
            ``auth-unreadable``, ``dmarc-fail``, ``dkim-fail``, ``spf-fail``, ``not-aligned``
            (nothing that passed names the From domain, e.g. ``dmarc=pass
            header.from=evil.test`` on a mail from ``alice@example.org``).
    """

    found: bool
    passed: bool
    failures: tuple[str, ...] = ()


def _domain(value: str) -> str:
    """``value`` as a comparable domain: stripped, lower case, no final dot, IDNA A-labels
    (``例え.jp`` → ``xn--r8jz45g.jp``, as an MTA may write it; RFC 5891). ``""`` when empty."""
    d = value.strip().lower().rstrip(".")
    if d and not d.isascii():
        try:
            d = d.encode("idna").decode("ascii")
        except UnicodeError:
            pass
    return d


def same_domain(domain: str, from_domain: str) -> bool:
    """True when ``domain`` is ``from_domain`` (both through :func:`_domain`). The test of a
    DMARC result's ``header.from`` (RFC 7489 §11.2; RFC 8601 ``header.from``): it names the
    RFC5322.From domain the MTA evaluated, the very identifier we read from the same header, so
    anything but equality means the MTA judged another From than ours. Never raises."""
    d, f = _domain(domain), _domain(from_domain)
    return bool(d) and d == f


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed identifier alignment without a public-suffix list (RFC 7489 §3.1, §3.2): True
    when the DKIM ``d=`` or SPF MAIL FROM ``domain`` and the From domain are the same, or one is
    a subdomain of the other (``mail.example.org`` and ``example.org``), and the shorter of the
    two has at least two labels (so ``org`` aligns with nothing). Stricter than DMARC's
    organizational-domain test in one way (siblings such as ``a.example.org`` and
    ``b.example.org`` do not align: that needs the public-suffix list), never looser except where
    the shorter domain is itself a public suffix of two labels (``co.uk``), whose DKIM keys and
    SPF records its registry, not a registrant, publishes. Never raises."""
    d, f = _domain(domain), _domain(from_domain)
    if not (d and f):
        return False
    if d == f:
        return True
    shorter, longer = (d, f) if len(d) < len(f) else (f, d)
    return shorter.count(".") >= 1 and longer.endswith("." + shorter)


def _raw_headers(msg: Message, name: str) -> list[str]:
    want = name.lower()
    try:
        return [str(v)[: 4 * MAX_AUTH_HEADER] for k, v in msg.raw_items() if k.lower() == want][
            :MAX_AUTH_HEADERS
        ]
    except Exception:
        return []


def _property(result: Any, ptype: str, name: str) -> str:
    """The value of property ``ptype.name`` of an ``authres`` result (``header.from``), ``""``
    when absent."""
    for prop in getattr(result, "properties", None) or ():
        if str(prop.type).lower() == ptype and str(prop.name).lower() == name:
            return str(prop.value or "")
    return ""


def authenticate(msg: Message, *, authserv_id: str, from_domain: str) -> AuthResult:
    """Judge ``msg`` by the topmost ``Authentication-Results`` header whose authserv-id is
    ``authserv_id`` (our MTA adds it on top and must strip forged copies of it, RFC 8601 §5;
    headers of other servers are ignored, as are comments and every method but dkim, spf and
    dmarc). One header is read up to :data:`MAX_AUTH_HEADER` characters.

    The decision, in order (``from_domain``: the domain of the From address we read):

    1. a DMARC result (RFC 7489 §11.2) whose ``header.from`` names another domain
       (:func:`same_domain`): ``not-aligned`` — the MTA judged another From than ours (a
       second From header, a parser difference), so nothing of this header is trusted;
    2. ``dmarc=pass`` with ``header.from`` = the From domain: passed (a ``dkim=fail`` next to it,
       a second broken signature, does not fail the mail);
    3. ``dmarc=fail`` (for the From domain, or naming none): ``dmarc-fail``;
    4. a ``dkim=pass`` whose ``header.d``, or an ``spf=pass`` whose ``smtp.mailfrom`` domain, is
       :func:`aligned` with the From domain: passed (a ``dmarc=pass`` without ``header.from``
       proves nothing by itself and lands here);
    5. else ``dkim-fail``/``spf-fail`` when one of them failed, or ``not-aligned``.

    Returns an :class:`AuthResult`; never raises."""
    import authres

    if not authserv_id:
        return AuthResult(False, False, ("auth-missing",))
    want = authserv_id.strip().lower()
    for value in _raw_headers(msg, "Authentication-Results"):
        text = " ".join(value.split())[:MAX_AUTH_HEADER]
        if text.split(";", 1)[0].strip().split(" ")[0].lower() != want:
            continue
        try:
            header = authres.AuthenticationResultsHeader.parse_value(text)
        except Exception:
            return AuthResult(True, False, ("auth-unreadable",))
        results = [(str(r.method).lower(), str(r.result).lower(), r) for r in header.results]
        dmarc = [(res, _property(r, "header", "from")) for m, res, r in results if m == "dmarc"]
        if any(hfrom and not same_domain(hfrom, from_domain) for _res, hfrom in dmarc):
            return AuthResult(True, False, ("not-aligned",))
        if any(res == "pass" and hfrom for res, hfrom in dmarc):
            return AuthResult(True, True)
        if any(res == "fail" for res, _hfrom in dmarc):
            return AuthResult(True, False, ("dmarc-fail",))
        for method, result, r in results:
            if result != "pass":
                continue
            if method == "dkim" and aligned(_property(r, "header", "d"), from_domain):
                return AuthResult(True, True)
            if method == "spf":
                mailfrom = _property(r, "smtp", "mailfrom")
                if aligned(mailfrom.rpartition("@")[2], from_domain):
                    return AuthResult(True, True)
        failures = [
            f"{m}-fail"
            for m in ("dkim", "spf")
            if any(mm == m and res in ("fail", "softfail", "permerror") for mm, res, _ in results)
        ]
        return AuthResult(True, False, tuple(failures) or ("not-aligned",))
    return AuthResult(False, False, ("auth-missing",))


def check_authentication(
    msg: Message, *, authserv_id: str | None = None, from_domain: str = ""
) -> list[str]:
    """Rule names of a failed sender authentication (:func:`authenticate`), ``[]`` when the From
    domain passed at our server. Without ``authserv_id`` nothing can be trusted:
    ``["auth-missing"]``."""
    result = authenticate(msg, authserv_id=authserv_id or "", from_domain=from_domain)
    return [] if result.passed else list(result.failures)


# ---------------------------------------------------------------------------------------------
# counters per purpose


def counter(session: Session, address: str, purpose: str, day: dt.date) -> SenderCounter:
    """The counter of ``purpose`` for ``address`` on ``day``, created at 0 when new (an
    ``INSERT … ON CONFLICT DO NOTHING RETURNING`` on SQLite and PostgreSQL: another process may
    create it at the same moment, and then it is read again)."""
    q = select(SenderCounter).where(
        SenderCounter.address == address, SenderCounter.day == day, SenderCounter.purpose == purpose
    )
    row = session.scalar(q)
    if row is not None:
        return row
    dialect = session.get_bind().dialect.name
    values = dict(address=address, day=day, purpose=purpose, count=0, noticed=False)
    if dialect in ("sqlite", "postgresql"):
        from sqlalchemy.dialects import postgresql, sqlite

        insert: Any = sqlite.insert if dialect == "sqlite" else postgresql.insert
        # the new row comes back from the INSERT itself (RETURNING, SQLite >= 3.35); nothing
        # when another transaction created it first: then it is read below
        created = session.scalars(
            insert(SenderCounter).values(**values).on_conflict_do_nothing().returning(SenderCounter)
        ).first()
        if created is not None:
            return created
    else:  # pragma: no cover - other databases: a savepoint around a plain insert
        try:
            with session.begin_nested():
                session.add(SenderCounter(**values))
        except IntegrityError:
            pass
    row = session.scalar(q)
    assert row is not None
    return row


def locked(session: Session, address: str, purpose: str, now: dt.datetime, limit: int) -> bool:
    """True when ``address`` reached ``limit`` failures of ``purpose`` today."""
    row = session.scalar(
        select(SenderCounter).where(
            SenderCounter.address == address,
            SenderCounter.day == now.date(),
            SenderCounter.purpose == purpose,
        )
    )
    return row is not None and row.count >= limit


def lockout_end(now: dt.datetime) -> str:
    """When a lockout that starts at ``now`` ends: the next UTC midnight, as
    ``YYYY-MM-DD 00:00 UTC`` (:func:`app.reports.dates.human_time`)."""
    from app.reports.dates import human_time

    day = (now.astimezone(dt.timezone.utc) + dt.timedelta(days=1)).date()
    return human_time(dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc))


def count_failure(
    session: Session, settings: Any, address: str, purpose: str, now: dt.datetime
) -> bool:
    """Count one wrong password or key of ``purpose`` from ``address``. When that makes
    ``password_attempts`` today, the lockout starts: one notice to the organizers (digested,
    ``app.mail.notices``). Returns True when the address is now locked out for ``purpose``.
    The failure that reaches the limit is the only one answered with the lockout's end
    (:func:`lockout_end`); mail after it is refused by the ``lockout`` rule without a reply."""
    from app.mail.notices import notify_organizers

    row = counter(session, address, purpose, now.date())
    row.count += 1
    limit = settings.password_attempts
    if row.count >= limit and not row.noticed:
        row.noticed = True
        notify_organizers(
            session,
            settings,
            key=f"lockout:{purpose}:{address}:{now.date()}",
            now=now,
            subject=f"[amaryllis] {address} locked out ({purpose})",
            text=(
                f"{address} sent {row.count} wrong values for {purpose} today (UTC). Mail from "
                f"it that needs one is refused without a reply until the next UTC day.\n"
                "If the address was forged, turning on require_auth_results (with authserv_id) "
                "makes such mail be refused before it counts.\n"
            ),
        )
        log.warning("lockout of %s for %s after %d failures", address, purpose, row.count)
    return row.count >= limit


# ---------------------------------------------------------------------------------------------
# the chain


@dataclass(frozen=True)
class Verdict:
    """A rule's decision: ``status`` ``ignored`` (no reply, a robot) or ``refused``; ``rules``
    the names to record; ``reply`` a ``(template, context)`` to answer with, or ``None``."""

    status: str
    rules: tuple[str, ...]
    reply: tuple[str, dict[str, Any]] | None = None


@dataclass
class RuleContext:
    """What a rule may look at. ``proof`` is computed once on demand (:func:`proof`)."""

    settings: Any
    session: Session
    mail: Any  # app.mail.decode.DecodedMail
    cmd: Any  # app.mail.grammar.Command
    size: int
    now: dt.datetime
    auth: AuthResult
    requires_auth: Callable[[], bool]
    known_sender: bool
    organizer: bool  # the command is an organizer's
    prove: Callable[[], str | None]
    _proof: list[str | None] = field(default_factory=list)

    @property
    def sender(self) -> str:
        return str(self.mail.sender or "")

    def proof(self) -> str | None:
        """:func:`proof` of this mail, computed once."""
        if not self._proof:
            self._proof.append(self.prove())
        return self._proof[0]


class Rule:
    """A named protection rule (Mailman style): ``check(ctx)`` returns a :class:`Verdict` to stop
    the chain, or ``None``."""

    name = ""
    description = ""

    def check(self, ctx: RuleContext) -> Verdict | None:  # pragma: no cover - interface
        raise NotImplementedError


class AutoReply(Rule):
    name = "auto-reply"
    description = (
        "bounces, auto-replies, lists, our own mail and mail without a usable sender "
        "are never answered (RFC 3834)"
    )

    def check(self, ctx: RuleContext) -> Verdict | None:
        settings = ctx.settings
        rules = check_auto_reply(ctx.mail.message, ourselves=[settings.server_address])
        local, _, domain = settings.server_address.lower().partition("@")
        sender = ctx.sender
        if sender.startswith(local + "+") and sender.endswith("@" + domain):
            rules.append("ourselves")
        if not rules and not sender:
            rules.append("bad-sender")  # a From we cannot take as one address (RFC 5322)
        return Verdict("ignored", tuple(dict.fromkeys(rules))) if rules else None


class Authentication(Rule):
    name = "authentication"
    description = (
        "with require_auth_results (or the league's require_auth), mail whose From "
        "domain did not pass DMARC/DKIM/SPF at our receiving server is refused silently"
    )

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.auth.passed:
            return None
        if ctx.settings.require_auth_results or ctx.requires_auth():
            return Verdict("refused", ctx.auth.failures or ("auth-missing",))
        return None


class Lockout(Rule):
    """Refuse the day's mail of an address that sent ``password_attempts`` wrong values.

    An entry key's lockout lets through mail that proves itself anyway (DMARC, or the right
    key): the sender is the key's owner's address, which a forger can write, so refusing the
    right key would let anyone lock an owner out of their entry by mailing wrong keys in the
    owner's name; guessing gains nothing from it, as a key holds 36^8 values and the address's
    daily limit (``rate_limit_per_day``) bounds the guesses. Wrong keys stay refused unanswered.
    Passwords stay locked whatever is sent: they are shared (the organizer's, a league's)."""

    name = "lockout"
    description = (
        "an address with password_attempts wrong organizer passwords, league passwords "
        "or entry keys today is refused for that purpose until the next UTC day"
    )

    def check(self, ctx: RuleContext) -> Verdict | None:
        limit = ctx.settings.password_attempts
        purposes = []
        if ctx.organizer:
            purposes.append("password:organizer")
        elif ctx.cmd.password is not None:
            purposes.append("password:league")
        if ctx.cmd.key is not None:
            purposes.append("key")
        for purpose in purposes:
            if purpose == "key" and ctx.proof() in ("dmarc", "entry-key"):
                continue  # the owner's own proof: see the class docstring
            if locked(ctx.session, ctx.sender, purpose, ctx.now, limit):
                return Verdict("refused", ("locked-out",))
        return None


class RateLimit(Rule):
    name = "rate-limit"
    description = (
        "every mail counts toward its sender's daily limit (rate_limit_per_day), "
        "then one notice; mail with a proof (DMARC, organizer password, entry key, "
        "confirmation) is counted apart, so forgeries cannot silence it"
    )

    def check(self, ctx: RuleContext) -> Verdict | None:
        """Count this mail for its sender and UTC day, or refuse it when the count reached
        ``rate_limit_per_day`` (the first refusal answered with one notice, later ones silent).

        Every mail counts, keyed or not (issue 20: 60 keyed replacements got 61 replies with a
        limit of 50). Mail with a :func:`proof` counts on its own counter (purpose
        ``reply:proven``), the rest on ``reply``: without ``require_auth_results`` a forger can
        use up an address's ``reply`` count, but not the owner's proven one. So one address gets
        at most ``2 × rate_limit_per_day`` answers a day plus a notice per counter; with
        ``require_auth_results`` every answered mail is proven and the bound is the limit."""
        limit = ctx.settings.rate_limit_per_day
        purpose = "reply" if ctx.proof() is None else "reply:proven"
        row = counter(ctx.session, ctx.sender, purpose, ctx.now.date())
        if row.count >= limit:
            if row.noticed:
                return Verdict("refused", ("rate-limit",))
            row.noticed = True
            return Verdict(
                "refused", ("rate-limit",), ("error", {"code": "rate-limit", "limit": limit})
            )
        row.count += 1
        return None


class UnknownSenders(Rule):
    name = "unknown-senders"
    description = (
        "replies to senders the server has never seen, all together, per UTC hour "
        "(unknown_replies_per_hour); over it: no reply and one notice per hour"
    )

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.known_sender or ctx.proof() is not None:
            return None
        from sqlalchemy import func

        from app.db.models import Player
        from app.mail.notices import notify_organizers

        # every new sender that passes gets a player row (created_at = the mail's time) and a
        # reply: counting this hour's new players counts those replies, with no shared counter
        # row that every mail would have to lock
        start = ctx.now.astimezone(dt.timezone.utc).replace(minute=0, second=0, microsecond=0)
        answered = (
            ctx.session.scalar(
                select(func.count(Player.id)).where(
                    Player.created_at >= start, Player.created_at < start + dt.timedelta(hours=1)
                )
            )
            or 0
        )
        limit = ctx.settings.unknown_replies_per_hour
        if answered < limit:
            return None
        hour = start.hour
        row = counter(ctx.session, "*", f"unknown-senders:{hour:02d}", start.date())
        row.count += 1
        if not row.noticed:
            row.noticed = True
            notify_organizers(
                ctx.session,
                ctx.settings,
                now=ctx.now,
                key=f"unknown-senders:{start.date()}:{hour:02d}",
                subject="[amaryllis] replies to unknown senders paused for this hour",
                text=(
                    f"{limit} mails from addresses the server had never seen were answered "
                    f"in the hour {start.date()} {hour:02d}:00 UTC; later ones in that hour "
                    "get no reply (a flood of forged senders would otherwise be answered: "
                    "backscatter). Raise unknown_replies_per_hour if this is real traffic.\n"
                ),
            )
        return Verdict("refused", ("unknown-senders",))


class TooLarge(Rule):
    name = "too-large"
    description = "a mail over max_mail_bytes whose text could not be read within it gets a reply"

    def check(self, ctx: RuleContext) -> Verdict | None:
        limit = ctx.settings.max_mail_bytes
        if ctx.mail.too_large or (ctx.size > limit and not ctx.mail.partial):
            return Verdict(
                "refused",
                ("too-large",),
                ("error", {"code": "too-large", "size": ctx.size, "limit": limit}),
            )
        return None


#: the chain, in order (see the module docstring)
CHAIN: tuple[Rule, ...] = (
    AutoReply(),
    Authentication(),
    Lockout(),
    RateLimit(),
    UnknownSenders(),
    TooLarge(),
)


def run_chain(ctx: RuleContext, chain: Iterable[Rule] = CHAIN) -> Verdict | None:
    """The first :class:`Verdict` of ``chain`` for ``ctx``, or ``None`` when every rule passed."""
    for rule in chain:
        verdict = rule.check(ctx)
        if verdict is not None:
            return verdict
    return None


def proof(
    session: Session, settings: Any, mail: Any, cmd: Any, auth: AuthResult, organizer: bool
) -> str | None:
    """What proves that ``mail`` comes from its From address, or ``None``: ``"dmarc"`` (our
    server's ``Authentication-Results``), ``"organizer-password"`` (an organizer address with the
    organizer password), ``"entry-key"`` (a ``key:`` line matching one of the sender's entries),
    ``"confirm-token"`` (a confirmation token of a pending change)."""
    import hmac

    from app.db.models import Entry, Player
    from app.league import ownership

    if auth.passed:
        return "dmarc"
    sender = str(mail.sender or "")
    pw = settings.organizer_password
    if (
        organizer
        and pw
        and cmd.password is not None
        and sender in {a.lower() for a in settings.organizers}
        and hmac.compare_digest(cmd.password.encode(), pw.encode())
    ):
        return "organizer-password"
    if cmd.key:
        for entry in session.scalars(
            select(Entry).join(Player, Player.id == Entry.player_id).where(Player.address == sender)
        ):
            if ownership.key_matches(entry, cmd.key):
                return "entry-key"
    if cmd.name == "confirm" and cmd.args:
        change = ownership.find_change(session, cmd.args[0])
        if change is not None and change.state == "pending":
            return "confirm-token"
    return None
