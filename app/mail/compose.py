"""Building outgoing messages and queuing them in the outbox.

Code never sends mail directly: it builds an ``EmailMessage`` here and queues it with
:func:`enqueue` in the caller's transaction; ``app.mail.send`` delivers the outbox.
Headers follow RFC 5322 (Message-ID, Date), RFC 3834 (``Auto-Submitted``) and RFC 2047
(encoded subjects, done by ``email.policy.default``). No body line is longer than 78 characters
(RFC 5322 §2.1.1): a part with a longer line goes quoted-printable or base64 (:data:`MAX_LINE`,
``docs/mail.md``, Line length).
"""

from __future__ import annotations

import binascii
import datetime as dt
import functools
import hashlib
import io
import logging
import re
import unicodedata
from collections.abc import Iterator, Sequence
from email import message_from_bytes
from email.charset import BASE64, QP, RFC2047_CHROME_LEN, UNKNOWN8BIT, Charset
from email.generator import BytesGenerator
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage, Message
from email.mime.multipart import MIMEMultipart
from email.policy import Compat32
from email.policy import default as default_policy
from email.utils import format_datetime, formataddr, make_msgid
from typing import Any

from app.db.models import utcnow

log = logging.getLogger(__name__)


#: ``<left@right>`` of printable ASCII (RFC 5322 §3.6.4 msg-id); linear: no ``<>`` inside
_MSG_ID = re.compile(r"<([!-;=?-~]{1,900}@[!-;=?-~]{1,900})>")
_BARE_ID = re.compile(r"[!-;=?-~]{1,900}@[!-;=?-~]{1,900}")
#: the longest msg-id (with its brackets) threaded under: ``References: <id>`` fits a line
MAX_ID = 980
#: msg-ids kept in References (RFC 5322 §3.6.4 allows trimming; the first and the latest stay)
MAX_REFERENCES = 10
#: a policy whose raw headers (set with ``set_raw``) are never re-folded: a msg-id longer than
#: a line (Exchange writes long ones) must not become an RFC 2047 encoded word (CPython treats
#: In-Reply-To/References as unstructured, gh-100991, and re-folds a long one with encoded words)
_POLICY = default_policy.clone(refold_source="none")
#: the same for a mail to an internationalized address: its header fields in UTF-8 (RFC 6532),
#: never an encoded word inside an addr-spec (RFC 2047 §5)
_POLICY_UTF8 = _POLICY.clone(utf8=True)


def msg_ids(value: str | None) -> list[str]:
    """The msg-ids in a Message-ID/In-Reply-To/References header value as written, each as
    ``<left@right>`` (a bare ``left@right`` when the header has no bracketed one), in order,
    without repeats. Ids with characters outside printable ASCII (RFC 6532 UTF-8 ids, mojibake)
    are left out: they cannot be written into a 7-bit header without being encoded, and an
    encoded msg-id is no msg-id. So are ids longer than :data:`MAX_ID` characters: written into
    ``In-Reply-To:`` or ``References:`` they would make a line over 998 octets (RFC 5322
    §2.1.1), which relays refuse (RFC 5321 §4.5.3.1.6). At most the first 4,000 characters are
    read."""
    text = (value or "")[:4000]
    found = [f"<{m}>" for m in _MSG_ID.findall(text)]
    if not found and "<" not in text:
        bare = _BARE_ID.search(text.strip())
        if bare is not None and bare.group(0) == text.strip():
            found = [f"<{bare.group(0)}>"]
    return list(dict.fromkeys(m for m in found if len(m) <= MAX_ID))


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
    0xFF5E: "\u301c",  # FULLWIDTH TILDE -> WAVE DASH (JIS 1-33)
    0x2225: "\u2016",  # PARALLEL TO -> DOUBLE VERTICAL LINE (JIS 1-34)
    0xFFE0: "\u00a2",  # FULLWIDTH CENT SIGN -> CENT SIGN (JIS 1-81)
    0xFFE1: "\u00a3",  # FULLWIDTH POUND SIGN -> POUND SIGN (JIS 1-82)
    0xFFE2: "\u00ac",  # FULLWIDTH NOT SIGN -> NOT SIGN (JIS 2-44)
    0x00A0: " ",  # NO-BREAK SPACE -> SPACE
    0x00B7: "\u30fb",  # MIDDLE DOT -> KATAKANA MIDDLE DOT (JIS 1-6)
    0x2022: "\u30fb",  # BULLET -> KATAKANA MIDDLE DOT
    0xFF02: "\u201d",  # FULLWIDTH QUOTATION MARK -> RIGHT DOUBLE QUOTATION MARK
    0xFF07: "\u2019",  # FULLWIDTH APOSTROPHE -> RIGHT SINGLE QUOTATION MARK
}


