"""Building outgoing messages and queuing them in the outbox.

Code never sends mail directly: it builds an ``EmailMessage`` here and queues it with
:func:`enqueue` in the caller's transaction; ``app.mail.send`` delivers the outbox.
Headers follow RFC 5322 (Message-ID, Date), RFC 3834 (``Auto-Submitted``) and RFC 2047
(encoded subjects, done by ``email.policy.default``).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import unicodedata
from collections.abc import Sequence
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import OutboxMessage, utcnow

log = logging.getLogger(__name__)


#: ``<left@right>`` of printable ASCII (RFC 5322 §3.6.4 msg-id); linear: no ``<>`` inside
_MSG_ID = re.compile(r"<([!-;=?-~]{1,900}@[!-;=?-~]{1,900})>")
_BARE_ID = re.compile(r"[!-;=?-~]{1,900}@[!-;=?-~]{1,900}")
#: msg-ids kept in References (RFC 5322 §3.6.4 allows trimming; the first and the latest stay)
MAX_REFERENCES = 10
#: a policy whose raw headers (set with ``set_raw``) are never re-folded: a msg-id longer than
#: a line (Exchange writes long ones) must not become an RFC 2047 encoded word (CPython treats
#: In-Reply-To/References as unstructured, gh-100991, and re-folds a long one with encoded words)
_POLICY = default_policy.clone(refold_source="none")


def msg_ids(value: str | None) -> list[str]:
    """The msg-ids in a Message-ID/In-Reply-To/References header value as written, each as
    ``<left@right>`` (a bare ``left@right`` when the header has no bracketed one), in order,
    without repeats. Ids with characters outside printable ASCII (RFC 6532 UTF-8 ids, mojibake)
    are left out: they cannot be written into a 7-bit header without being encoded, and an
    encoded msg-id is no msg-id. At most the first 4,000 characters are read."""
    text = (value or "")[:4000]
    found = [f"<{m}>" for m in _MSG_ID.findall(text)]
    if not found and "<" not in text:
        bare = _BARE_ID.search(text.strip())
        if bare is not None and bare.group(0) == text.strip():
            found = [f"<{bare.group(0)}>"]
    return list(dict.fromkeys(found))


def fold_ids(name: str, ids: Sequence[str]) -> str:
    """``ids`` as a header value folded between ids (never inside one, RFC 5322 §2.2.3):
    a line break and a space before an id that would pass 78 characters."""
    lines: list[str] = []
    width = len(name) + 2
    for mid in ids:
        if lines and width + 1 + len(mid) > 78:
            lines.append("\n " + mid)
            width = 1 + len(mid)
        else:
            lines.append((" " if lines else "") + mid)
            width += len(mid) + (1 if len(lines) > 1 else 0)
    return "".join(lines)


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` unless it already starts with ``Re:`` (any case, full-width colon too)."""
    s = subject.strip()
    if s[:3].lower() in ("re:", "re：") or s[:3].lower() == "re：":
        return s
    return f"Re: {s}" if s else "Re:"


