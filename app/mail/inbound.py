"""The IMAP poller: store new mail (commit), then mark it on the server, then process it.

Order of a pass (design: "a mail is never lost and never processed twice"):

1. connect (TCP_NODELAY: ``shared/notes/mail-stack.md`` §0), SELECT the mailbox, read UIDVALIDITY
   (RFC 3501 §2.3.1.1). A UIDVALIDITY different from the stored one resets the stored UID to 0:
   every message is looked at again and the Message-ID dedupe skips those already stored.
2. NOOP, then SEARCH (notes §0c: the first SEARCH after another delivery misses it). Candidates:
   every UNSEEN message plus every UID above the last stored one (flag mode), or every message of
   the mailbox (move mode: the processed folder holds the rest).
3. FETCH in batches: RFC822.SIZE, then ``BODY.PEEK[]``; for a mail over ``max_mail_bytes`` its
   BODYSTRUCTURE, then only its header and its text parts (a sheet in the body with a photo
   attached is still read; the parts left out are listed in ``InboundMessage.omitted``). The key is
   the Message-ID as written (lossless: UTF-8 ids stay themselves), or ``sha256:<hex>`` of the raw
   bytes. New keys are inserted as ``InboundMessage(status="stored")`` with UIDVALIDITY and UID,
   **each in its own savepoint** with every text made storable (``app.mail.storable``); a mail
   that still cannot be stored is kept as raw bytes in status ``quarantined`` (or, if even that
   fails, as a file in ``data_dir/quarantine/``), logged and reported to the organizers, and the
   mails behind it go on. The transaction is committed **before** the server is touched.
4. Mark on the server: ``\\Seen`` (flag mode) or MOVE to the processed folder (copy + delete +
   expunge without the MOVE extension). A crash between 3 and 4 leaves stored, unmarked mail:
   the next pass finds it again, sees its key stored, and only marks it.
5. :func:`app.mail.pipeline.process_pending` processes every ``stored`` row.

IDLE (RFC 2177) is used only as a doorbell (:func:`wait_for_mail`; imapclient's ``idle_check``
can crash on split lines, mjs/imapclient#519); servers without IDLE are polled every
``poll_interval`` seconds.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import email
import email.policy
import hashlib
import logging
import select
import socket
import ssl
import threading
from collections.abc import Iterable

from imapclient import IMAPClient
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import InboundMessage, MailboxState, utcnow
from app.db.session import transaction
from app.mail.decode import decode_iso2022jp, sender_address
from app.mail.faults import crash_point
from app.mail.storable import column_text

log = logging.getLogger(__name__)

FETCH_BATCH = 250


def _header_value(block: bytes, name: bytes) -> bytes | None:
    """The raw bytes of the first header ``name`` (lower case, with the colon) in a header
    block, unfolded, or ``None``."""
    value: list[bytes] | None = None
    for line in block.split(b"\n"):
        line = line.rstrip(b"\r")
        if value is not None:
            if line[:1] in (b" ", b"\t"):
                value.append(line)
                continue
            break
        if line[: len(name)].lower() == name:
            value = [line[len(name) :]]
    return b" ".join(value) if value is not None else None


def message_key(raw: bytes) -> str:
    """The dedupe key of a raw mail: its Message-ID as written, whitespace unfolded (``<…>``;
    UTF-8 ids, RFC 6532, stay as they are, so two such ids never collapse into one), or
    ``sha256:<hex>`` of the bytes when it has none or an unusable one (not UTF-8, a control
    character, no ``@``, over 990 characters)."""
    value = _header_value(_header_block(raw), b"message-id:")
    if value:
        try:
            mid = " ".join(value.decode("utf-8").split())
        except UnicodeDecodeError:
            mid = ""
        if 3 <= len(mid) <= 990 and "@" in mid and not any(ord(c) < 32 or c == "\x7f" for c in mid):
            return mid
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _header_block(raw: bytes) -> bytes:
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        end = raw.find(b"\n\n")
    return raw[: end + 4] if end >= 0 else raw[:65536]


def _subject(raw: bytes) -> str:
    try:
        msg = email.message_from_bytes(_header_block(raw), policy=email.policy.default)
        subject = str(msg.get("Subject") or "")[:4000]
    except Exception:
        return ""
    if "\x1b" in subject:
        subject = decode_iso2022jp(subject.encode("latin-1", "replace"))
    return column_text(" ".join(subject.split()), 1000)


def _sender(raw: bytes) -> str:
    try:
        return column_text(
            sender_address(
                email.message_from_bytes(_header_block(raw), policy=email.policy.default)
            ),
            320,
        )
    except Exception:
        return ""


def _text_parts(structure: object, limit: int) -> tuple[list[str], list[dict]]:
    """From an IMAP BODYSTRUCTURE (imapclient's ``BodyData``): the part numbers of the text
    parts (``text/plain``, ``text/html``, ``text/*`` attachments) that fit in ``limit`` bytes
    together, and the other leaf parts as ``{"part", "type", "name", "size"}`` (RFC 3501
    §7.4.2). ``([], [])`` for a single-part mail."""
    keep: list[str] = []
    omitted: list[dict] = []
    budget = [limit]

    def text(value: object) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")

    def walk(node: object, path: str) -> None:
        multipart = getattr(node, "is_multipart", False)
        if multipart:
            for i, child in enumerate(node[0], start=1):  # type: ignore[index]
                walk(child, f"{path}.{i}" if path else str(i))
            return
        leaf = list(node)  # type: ignore[call-overload]
        ctype = f"{text(leaf[0])}/{text(leaf[1])}".lower()
        params = leaf[2] if isinstance(leaf[2], (list, tuple)) else ()
        name = ""
        for k, v in zip(params[::2], params[1::2], strict=False):
            if text(k).lower() == "name":
                name = text(v)
        try:
            size = int(leaf[6])
        except (IndexError, TypeError, ValueError):
            size = 0
        if ctype.startswith("text/") and size <= budget[0] and len(keep) < 20:
            keep.append(path)
            budget[0] -= size
        else:
            omitted.append(
                {"part": path, "type": ctype, "name": column_text(name, 200), "size": size}
            )

    if not getattr(structure, "is_multipart", False):
        return [], []
    walk(structure, "")
    return keep, omitted


def _partial_raw(header: bytes, parts: list[tuple[bytes, bytes]]) -> bytes:
    """A mail of ``header`` (the original header block, its Content-Type replaced) and the
    fetched text ``parts`` (``(MIME header, body)``) as one ``multipart/mixed``."""
    boundary = "amaryllis-partial-" + hashlib.sha256(header).hexdigest()[:24]
    lines = []
    skip = False
    for line in header.rstrip(b"\r\n").split(b"\n"):
        line = line.rstrip(b"\r")
        if line[:1] in (b" ", b"\t") and skip:
            continue
        skip = line.lower().startswith((b"content-type:", b"content-transfer-encoding:"))
        if not skip:
            lines.append(line)
    lines.append(f'Content-Type: multipart/mixed; boundary="{boundary}"'.encode())
    out = b"\r\n".join(lines) + b"\r\n\r\n"
    for mime, body in parts:
        out += f"--{boundary}\r\n".encode() + mime.rstrip(b"\r\n") + b"\r\n\r\n" + body + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


def connect(settings: Settings, *, timeout: float | None = None) -> IMAPClient:
    """A logged-in ``IMAPClient`` for ``settings.imap_url`` (plain, STARTTLS or implicit TLS) with
    TCP_NODELAY set; every socket operation times out after ``timeout`` (default
    ``settings.imap_timeout``) seconds, and the socket is tracked for ``serve``'s stop
    (``app.mail.sockets``). Raises ``imapclient.exceptions.LoginError`` or ``OSError``."""
    from app.mail import sockets

    ep = settings.imap
    ctx = ssl.create_default_context()
    timeout = settings.imap_timeout if timeout is None else timeout
    client = sockets.TrackedIMAPClient(
        ep.host, port=ep.port, ssl=ep.security == "tls", ssl_context=ctx, timeout=timeout
    )
    with contextlib.suppress(OSError):
        client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if ep.security == "starttls":
        client.starttls(ctx)
    client.login(ep.user or "", ep.password or "")
    return client


def wait_for_mail(client: IMAPClient, timeout: float) -> list:
    """Wait up to ``timeout`` seconds for the server to announce anything, using IDLE as a doorbell
    (notes §0b): start IDLE, ``select()`` on the socket, then ``idle_done()`` reads the responses in
    blocking mode. Returns the untagged responses seen (may be empty)."""
    client.idle()
    try:
        select.select([client.socket()], [], [], timeout)
    finally:
        _, responses = client.idle_done()
    return list(responses)


class Poller:
    """One IMAP connection that stores and marks new mail; :meth:`poll` is one pass."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session]) -> None:
        self.settings = settings
        self.factory = factory
        self.mailbox = settings.imap.path or "INBOX"
        self.processed = settings.imap_processed_folder
        self.client: IMAPClient | None = None
        self.capabilities: set[bytes] = set()

    def open(self) -> IMAPClient:
        """Connect, create the processed folder when needed, SELECT the mailbox."""
        client = connect(self.settings)
        self.client = client
        self.capabilities = set(client.capabilities())
        if self.processed and not client.folder_exists(self.processed):
            client.create_folder(self.processed)
        return client

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.logout()
            self.client = None

    # -- one pass --------------------------------------------------------------------------

    def poll(self, *, now: dt.datetime | None = None, stop: threading.Event | None = None) -> int:
        """Store and mark every new mail (batch by batch; none after ``stop`` is set). Returns
        the number of newly stored mails."""
        client = self.client or self.open()
        info = client.select_folder(self.mailbox)
        uidvalidity = int(info[b"UIDVALIDITY"])
        last_uid = self._mailbox_state(uidvalidity, now or utcnow())
        client.noop()
        if self.processed:
            candidates = set(client.search(["NOT", "DELETED"]))
        else:
            candidates = set(client.search(["UNSEEN"]))
            candidates |= {u for u in client.search(["UID", f"{last_uid + 1}:*"]) if u > last_uid}
        stored = 0
        uids = sorted(candidates)
        for i in range(0, len(uids), FETCH_BATCH):
            if stop is not None and stop.is_set():
                break
            stored += self._batch(client, uidvalidity, uids[i : i + FETCH_BATCH], now or utcnow())
        return stored

    def _mailbox_state(self, uidvalidity: int, now: dt.datetime) -> int:
        try:
            return self._mailbox_state_once(uidvalidity, now)
        except IntegrityError:  # another poller created the row at the same moment: use it
            return self._mailbox_state_once(uidvalidity, now)

    def _mailbox_state_once(self, uidvalidity: int, now: dt.datetime) -> int:
        with transaction(self.factory) as s:
            state = s.scalar(sql_select(MailboxState).where(MailboxState.mailbox == self.mailbox))
            if state is None:
                state = MailboxState(mailbox=self.mailbox, uidvalidity=uidvalidity, last_uid=0)
                s.add(state)
            elif state.uidvalidity != uidvalidity:
                log.warning(
                    "UIDVALIDITY of %s changed %s -> %s: rescanning (Message-ID dedupe)",
                    self.mailbox,
                    state.uidvalidity,
                    uidvalidity,
                )
                state.uidvalidity, state.last_uid = uidvalidity, 0
            state.last_poll_at = now
            last = int(state.last_uid)
        return last

    def _batch(
        self, client: IMAPClient, uidvalidity: int, uids: list[int], now: dt.datetime
    ) -> int:
        sizes = client.fetch(uids, ["RFC822.SIZE"])
        limit = self.settings.max_mail_bytes
        small = [u for u in uids if u in sizes and int(sizes[u].get(b"RFC822.SIZE", 0)) <= limit]
        large = [u for u in uids if u in sizes and u not in small]
        raws: dict[int, bytes] = {}
        omitted: dict[int, list[dict]] = {}
        if small:
            for uid, data in client.fetch(small, ["BODY.PEEK[]"]).items():
                raws[uid] = data.get(b"BODY[]") or b""
        if large:
            for uid, data in client.fetch(large, ["BODY.PEEK[HEADER]", "BODYSTRUCTURE"]).items():
                header = data.get(b"BODY[HEADER]") or b""
                raws[uid] = header
                try:
                    keep, left = _text_parts(data.get(b"BODYSTRUCTURE"), limit)
                except Exception:
                    keep, left = [], []
                if not keep:
                    continue
                items = [f"BODY.PEEK[{p}.MIME]" for p in keep] + [f"BODY.PEEK[{p}]" for p in keep]
                got = client.fetch([uid], items).get(uid, {})
                parts = [
                    (
                        got.get(f"BODY[{p}.MIME]".encode()) or b"",
                        got.get(f"BODY[{p}]".encode()) or b"",
                    )
                    for p in keep
                ]
                raws[uid] = _partial_raw(header, parts)
                omitted[uid] = left
        keyed = [(uid, message_key(raws[uid]), raws[uid]) for uid in sorted(raws)]
        stored = self._store(
            keyed,
            uidvalidity,
            {u: int(sizes[u].get(b"RFC822.SIZE", 0)) for u in raws},
            now,
            omitted,
        )
        crash_point("after-store")
        self._mark(client, sorted(raws))
        return stored

    def _store(
        self,
        keyed: list[tuple[int, str, bytes]],
        uidvalidity: int,
        sizes: dict[int, int],
        now: dt.datetime,
        omitted: dict[int, list[dict]] | None = None,
    ) -> int:
        """Insert rows for new keys, each in its own savepoint, and advance the stored UID, in one
        committed transaction. A row the database refuses (:meth:`_quarantine`) never stops the
        rows behind it."""
        if not keyed:
            return 0
        omitted = omitted or {}
        with transaction(self.factory) as s:
            keys = {k for _, k, _ in keyed}
            known = set(
                s.scalars(
                    sql_select(InboundMessage.message_key).where(
                        InboundMessage.message_key.in_(keys)
                    )
                )
            )
            stored = 0
            for uid, key, raw in keyed:
                if key in known:
                    continue
                known.add(key)
                row = InboundMessage(
                    message_key=column_text(key, 998),
                    uidvalidity=uidvalidity,
                    uid=uid,
                    mailbox=self.mailbox,
                    sender=_sender(raw),
                    subject=_subject(raw),
                    raw=raw,
                    size=sizes.get(uid, len(raw)),
                    status="stored",
                    received_at=now,
                    omitted=omitted.get(uid) or None,
                )
                try:
                    with s.begin_nested():  # another poller may have stored it meanwhile
                        s.add(row)
                except IntegrityError:
                    continue
                except Exception as exc:
                    if self._quarantine(
                        s, uid, uidvalidity, raw, sizes.get(uid, len(raw)), exc, now
                    ):
                        stored += 1
                    continue
                stored += 1
            state = s.scalar(sql_select(MailboxState).where(MailboxState.mailbox == self.mailbox))
            top = max(uid for uid, _, _ in keyed)
            if state is not None and state.uidvalidity == uidvalidity and top > state.last_uid:
                state.last_uid = top
        return stored

    def _quarantine(
        self,
        s: Session,
        uid: int,
        uidvalidity: int,
        raw: bytes,
        size: int,
        exc: BaseException,
        now: dt.datetime,
    ) -> bool:
        """Keep a mail the database would not store as read: its raw bytes in a row of status
        ``quarantined`` keyed by their hash (nothing else taken from it), else a file in
        ``data_dir/quarantine/``; logged at ERROR and reported to the organizers. Returns True
        when a row was stored."""
        from app.mail.notices import notify_organizers

        digest = hashlib.sha256(raw).hexdigest()
        reason = column_text(f"{type(exc).__name__}: {exc}", 2000)
        log.error(
            "inbound UID %s could not be stored (%s); quarantined", uid, reason.splitlines()[0]
        )
        stored = False
        try:
            with s.begin_nested():
                s.add(
                    InboundMessage(
                        message_key=f"sha256:{digest}",
                        uidvalidity=uidvalidity,
                        uid=uid,
                        mailbox=self.mailbox,
                        sender="",
                        subject="",
                        raw=raw,
                        size=size,
                        status="quarantined",
                        error=reason,
                        received_at=now,
                    )
                )
            stored = True
        except Exception:
            folder = self.settings.data_dir / "quarantine"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{digest}.eml").write_bytes(raw)
            log.error("inbound UID %s written to %s", uid, folder / f"{digest}.eml")
        try:
            with s.begin_nested():
                notify_organizers(
                    s,
                    self.settings,
                    key=f"quarantine:{digest}",
                    now=now,
                    subject="[amaryllis] a mail could not be stored",
                    text=(
                        f"The mail with IMAP UID {uid} (UIDVALIDITY {uidvalidity}, SHA-256 {digest}) "
                        f"could not be stored as read: {reason}\nIts raw bytes are kept "
                        f"({'inbound status quarantined' if stored else 'data_dir/quarantine/'}); "
                        "it was not answered. The mails behind it were processed.\n"
                    ),
                )
        except Exception:
            log.exception("could not record the quarantine notice")
        return stored

    def _mark(self, client: IMAPClient, uids: Iterable[int]) -> None:
        uids = list(uids)
        if not uids:
            return
        if self.processed:
            if b"MOVE" in self.capabilities:
                client.move(uids, self.processed)
            else:
                client.copy(uids, self.processed)
                client.delete_messages(uids)
                if b"UIDPLUS" in self.capabilities:
                    client.uid_expunge(uids)
                else:
                    client.expunge()
        else:
            client.add_flags(uids, [b"\\Seen"], silent=True)


def poll_once(
    settings: Settings,
    factory: sessionmaker[Session],
    *,
    now: dt.datetime | None = None,
    process: bool = True,
    stop: threading.Event | None = None,
) -> int:
    """One pass: connect, store new mail (commit), mark it on the server, disconnect, then process
    every stored row (:func:`app.mail.pipeline.process_pending`). Returns the number of mails
    newly stored. Raises IMAP/socket errors of the connection (nothing is lost: a later pass
    redoes the work)."""
    poller = Poller(settings, factory)
    try:
        poller.open()
        stored = poller.poll(now=now, stop=stop)
    finally:
        poller.close()
    if process:
        from app.mail.pipeline import process_pending

        process_pending(settings, factory, now=now)
    return stored


def run_forever(
    settings: Settings,
    factory: sessionmaker[Session],
    *,
    stop: threading.Event | None = None,
    idle_slice: float = 60.0,
) -> None:
    """Poll, process and wait until ``stop`` is set (or forever): the wait is IDLE as a doorbell in
    slices of ``idle_slice`` seconds where the server has IDLE, else a ``poll_interval`` sleep.
    Reconnects with a doubling pause (1 s to 5 min) after connection errors."""
    from app.mail.pipeline import process_pending

    stop = stop or threading.Event()
    pause = 1.0
    while not stop.is_set():
        poller = Poller(settings, factory)
        try:
            poller.open()
            pause = 1.0
            while not stop.is_set():
                poller.poll()
                process_pending(settings, factory)
                if b"IDLE" in poller.capabilities and poller.client is not None:
                    wait_for_mail(poller.client, min(idle_slice, settings.poll_interval * 10))
                else:
                    stop.wait(settings.poll_interval)
        except (OSError, IMAPClient.Error, IMAPClient.AbortError) as exc:
            log.warning("IMAP connection lost (%s); reconnecting in %.0f s", exc, pause)
            stop.wait(pause)
            pause = min(pause * 2, 300)
        finally:
            poller.close()