def to_jis(text: str) -> str:
    """``text`` with the CP932/Unicode vs JIS X 0208 mismatches replaced by their JIS X 0208
    equivalents (:data:`JIS_EQUIVALENTS`) and half-width katakana (U+FF61–U+FF9F, not in
    ISO-2022-JP) made full-width (NFKC), so that ``text.encode("iso-2022-jp")`` succeeds for
    everything JIS X 0208 can show (RFC 1468). Characters with no JIS equivalent are left as they
    are. Never raises."""
    out = text
    for ch, equivalent in _JIS_PAIRS:  # a C scan per pair: str.translate with a dict calls a
        if ch in out:  # lookup per character (ten times slower on a report)
            out = out.replace(ch, equivalent)
    if _HALF_WIDTH_KANA.search(out):
        out = "".join(
            unicodedata.normalize("NFKC", ch) if "\uff61" <= ch <= "\uff9f" else ch for ch in out
        )
        out = unicodedata.normalize("NFC", out)  # カ + ゛ -> ガ
    return out


_HALF_WIDTH_KANA = re.compile("[\uff61-\uff9f]")
_JIS_PAIRS = tuple((chr(c), equivalent) for c, equivalent in JIS_EQUIVALENTS.items())


def _unencodable(text: str) -> str:
    """The characters of ``text`` that ISO-2022-JP cannot hold (``""`` when there are none)."""
    try:
        text.encode("iso-2022-jp")
        return ""
    except UnicodeEncodeError:
        pass
    bad = []
    for ch in dict.fromkeys(text):
        try:
            ch.encode("iso-2022-jp")
        except UnicodeEncodeError:
            bad.append(ch)
    return "".join(bad)


@functools.lru_cache(maxsize=64)
def sender_address(sender: str) -> Address:
    """The one address of ``sender`` (``a@b`` or ``Name <a@b>``, RFC 5322 §3.4) as an
    :class:`email.headerregistry.Address` (immutable; cached: the server's address is parsed
    once, not once per message). Raises ``ValueError`` when it is not exactly one address with
    an addr-spec."""
    addrs = _POLICY.header_factory("From", sender).addresses
    if len(addrs) != 1 or "@" not in addrs[0].addr_spec:
        raise ValueError(f"not one sender address: {sender!r}")
    return addrs[0]


_ASCII = bytes(range(128))


class _HeaderCharset(Charset):
    """A :class:`email.charset.Charset` whose ``header_encode_lines`` finds the text of each
    encoded word by bisection instead of encoding every prefix of the header (``Charset``'s
    loop encodes the text so far once per character: a Japanese subject costs 60 encodes).
    Valid because the encoded length of a prefix never shrinks as the prefix grows (UTF-8,
    ISO-2022-JP with its closing escape); the words are the same (RFC 2047 §2, at most 75
    characters each), and so are the edge cases of that loop (a first line with no room gets
    ``None``; a line holds at least the character that did not fit on the line before)."""

    def header_encode_lines(self, string: str, maxlengths: Iterator[int]) -> list[str | None]:  # type: ignore[override]
        codec = self.output_codec or "us-ascii"
        module = self._get_encoder(_charset_encode(string, codec))  # type: ignore[attr-defined]
        charset = self.get_output_charset() or "us-ascii"
        extra = len(charset) + RFC2047_CHROME_LEN

        def width(end: int) -> int:
            return int(module.header_length(_charset_encode(string[start:end], charset)))

        lines: list[str | None] = []
        maxlen = next(maxlengths) - extra
        start, first = 0, True
        n = len(string)
        while True:
            # the first j (from start, or start + 1 after a break) whose string[start:j + 1]
            # is too wide, if any: bisection over a non-decreasing width
            lo, hi = (start if first else start + 1), n
            while lo < hi:
                mid = (lo + hi) // 2
                if width(mid + 1) > maxlen:
                    hi = mid
                else:
                    lo = mid + 1
            if lo >= n:
                break
            if first and not lines and lo == start:
                lines.append(None)
            else:
                lines.append(
                    module.header_encode(_charset_encode(string[start:lo], codec), charset=codec)
                )
            start, first = lo, False
            maxlen = next(maxlengths) - extra
        lines.append(module.header_encode(_charset_encode(string[start:], codec), charset=codec))
        return lines


