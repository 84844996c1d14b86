"""SQLAlchemy 2.x models: every table of the server.

Every schema change is an Alembic migration in ``migrations/versions``; ``tests/test_migrations.py``
fails when these models and the migrations drift apart. Times are timezone-aware UTC.
"""

from __future__ import annotations

import datetime as dt
import unicodedata

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, validates

from app.formats import DEFAULT_FORMAT
from app.rules import DEFAULT_RULESET

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with a naming convention (stable constraint names for migrations)."""

    metadata = MetaData(naming_convention=NAMING)


def display_name_key(name: str | None) -> str | None:
    """The key two players' display names must not share (``players.name_key``, unique): NFKC
    (full-width ``ＡＫＩ`` is ``AKI``), Unicode case folding, and no whitespace at all (``秋 エリ``
    is ``秋エリ``); ``None`` for an empty name (any number of players may have none)."""
    key = "".join(unicodedata.normalize("NFKC", name or "").casefold().split())
    return key[:200] or None


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.timezone.utc)


#: the choices of ``Player.mail_pref``, loudest first
MAIL_PREFS = ("all", "own", "none")


class Player(Base):
    """A player, identified by a lower-cased mail address."""

    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    #: :func:`display_name_key` of ``display_name``, kept in step by :meth:`_keep_key`: unique,
    #: so no two players show the same or a look-alike name
    name_key: Mapped[str | None] = mapped_column(String(200), unique=True, index=True)
    lang: Mapped[str] = mapped_column(String(8), default="ja")  # "ja" | "en"
    charset: Mapped[str] = mapped_column(String(32), default="utf-8")  # or "iso-2022-jp"
    #: what league mail the player gets besides direct replies (``MAIL_PREFS``): ``all`` every
    #: report and the standings, ``own`` only their own battles, ``none`` nothing (the web only)
    mail_pref: Mapped[str] = mapped_column(String(8), default="all", server_default="all")
    #: a digest carries the full logs of the player's own battles (else: on request, ``logs``)
    digest_logs: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    @validates("display_name")
    def _keep_key(self, _key: str, value: str | None) -> str:
        self.name_key = display_name_key(value)
        return value or ""


class League(Base):
    """A league of any format (``format``, ``format_options``; a format that keeps a state has it
    in ``format_state``). ``state``: open -> closed -> running -> finished."""

    __tablename__ = "leagues"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    ruleset: Mapped[str] = mapped_column(String(32), default=DEFAULT_RULESET)
    #: the ruleset's league options (``Ruleset.options``: budget, sword pool, MP table, … for
    #: Margaret Hundred; ``{}`` = the defaults), fixed once entries close
    options: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    state: Mapped[str] = mapped_column(String(16), default="open")
    entry_deadline: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    rounds_every_s: Mapped[int | None] = mapped_column(Integer)  # seconds between rounds
    next_round_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    points_win: Mapped[int] = mapped_column(Integer, default=3)
    points_draw: Mapped[int] = mapped_column(Integer, default=1)
    points_loss: Mapped[int] = mapped_column(Integer, default=0)
    double: Mapped[bool] = mapped_column(Boolean, default=False)
    password: Mapped[str | None] = mapped_column(String(128))  # entry password line, optional
    require_auth: Mapped[bool] = mapped_column(Boolean, default=False)  # refuse DKIM/SPF failures
    seed: Mapped[str] = mapped_column(String(64), default="")  # published seed (draw breaking)
    # the web view lists the entrants' names (never their sheets) while entries are open
    show_entrants: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # the worker playing this league's rounds (one at a time: ``app.league.leases``)
    play_owner: Mapped[str | None] = mapped_column(String(200))
    play_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # the league's format (``app.formats.find_format``) and its options (JSON, without the seed:
    # the format gets ``seed`` from the column above); the hill keeps its own state here
    format: Mapped[str] = mapped_column(
        String(32), default=DEFAULT_FORMAT, server_default=DEFAULT_FORMAT
    )
    format_options: Mapped[dict] = mapped_column(JSON, default=dict, server_default="{}")
    format_state: Mapped[dict | None] = mapped_column(JSON, deferred=True)  # read when used
    # a random token written with each new format_state (``app.league.formats.remember_state``)
    # so a process that keeps the parsed state knows it is current without reading the JSON;
    # assigning format_state any other way clears it (the listener below)
    format_state_stamp: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    entries: Mapped[list[Entry]] = relationship(back_populates="league", order_by="Entry.id")
    rounds: Mapped[list[Round]] = relationship(back_populates="league", order_by="Round.number")

    @validates("format_state")
    def _unstamp(self, _key: str, value: dict | None) -> dict | None:
        # a new state is unstamped until its writer stamps it (remember_state, just after)
        self.format_state_stamp = None
        return value


class Entry(Base):
    """A player's entry in a league. ``status``: active, withdrawn or disqualified.

    ``seat`` is the entry's place in the Berger table (0-based), fixed when entries close.
    """

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("league_id", "player_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    status: Mapped[str] = mapped_column(String(16), default="active")
    seat: Mapped[int | None] = mapped_column(Integer)
    #: the entry key (``7F3K-Q9PD``) mailed to the owner in every acceptance reply; a replace or
    #: withdraw mail with it takes effect at once (``app.league.ownership``); NULL until the
    #: first reply that shows it
    owner_key: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    league: Mapped[League] = relationship(back_populates="entries")
    player: Mapped[Player] = relationship()
    sheets: Mapped[list[SheetVersion]] = relationship(
        back_populates="entry", order_by="SheetVersion.version"
    )


class SheetVersion(Base):
    """Every sheet version a player sent for an entry; exactly one per entry has ``active``."""

    __tablename__ = "sheet_versions"
    __table_args__ = (UniqueConstraint("entry_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)  # the sheet as sent (after MIME decoding)
    normalized: Mapped[str] = mapped_column(Text)  # the normalized notation
    #: the ruleset's standings label of the entry (``Ruleset.label``: the unit's or the registered
    #: swordmaster's name)
    unit_name: Mapped[str] = mapped_column(String(200))
    lang: Mapped[str] = mapped_column(String(8))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    entry: Mapped[Entry] = relationship(back_populates="sheets")


class Round(Base):
    """One round of a league's Berger table. ``state``: scheduled -> done."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("league_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    number: Mapped[int] = mapped_column(Integer)  # 1-based
    state: Mapped[str] = mapped_column(String(16), default="scheduled")
    scheduled_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    done_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # what the format said the round is (``RoundPairings.note``: "", final, challenge, update…)
    note: Mapped[str] = mapped_column(String(32), default="", server_default="")
    #: when the round's pairings were stored (a round robin's at the close, another format's
    #: when the round before finished); NULL for rounds stored before migration 0012
    paired_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    #: open to every ``serve`` on the database: any of them may claim its pending battles in
    #: chunks (``app.league.play``, PostgreSQL); set once the play lease holder prepared it
    shared: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    league: Mapped[League] = relationship(back_populates="rounds")
    battles: Mapped[list[Battle]] = relationship(back_populates="round", order_by="Battle.board")