#: Characters that Windows (CP932) and Unicode-first software write but that Python's
#: ``iso-2022-jp`` codec (JIS X 0208 as mapped by the JIS/Unicode tables) cannot encode, mapped to
#: the JIS X 0208 character mailers show for the same code point (the well-known CP932 vs
#: JIS X 0208 mapping differences: 1-29, 1-33, 1-34, 1-61, 1-81, 1-82, 2-44), plus a few look-alikes.
JIS_EQUIVALENTS: dict[int, str] = {
    0x2014: "\u2015",  # EM DASH -> HORIZONTAL BAR (JIS 1-29, "—" in reports and subjects)
    0x2013: "\u2015",  # EN DASH -> HORIZONTAL BAR
    0xFF0D: "\u2212",  # FULLWIDTH HYPHEN-MINUS -> MINUS SIGN (JIS 1-61, "ＨＰ－１")
    0xFF5E: "\u301C",  # FULLWIDTH TILDE -> WAVE DASH (JIS 1-33)
    0x2225: "\u2016",  # PARALLEL TO -> DOUBLE VERTICAL LINE (JIS 1-34)
    0xFFE0: "\u00A2",  # FULLWIDTH CENT SIGN -> CENT SIGN (JIS 1-81)
    0xFFE1: "\u00A3",  # FULLWIDTH POUND SIGN -> POUND SIGN (JIS 1-82)
    0xFFE2: "\u00AC",  # FULLWIDTH NOT SIGN -> NOT SIGN (JIS 2-44)
    0x00A0: " ",  # NO-BREAK SPACE -> SPACE
    0x00B7: "\u30FB",  # MIDDLE DOT -> KATAKANA MIDDLE DOT (JIS 1-6)
    0x2022: "\u30FB",  # BULLET -> KATAKANA MIDDLE DOT
    0xFF02: "\u201D",  # FULLWIDTH QUOTATION MARK -> RIGHT DOUBLE QUOTATION MARK
    0xFF07: "\u2019",  # FULLWIDTH APOSTROPHE -> RIGHT SINGLE QUOTATION MARK
}


def to_jis(text: str) -> str:
    """``text`` with the CP932/Unicode vs JIS X 0208 mismatches replaced by their JIS X 0208
    equivalents (:data:`JIS_EQUIVALENTS`) and half-width katakana (U+FF61–U+FF9F, not in
    ISO-2022-JP) made full-width (NFKC), so that ``text.encode("iso-2022-jp")`` succeeds for
    everything JIS X 0208 can show (RFC 1468). Characters with no JIS equivalent are left as they
    are. Never raises."""
    out = text.translate(JIS_EQUIVALENTS)
    if any("\uff61" <= ch <= "\uff9f" for ch in out):
        out = "".join(unicodedata.normalize("NFKC", ch) if "\uff61" <= ch <= "\uff9f" else ch
                      for ch in out)
        out = unicodedata.normalize("NFC", out)  # カ + ゛ -> ガ
    return out


def _unencodable(text: str) -> str:
    """The characters of ``text`` that ISO-2022-JP cannot hold (``""`` when there are none)."""
    bad = []
    for ch in dict.fromkeys(text):
        try:
            ch.encode("iso-2022-jp")
        except UnicodeEncodeError:
            bad.append(ch)
    return "".join(bad)