def _charset_encode(string: str, codec: str) -> bytes:
    """``email.charset._encode``: ``string`` in ``codec`` (strict), ``unknown-8bit`` as the
    bytes it was read from."""
    if codec == UNKNOWN8BIT:
        return string.encode("ascii", "surrogateescape")
    return string.encode(codec)


#: UTF-8 header fields as "B" encoded words (RFC 2047 §4.1): ``Charset("utf-8")`` computes
#: both encodings of every field to keep the shorter
_UTF8_B = _HeaderCharset("utf-8")
_UTF8_B.header_encoding = BASE64
_JIS_HEADER = _HeaderCharset("iso-2022-jp")


def _one_line(value: str) -> str:
    """``value`` with its line breaks (CR, LF, CRLF and the other ``str.splitlines`` breaks)
    turned into spaces: a header field value is one logical line (RFC 5322 §2.2), and a break
    inside one would end the header or start a forged field (``Bcc:``)."""
    lines = value.splitlines()
    return " ".join(lines) if len(lines) > 1 or value.endswith(("\n", "\r")) else value


#: the longest body line written as it is (RFC 5322 §2.1.1: at most 998, and SHOULD be at most
#: 78 characters, CRLF excluded); a part with a longer line gets a transfer encoding, whose
#: lines are at most 76 characters (RFC 2045 §6.7, §6.8)
MAX_LINE = 78


def _longest_line(data: bytes) -> int:
    """Octets of the longest line of ``data`` (lines end at LF; a CR before it is counted, as
    it is not part of the line end the generator writes)."""
    if len(data) <= MAX_LINE:
        return len(data)
    return max(map(len, data.split(b"\n")))


def _jis_charset(text: str) -> tuple[Charset, bytes]:
    """ISO-2022-JP for a text part, and ``text`` in it: 7bit (RFC 1468) when every encoded
    line has at most :data:`MAX_LINE` octets (escape sequences included; the codec returns to
    ASCII before every line end, as RFC 1468 asks), else quoted-printable (RFC 2045 §6.7): the
    same ISO-2022-JP bytes in lines of at most 76 characters that every MIME reader joins back
    byte for byte, so the escape sequences need no care at the soft breaks. Not base64: the
    text is 7-bit already, and older SpamAssassin rules score base64 text in a charset other than
    UTF-8 (``MIME_BASE64_TEXT``)."""
    cs = _FastCharset("iso-2022-jp")
    data = text.encode("iso-2022-jp")
    if _longest_line(data) > MAX_LINE:
        cs.body_encoding = QP
    return cs, data


def _body_charset(text: str, charset: str = "utf-8") -> tuple[Charset, bytes]:
    """The :class:`email.charset.Charset` a text part of ``text`` is written in, and ``text``
    in it: 7bit for ASCII whose lines have at most :data:`MAX_LINE` octets (RFC 5322 §2.1.1),
    else quoted-printable when it is the shorter (mostly ASCII: at most one byte in six outside
    it) or base64 (Japanese) — the choice ``email.contentmanager`` makes, estimated instead of
    encoding both ways. Either way every line written has at most 78 characters, and the
    reader gets the text back unchanged (no line of it is wrapped)."""
    cs = _FastCharset(charset)
    data = text.encode(charset)
    if data.isascii() and _longest_line(data) <= MAX_LINE:
        cs.body_encoding = None  # type: ignore[assignment]
    elif len(data.translate(None, _ASCII)) * 6 <= len(data):  # bytes outside ASCII, in C
        cs.body_encoding = QP
    else:
        cs.body_encoding = BASE64
    return cs, data