class Battle(Base):
    """A pairing of one round and, once fought, its result.

    ``entry_b_id`` is NULL for a bye. The two sheet versions and the engine version are the inputs;
    the log is recomputed from them on demand (the engine is deterministic).
    ``winner``: 0 (A), 1 (B) or NULL (draw or bye); ``state``: pending -> done, or, in a
    ruleset with orders and checkpoints, pending -> paused (stopped after turn ``stop_turn``
    until ``stop_until`` or both players are ready) -> … -> done.
    """

    __tablename__ = "battles"
    __table_args__ = (
        UniqueConstraint("round_id", "board"),
        # a round's pending (or paused) battles in board order without reading its done ones:
        # claimed chunks of a shared round, "is any battle left?" (migration 0017)
        Index("ix_battles_round_state_board", "round_id", "state", "board"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    board: Mapped[int] = mapped_column(Integer)
    entry_a_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    entry_b_id: Mapped[int | None] = mapped_column(ForeignKey("entries.id"))
    sheet_a_id: Mapped[int | None] = mapped_column(ForeignKey("sheet_versions.id"))
    sheet_b_id: Mapped[int | None] = mapped_column(ForeignKey("sheet_versions.id"))
    engine_version: Mapped[str | None] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16), default="pending")
    winner: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str | None] = mapped_column(String(16))
    turns: Mapped[int | None] = mapped_column(Integer)
    hp_a: Mapped[int | None] = mapped_column(Integer)
    hp_b: Mapped[int | None] = mapped_column(Integer)
    final: Mapped[dict | None] = mapped_column(JSON)
    #: the generic ``Outcome.to_json`` (winner, termination, turns, margin, both parties' final
    #: swordmasters, ruleset detail); ``hp_a``/``hp_b`` are its parties' summed present HP
    outcome: Mapped[dict | None] = mapped_column(JSON)
    #: side A's tiebreak margin (``Outcome.margin``; Amaryllis: hp_a - hp_b)
    margin: Mapped[int | None] = mapped_column(Integer)
    fought_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    #: a ruleset with orders: what the battle was (or is being) fought with, besides the two
    #: sheets (``app.league.orders.BoardInputs.to_json``: each side's orders against this
    #: opponent with their revisions, the lead draw, the players' READY). **Private**: never read
    #: by a public view
    inputs: Mapped[dict | None] = mapped_column(JSON)
    #: a paused battle: the checkpoint turn it stopped after, and until when it waits
    stop_turn: Mapped[int | None] = mapped_column(Integer)
    stop_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    #: a pending battle of a shared round being fought: the claiming process's lease owner id
    #: (``app.db.leases.owner_id``) and the claim's end; cleared when its result is stored
    claim_owner: Mapped[str | None] = mapped_column(String(200))
    claim_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    round: Mapped[Round] = relationship(back_populates="battles")