def build_message(
    *,
    sender: str,
    sender_name: str = "",
    to: str,
    subject: str,
    text: str,
    html: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    charset: str = "utf-8",
    auto_submitted: str | None = "auto-replied",
    now: dt.datetime | None = None,
) -> EmailMessage:
    """Build a message with a text part (``charset``: ``utf-8`` or ``iso-2022-jp``) and, when
    ``html`` is given, an HTML alternative (always UTF-8).

    For ISO-2022-JP the text and the subject first go through :func:`to_jis` (``—`` becomes
    ``―``, ``－`` becomes ``−``, …); only what still cannot be encoded falls back to UTF-8 (the
    body and the subject each on its own), logged at INFO.

    Threading: ``In-Reply-To`` is set from ``in_reply_to`` and ``References`` from ``references``
    plus ``in_reply_to`` (RFC 5322 §3.6.4), as msg-ids written raw and folded only between ids
    (:func:`msg_ids`, :func:`fold_ids`; never RFC 2047 encoded words, which Outlook and Exchange
    do not read as ids); an ``in_reply_to`` that is no ASCII msg-id threads nothing, and
    References keeps the first and the last ``MAX_REFERENCES - 1`` ids. A fresh ``Message-ID`` in
    the sender's domain and a ``Date`` are added. Raises ``ValueError`` for an address that
    cannot be parsed.
    """
    msg = EmailMessage(policy=_POLICY)
    domain = sender.rpartition("@")[2] or "localhost"
    msg["From"] = Address(display_name=sender_name, addr_spec=sender) if sender_name else sender
    msg["To"] = to
    jis = charset.lower() in ("iso-2022-jp", "jis")
    if jis and not subject.isascii():
        bad = _unencodable(to_jis(subject))
        if bad:
            log.info("subject to %s sent in UTF-8: %r has no ISO-2022-JP form", to, bad)
        else:
            subject = to_jis(subject)
    if jis and not subject.isascii() and not _unencodable(subject):
        # old Japanese mailers expect =?ISO-2022-JP?B?...?= (RFC 1468/2047); set_raw keeps it as is
        msg.set_raw("Subject", Header(subject, "iso-2022-jp", header_name="Subject").encode())
    elif not subject.isascii():
        # email.policy.default folds a mixed subject into ASCII words and encoded words and can
        # put a space that stood between two encoded words on the fold, where RFC 2047 §6.2
        # says to drop it ("ヌト —" came back as "ヌト—"). email.header.Header encodes the
        # whole subject as encoded words whose text keeps every space (RFC 2047 §5).
        msg.set_raw("Subject", Header(subject, "utf-8", header_name="Subject").encode())
    else:
        msg["Subject"] = subject
    msg["Date"] = format_datetime(now or utcnow())
    msg["Message-ID"] = make_msgid(domain=domain)
    parent = msg_ids(in_reply_to)[:1]
    if parent:
        refs = [r for ref in references for r in msg_ids(ref) if r != parent[0]] + parent
        refs = list(dict.fromkeys(refs))
        if len(refs) > MAX_REFERENCES:
            refs = refs[:1] + refs[-(MAX_REFERENCES - 1):]
        msg.set_raw("In-Reply-To", parent[0])
        msg.set_raw("References", fold_ids("References", refs))
    if auto_submitted:
        msg["Auto-Submitted"] = auto_submitted
    if jis:
        mapped = to_jis(text)
        bad = _unencodable(mapped)
        if bad:  # a character JIS X 0208 cannot hold even after the mapping: fall back to UTF-8
            log.info("text to %s sent in UTF-8: %r has no ISO-2022-JP form", to, bad)
            msg.set_content(text, charset="utf-8")
        else:
            msg.set_content(mapped.encode("iso-2022-jp"), maintype="text", subtype="plain",
                            cte="7bit", params={"charset": "iso-2022-jp"})
    else:
        msg.set_content(text, charset="utf-8")
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8")
    return msg


def enqueue(
    session: Session,
    *,
    dedupe_key: str,
    message: EmailMessage,
    kind: str = "reply",
    inbound_id: int | None = None,
) -> OutboxMessage:
    """Queue ``message`` in the outbox in the caller's transaction, once per ``dedupe_key``.

    Returns the new row, or the existing row when ``dedupe_key`` was queued before (so a step
    re-run after a crash queues nothing twice). Envelope addresses come from the ``From`` and
    ``To`` headers; the bytes are stored as the row's own head and a shared, compressed body
    (``app.league.outbox.store_bodies``).
    """
    from app.league.outbox import store_bodies

    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key))
    if existing is not None:
        return existing
    values = outbox_values(message, dedupe_key=dedupe_key, kind=kind, inbound_id=inbound_id)
    store_bodies(session, [values])
    row = OutboxMessage(**values)
    session.add(row)
    session.flush()
    return row


def outbox_values(message: EmailMessage, *, dedupe_key: str, kind: str,
                  inbound_id: int | None = None) -> dict[str, object]:
    """The column values of the outbox row for ``message``: envelope addresses from the ``From``
    and ``To`` headers, its Message-ID, ``head`` (its per-recipient header lines) and ``body``
    (the rest; stored by :func:`app.league.outbox.store_bodies`)."""
    from app.league.outbox import split_message

    head, body = split_message(message.as_bytes())
    return dict(
        dedupe_key=dedupe_key,
        message_id=str(message["Message-ID"]),
        recipient=message["To"].addresses[0].addr_spec,
        sender=message["From"].addresses[0].addr_spec,
        head=head,
        body=body,
        kind=kind,
        inbound_id=inbound_id,
    )