def _text_part(subtype: str, cs: Charset, data: bytes) -> Message:
    """The ``text/<subtype>`` part of ``data`` (a text encoded in ``cs``'s output charset, as
    :func:`_body_charset` and :func:`_jis_charset` give both) in ``cs``'s body encoding: the
    header fields (``Content-Type``, ``MIME-Version``,
    ``Content-Transfer-Encoding``) and the payload that ``email.mime.text.MIMEText(text,
    subtype, cs)`` writes, set directly (MIMEText parses and rewrites its ``Content-Type`` three
    times: a fifth of the MIME build of a report). ``7bit``/``8bit`` as
    ``email.encoders.encode_7or8bit`` decides (RFC 2045 §6.2)."""
    charset = cs.get_output_charset() or "us-ascii"
    encoding = cs.get_body_encoding()
    part = Message()
    part["Content-Type"] = f'text/{subtype}; charset="{charset}"'
    part["MIME-Version"] = "1.0"
    if isinstance(encoding, str):  # "quoted-printable" or "base64"
        part["Content-Transfer-Encoding"] = encoding
        part.set_payload(cs.body_encode(data))  # type: ignore[arg-type]
    else:  # no transfer encoding
        part["Content-Transfer-Encoding"] = "7bit" if data.isascii() else "8bit"
        part.set_payload(data.decode("ascii", "surrogateescape"))
    return part


class _FastCharset(Charset):
    """A :class:`email.charset.Charset` whose quoted-printable body encoding is
    ``binascii.b2a_qp`` (C; RFC 2045 §6.7, lines of at most 76 characters with soft breaks)
    instead of the pure-Python ``email.quoprimime.body_encode``; all else is ``Charset``'s."""

    def body_encode(self, string: str | bytes) -> str:  # type: ignore[override]
        if self.body_encoding is QP:
            data = (
                string.encode(self.output_charset or "utf-8") if isinstance(string, str) else string
            )
            return binascii.b2a_qp(data, istext=True).decode("ascii")
        return super().body_encode(string)  # type: ignore[arg-type, no-any-return]


class _Compat32(Compat32):
    """``email.policy.compat32`` that writes a short one-line ASCII header field as it is
    instead of passing it through ``email.header.Header`` (which would fold it to the same
    bytes, at ten times the cost), and one with a word too long to fold before unfolded;
    every other field is folded by compat32 (RFC 5322 §2.2.3)."""

    def _fold(self, name: str, value: Any, sanitize: bool) -> str:
        if isinstance(value, str) and value.isascii() and "\n" not in value and "\r" not in value:
            width = len(name) + 2 + len(value)
            if width <= 78 or (width <= 998 and max(map(len, value.split()), default=0) > 70):
                # short, or a word too long to fold before: one line (at most 998 characters,
                # RFC 5322 §2.1.1), not an empty first line that unfolds to a leading space
                return f"{name}: {value}{self.linesep}"
        return super()._fold(name, value, sanitize)  # type: ignore[no-any-return, misc]


_COMPAT32 = _Compat32()


class _Generator(BytesGenerator):
    """``email.generator.BytesGenerator`` that writes a part's lines in one call: the stock
    ``_write_lines`` writes each line and each line end separately (two calls per line: half
    the time of a 30 KB battle report). Same bytes: every line end (``\\r\\n``, ``\\r`` or
    ``\\n``) becomes the policy's ``linesep``."""

    def _write_lines(self, lines: str) -> None:
        if lines:
            nl = self._NL  # type: ignore[attr-defined]
            if nl == "\n" and "\r" not in lines:
                self.write(lines)  # already in the policy's line ends (the encoders write "\n")
            else:
                self.write(_LINE_END.sub(nl, lines))