class InboundMessage(Base):
    """A received mail: raw bytes stored and committed before anything acts on it.

    ``message_key`` is the Message-ID, or ``sha256:<hex>`` of the raw bytes when it has none.
    ``status``: stored -> done | ignored | refused | shunted (an unexpected error; ``error`` says
    where); ``quarantined``: the mail could not be stored as read (``error`` says why), ``raw``
    holds its bytes and nothing else was taken from it; it is reported, never processed.
    ``rules`` lists the protection rules that matched (Mailman style). ``omitted`` lists the MIME
    parts of a mail over ``max_mail_bytes`` that were not fetched (``{"type", "name", "size"}``;
    only its text parts were), ``NULL`` for a mail stored whole.
    """

    __tablename__ = "inbound_messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_key: Mapped[str] = mapped_column(String(998), unique=True)
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    uid: Mapped[int | None] = mapped_column(BigInteger)
    mailbox: Mapped[str] = mapped_column(String(200), default="INBOX")
    sender: Mapped[str] = mapped_column(String(320), default="")
    subject: Mapped[str] = mapped_column(Text, default="")
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    size: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="stored")
    command: Mapped[str | None] = mapped_column(String(32))
    rules: Mapped[list | None] = mapped_column(JSON)
    omitted: Mapped[list | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    processed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class MailboxState(Base):
    """Per IMAP mailbox: the UIDVALIDITY seen and the highest UID already stored."""

    __tablename__ = "mailbox_state"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mailbox: Mapped[str] = mapped_column(String(200), unique=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    last_uid: Mapped[int] = mapped_column(BigInteger, default=0)
    last_poll_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class OutboxBody(Base):
    """One distinct outbox body, stored once: every header but the per-recipient ones (``To``,
    ``Message-ID``, ``In-Reply-To``, ``References``) and the MIME body, zlib-compressed (RFC 1950)
    and keyed by the SHA-256 of the uncompressed bytes. The standings of a round go to every
    player with one body; a battle report to both players (``app.mail.outbox``)."""

    __tablename__ = "outbox_bodies"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)  # zlib.compress(body)
    size: Mapped[int] = mapped_column(Integer, default=0)  # uncompressed bytes
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class OutboxMessage(Base):
    """A mail to send. ``status``: queued -> sending -> sent | failed (5xx or attempts
    exhausted); ``unknown`` only on rows left by versions before 0005 (``send --requeue``).

    The mail is ``head`` (this copy's own header lines: ``To``, ``Message-ID``, threading) followed
    by the shared body ``body_sha256`` (:class:`OutboxBody`); rows written before migration 0005
    hold the whole mail in ``raw_whole`` instead. :attr:`raw` gives the bytes either way.
    ``dedupe_key`` makes queuing idempotent (e.g. ``reply:<inbound id>``, ``report:<battle id>:<side>``).
    A sender claims a row by setting ``sending`` with ``lease_owner``/``lease_until`` in a
    conditional update; a row left ``sending`` by a sender that died (lease expired, or the owner
    process gone on this host) is queued again **with the same bytes, so the same Message-ID**:
    delivery is at least once, and duplicates share a Message-ID (see ``app.mail.send``).
    ``content_pruned`` marks a delivered row whose bytes were dropped after
    ``outbox_retention_days`` (the row stays, so its dedupe key still guards against requeuing).
    """

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_status_next", "status", "next_attempt_at"),
        Index("ix_outbox_body_sha256", "body_sha256"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dedupe_key: Mapped[str] = mapped_column(String(300), unique=True)
    message_id: Mapped[str] = mapped_column(String(300))
    recipient: Mapped[str] = mapped_column(String(320))
    sender: Mapped[str] = mapped_column(String(320))
    raw_whole: Mapped[bytes | None] = mapped_column("raw", LargeBinary, nullable=True)
    head: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    body_sha256: Mapped[str | None] = mapped_column(
        ForeignKey("outbox_bodies.sha256"), nullable=True
    )
    kind: Mapped[str] = mapped_column(String(32), default="reply")
    status: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    content_pruned: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    body: Mapped[OutboxBody | None] = relationship(lazy="joined")

    @property
    def raw(self) -> bytes:
        """The whole mail as queued (RFC 5322 bytes, LF line ends): ``head`` + the decompressed
        shared body, or ``raw_whole`` for a row from before 0005; ``b""`` once pruned."""
        if self.raw_whole is not None:
            return self.raw_whole
        if self.body is None:
            return self.head or b""
        import zlib

        return (self.head or b"") + zlib.decompress(self.body.data)


class SmtpRelay(Base):
    """What the senders last saw of one SMTP relay (``host:port``): for ``amaryllis status``.

    ``failures`` counts consecutive passes that could not connect or got only temporary
    errors; ``last_error``/``last_error_at`` the latest of them; ``last_ok_at`` the last mail the
    relay accepted."""

    __tablename__ = "smtp_relays"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    relay: Mapped[str] = mapped_column(String(300), unique=True)
    last_ok_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(Text)
    last_error_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    failures: Mapped[int] = mapped_column(Integer, default=0)


class LeagueRequest(Base):
    """Work an organizer ordered by mail (``run``, ``resend``), recorded in that mail's own
    transaction and performed by the scheduler (``app.league.requests``), which resumes it after
    a crash and queues the answer (dedupe key ``request:<id>``) when it is done.

    ``state``: queued -> done | failed; ``lease_owner``/``lease_until`` while a scheduler works on
    it (another scheduler takes it over only once the lease expired). ``params``: the command's
    arguments (``{"all": bool, "round": int | None}``); ``result`` what it did (JSON)."""

    __tablename__ = "league_requests"
    __table_args__ = (Index("ix_league_requests_state", "state"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"))
    league_name: Mapped[str] = mapped_column(String(64), default="")
    kind: Mapped[str] = mapped_column(String(16))
    params: Mapped[dict | None] = mapped_column(JSON)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    lang: Mapped[str] = mapped_column(String(8), default="ja")
    state: Mapped[str] = mapped_column(String(16), default="queued")
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[dict | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    done_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class SenderCounter(Base):
    """A counter of one purpose for one address on one UTC day; ``noticed`` once its one notice
    went (``app.mail.protect``).

    ``purpose``: ``reply`` (replies to the address, the daily rate limit), ``password:organizer``
    and ``password:league`` (wrong passwords: the lockout), ``key`` (wrong entry keys),
    ``confirm:<entry id>`` (confirmation requests mailed for an entry), and with address ``*``
    ``unknown-senders:<hour>`` (mails refused in that UTC hour because the replies to new
    senders reached their cap; its ``noticed`` marks the one notice).
    """

    __tablename__ = "sender_counters"
    __table_args__ = (UniqueConstraint("address", "day", "purpose"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    purpose: Mapped[str] = mapped_column(String(64), default="reply", server_default="reply")
    day: Mapped[dt.date] = mapped_column()
    count: Mapped[int] = mapped_column(Integer, default=0)
    noticed: Mapped[bool] = mapped_column(Boolean, default=False)


class OrdersVersion(Base):
    """A player's orders for a ruleset that takes them (a hand and standing orders): the text as
    mailed (sections ``DEFAULT``/``VS``), checked when it came in. The active version of an
    entry is the one its next battles are fought with; ``version`` counts from 1. **Private**:
    only its owner ever sees it (``app.league.orders``)."""

    __tablename__ = "orders_versions"
    __table_args__ = (Index("ix_orders_versions_entry_active", "entry_id", "active"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PendingChange(Base):
    """A replace or withdraw of an entry that waits for its owner's confirmation.

    Made when such a mail carries no valid entry key (``app.league.ownership``): the server
    mails a confirmation request with a token to the entry's registered address and keeps the
    change here; the owner's answer (the token in the subject or body) applies it. Only the
    SHA-256 of the token is stored. ``kind``: ``replace`` (``sheet_text`` is the new sheet), ``orders`` (``sheet_text`` is the orders text) or
    ``withdraw``. ``state``: pending -> done | expired (past ``expires_at``, or entries closed)
    | superseded (a later change of the same entry) | refused (applying it failed; ``detail``).
    """

    __tablename__ = "pending_changes"
    __table_args__ = (Index("ix_pending_changes_entry_state", "entry_id", "state"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    kind: Mapped[str] = mapped_column(String(16))
    sheet_text: Mapped[str | None] = mapped_column(Text)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    state: Mapped[str] = mapped_column(String(16), default="pending")
    detail: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    done_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class OrganizerNotice(Base):
    """One line for the organizers, waiting for the next digest mail (``app.mail.notices``).

    ``key`` makes recording idempotent (a step re-run after a crash records nothing twice);
    ``digest_id`` is the outbox row of the digest that carried it (NULL: not sent yet).
    """

    __tablename__ = "organizer_notices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(300), unique=True)
    subject: Mapped[str] = mapped_column(String(300))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    digest_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id"))


class RatingChange(Base):
    """One player's rating change in one rating period (a played round of a league of one
    ruleset): OpenSkill ``mu``/``sigma`` before and after (``app.formats.ratings``), and the
    games of the period. A player has one rating per ruleset: the current one is the
    ``mu``/``sigma`` of their latest row of that ruleset, the one with the highest id (rows are
    written by the transaction that marks their round done, so in the order rounds are rated:
    ``app.league.ratings.latest``, index ``(player_id, ruleset, id)``); those rows, by id, are
    its history."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("player_id", "round_id"),
        Index("ix_rating_changes_player_id_id", "player_id", "id"),
        Index("ix_rating_changes_player_ruleset_id", "player_id", "ruleset", "id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    #: the game rated (its league's ruleset): a player has one rating per ruleset
    ruleset: Mapped[str] = mapped_column(
        String(32), default=DEFAULT_RULESET, server_default=DEFAULT_RULESET
    )
    period: Mapped[str] = mapped_column(String(120))  # "<league>/<round>"
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