_LINE_END = re.compile(r"\r\n|\r|\n")


def _list_safe(value: str) -> bool:
    """A list header value we write raw: printable ASCII on one line of a sane length."""
    return value.isascii() and value.isprintable() and len(value) <= 200


def shared_bytes(
    *,
    sender: str,
    sender_name: str = "",
    subject: str,
    text: str,
    html: str | None = None,
    charset: str = "utf-8",
    auto_submitted: str | None = "auto-replied",
    now: dt.datetime | None = None,
    log_to: str = "",
    list_id: str = "",
    list_unsubscribe: str = "",
) -> bytes:
    """The serialized message without its per-recipient header fields (``To``, ``Message-ID``,
    ``In-Reply-To``, ``References``): ``From``, ``Subject``, ``Date``, ``Auto-Submitted``,
    ``MIME-Version``, on league mail ``List-Id`` (``list_id``, RFC 2919) and
    ``List-Unsubscribe`` (``list_unsubscribe``, RFC 2369: ``<mailto:…>``), and the content — a text part (``charset``: ``utf-8`` or ``iso-2022-jp``)
    and, when ``html`` is given, an HTML alternative (always UTF-8). A family of mails to many
    recipients (``app.mail.outbox``) shares these bytes; :func:`build_message` adds the rest.

    Built with the ``email`` package's compat32 MIME classes (``email.mime``), which write what
    they are given without re-parsing every header into objects: a third of the time of an
    ``EmailMessage`` built with ``set_content`` (issue 9: a 4,950-battle league builds 7,450 such
    messages). Non-ASCII display names and subjects are RFC 2047 encoded words
    (``email.header.Header``, folded at 78 characters, RFC 5322 §2.1.1); a line break in either
    becomes a space (:func:`_one_line`: no field can be forged through a subject).

    For ISO-2022-JP the text and the subject first go through :func:`to_jis` (``—`` becomes
    ``―``, ``－`` becomes ``−``, …); only what still cannot be encoded falls back to UTF-8 (the
    body and the subject each on its own), logged at INFO naming ``log_to``. Raises
    ``ValueError`` for a sender address that cannot be parsed.
    """
    addr = sender_address(sender)
    subject, sender_name = _one_line(subject), _one_line(sender_name)
    jis = charset.lower() in ("iso-2022-jp", "jis")
    subject_header: Header | str
    if jis and not subject.isascii():
        mapped_subject = to_jis(subject)
        bad = _unencodable(mapped_subject)
        if bad:
            log.info("subject to %s sent in UTF-8: %r has no ISO-2022-JP form", log_to, bad)
            subject_header = Header(subject, _UTF8_B, header_name="Subject")
        else:
            # old Japanese mailers expect =?ISO-2022-JP?B?...?= (RFC 1468/2047)
            subject_header = Header(mapped_subject, _JIS_HEADER, header_name="Subject")
    elif not subject.isascii():
        # the whole subject as encoded words whose text keeps every space (RFC 2047 §5): a mixed
        # subject folded into ASCII words and encoded words can lose the space that stood
        # between two encoded words on the fold (RFC 2047 §6.2; "ヌト —" came back as "ヌト—")
        subject_header = Header(subject, _UTF8_B, header_name="Subject")
    elif "=?" in subject:
        # text that looks like an encoded word is itself encoded (RFC 2047 §5), or readers
        # would decode the player's literal "=?us-ascii?q?x=0D=0ABcc...?=" into a line break
        subject_header = Header(subject, _UTF8_B, header_name="Subject")
    else:
        subject_header = subject  # folded by _Compat32._fold
    if jis:
        mapped = to_jis(text)
        bad = _unencodable(mapped)
        if bad:  # a character JIS X 0208 cannot hold even after the mapping: fall back to UTF-8
            log.info("text to %s sent in UTF-8: %r has no ISO-2022-JP form", log_to, bad)
            plain = _text_part("plain", *_body_charset(text))
        else:
            plain = _text_part("plain", *_jis_charset(mapped))
    else:
        plain = _text_part("plain", *_body_charset(text))
    if html is not None:
        # a boundary from the parts' own SHA-256 digest: a text that holds the digest of itself
        # cannot be made, so the generator need not search the text for a free boundary (a
        # regex compiled per message), and equal messages are equal bytes (stored once)
        digest = hashlib.sha256(
            text.encode("utf-8", "surrogatepass") + b"\0" + html.encode("utf-8", "surrogatepass")
        ).hexdigest()[:40]
        msg: Message = MIMEMultipart("alternative", boundary=f"=_{digest}")
        parts = [plain, _text_part("html", *_body_charset(html))]
        for part in parts:
            del part["MIME-Version"]  # once, at the top (RFC 2045 §4)
            msg.attach(part)
    else:
        msg = plain
    top = Message()
    name = sender_name or addr.display_name
    top["From"] = formataddr((name, addr.addr_spec), charset="utf-8") if name else addr.addr_spec
    top["Subject"] = subject_header  # type: ignore[assignment]
    top["Date"] = format_datetime(now or utcnow())
    if auto_submitted:
        top["Auto-Submitted"] = auto_submitted
    if list_id and _list_safe(list_id):
        top["List-Id"] = list_id
    if list_unsubscribe and _list_safe(list_unsubscribe):
        top["List-Unsubscribe"] = list_unsubscribe
    for name, value in msg.items():  # MIME-Version, Content-Type, Content-Transfer-Encoding
        top[name] = value
    top.set_payload(msg.get_payload())
    out = io.BytesIO()
    _Generator(out, mangle_from_=False, policy=_COMPAT32).flatten(top, unixfrom=False)
    return out.getvalue()


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
    list_id: str = "",
    list_unsubscribe: str = "",
) -> EmailMessage:
    """Build a message with a text part (``charset``: ``utf-8`` or ``iso-2022-jp``) and, when
    ``html`` is given, an HTML alternative (always UTF-8): :func:`shared_bytes` (which see for
    the charsets, the ISO-2022-JP mapping and its UTF-8 fallback) parsed back, plus ``To`` and
    a fresh ``Message-ID`` in the sender's domain.

    Threading: ``In-Reply-To`` is set from ``in_reply_to`` and ``References`` from ``references``
    plus ``in_reply_to`` (RFC 5322 §3.6.4), as msg-ids written raw and folded only between ids
    (:func:`msg_ids`, :func:`fold_ids`; never RFC 2047 encoded words, which Outlook and Exchange
    do not read as ids); an ``in_reply_to`` that is no ASCII msg-id threads nothing, and
    References keeps the first and the last ``MAX_REFERENCES - 1`` ids. Raises ``ValueError``
    for an address that cannot be parsed.
    """
    raw = shared_bytes(
        sender=sender,
        sender_name=sender_name,
        subject=subject,
        text=text,
        html=html,
        charset=charset,
        auto_submitted=auto_submitted,
        now=now,
        log_to=to,
        list_id=list_id,
        list_unsubscribe=list_unsubscribe,
    )
    msg = message_from_bytes(
        raw, _class=EmailMessage, policy=_POLICY if to.isascii() else _POLICY_UTF8
    )
    assert isinstance(msg, EmailMessage)
    msg["To"] = to  # an internationalized address as UTF-8 (RFC 6532 §3.2, sent with SMTPUTF8)
    msg["Message-ID"] = make_msgid(domain=sender_address(sender).domain or "localhost")
    parent = msg_ids(in_reply_to)[:1]
    if parent:
        refs = [r for ref in references for r in msg_ids(ref) if r != parent[0]] + parent
        refs = list(dict.fromkeys(refs))
        if len(refs) > MAX_REFERENCES:
            refs = refs[:1] + refs[-(MAX_REFERENCES - 1) :]
        msg.set_raw("In-Reply-To", parent[0])
        msg.set_raw("References", fold_ids("References", refs))
    return msg
