"""MIME to text: the part of a mail that holds the player's command and sheet.

Sources: RFC 5322 (message format), RFC 2045-2047 (MIME, transfer encodings, encoded-word
subjects), RFC 3676 (format=flowed, the ``-- `` signature separator), RFC 1468 (ISO-2022-JP) and
the Microsoft CP50220/CP50221 extensions of it (NEC row 13 such as ①, IBM extensions, half-width
katakana via ``ESC ( I`` or SO/SI).

Parsing uses ``email`` with ``policy=default``; when a declared charset is missing or wrong,
``charset_normalizer`` guesses among the charsets Japanese mail uses. HTML-only mails are reduced to
their text in one pass of the standard library's ``html.parser``. Nothing here raises on bad
input: problems land in ``DecodedMail.notes``.

Bounded work (issue #8.2): every body line is cut to ``max_line_chars`` before anything else looks
at it (the reply says which lines were cut), quote stripping and HTML reduction are single passes,
and no pattern here can backtrack over a long run. Text is made storable (no NUL, no lone
surrogates: ``app.mail.storable``) before it leaves this module.

The sender (:func:`parse_sender`) is read by RFC 5322's grammar for one ``mailbox``, from the
header as written: encoded words are never decoded inside an addr-spec (``alice@=?utf-8?q?
example=2Eorg?=`` is no address), a phrase holding an ``@`` (``alice@example.org (Alice)
<m@evil.test>``) makes the header unusable, several mailboxes or a group too; the addr-spec is then
checked by ``email-validator``.
"""

from __future__ import annotations

import codecs
import email
import email.policy
import functools
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from html.parser import HTMLParser
from typing import Any, cast

from app.mail.storable import clean_display_name, scrub

# ---------------------------------------------------------------------------------------------
# charsets

_ALIASES = {
    "utf8": "utf-8",
    "utf-8": "utf-8",
    "us-ascii": "utf-8",  # ASCII is a subset; 8-bit bytes in "ASCII" mail are nearly always UTF-8
    "ascii": "utf-8",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "cp932": "cp932",
    "x-ms-cp932": "cp932",
    "euc-jp": "euc-jp",
    "x-euc-jp": "euc-jp",
    "eucjp": "euc-jp",
    "cp51932": "euc-jp",
    "iso-8859-1": "cp1252",  # WHATWG: Latin-1 labels mean windows-1252
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "windows-1252": "cp1252",
    "iso-2022-jp": "iso-2022-jp",
    "iso-2022-jp-1": "iso-2022-jp",
    "iso-2022-jp-2": "iso-2022-jp",
    "iso-2022-jp-3": "iso-2022-jp",
    "cp50220": "iso-2022-jp",
    "cp50221": "iso-2022-jp",
    "cp50222": "iso-2022-jp",
    "csiso2022jp": "iso-2022-jp",
}


def _jis_to_sjis(j1: int, j2: int) -> bytes:
    """One JIS X 0208 code (row/cell bytes 0x21-0x7E) as Shift_JIS bytes (decoded with CP932,
    which also holds NEC row 13 and the IBM extensions CP50220/CP50221 mail uses)."""
    s1 = ((j1 + 1) >> 1) + (0x70 if j1 <= 0x5E else 0xB0)
    if j1 & 1:
        s2 = j2 + (0x1F if j2 <= 0x5F else 0x20)
    else:
        s2 = j2 + 0x7E
    return bytes((s1, s2))


_ESC = re.compile(rb"\x1b(\(B|\(J|\(I|\$@|\$B|\$\(D|\$\(Q|\$\(O|&@\x1b\$B)")


def decode_iso2022jp(data: bytes) -> str:
    """Decode ISO-2022-JP including the CP50220/CP50221/CP50222 extensions.

    JIS X 0208 (and JIS X 0213 plane 1) segments are translated to Shift_JIS and decoded with
    CP932, so NEC special characters (①, ㈱) and IBM extensions survive; ``ESC ( I`` and SO/SI
    give half-width katakana; JIS X 0212 segments fall back to Python's ``iso2022_jp_2``.
    Undecodable bytes become U+FFFD. Never raises.
    """
    out: list[str] = []
    mode = "ascii"
    pos = 0
    shifted = False
    n = len(data)
    while pos < n:
        m = _ESC.match(data, pos) if data[pos] == 0x1B else None
        if m:
            seq = m.group(1)
            mode = {
                b"(B": "ascii",
                b"(J": "ascii",
                b"(I": "kana",
                b"$@": "jis",
                b"$B": "jis",
                b"$(Q": "jis",
                b"$(O": "jis",
                b"&@\x1b$B": "jis",
                b"$(D": "jis0212",
            }[seq]
            pos = m.end()
            continue
        b = data[pos]
        if b == 0x0E:  # SO: half-width katakana (CP50222)
            shifted = True
            pos += 1
            continue
        if b == 0x0F:
            shifted = False
            pos += 1
            continue
        if b in (0x0A, 0x0D):  # RFC 1468: every line ends in ASCII; reset if a mailer forgot
            out.append(chr(b))
            mode, shifted = "ascii", False
            pos += 1
            continue
        if shifted or mode == "kana":
            out.append(
                bytes((b | 0x80,)).decode("cp932", "replace") if 0x21 <= b <= 0x5F else chr(b)
            )
            pos += 1
        elif mode == "jis" and pos + 1 < n and 0x21 <= b <= 0x7E and 0x21 <= data[pos + 1] <= 0x7E:
            out.append(_jis_to_sjis(b, data[pos + 1]).decode("cp932", "replace"))
            pos += 2
        elif mode == "jis0212" and pos + 1 < n:
            chunk = b"\x1b$(D" + data[pos : pos + 2] + b"\x1b(B"
            out.append(chunk.decode("iso2022_jp_2", "replace"))
            pos += 2
        else:
            out.append(chr(b) if b < 0x80 else "\ufffd")
            pos += 1
    return "".join(out)


def _try(data: bytes, codec: str) -> str | None:
    if codec == "iso-2022-jp":
        return decode_iso2022jp(data)
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


BOM = "\ufeff"
"""U+FEFF ZERO WIDTH NO-BREAK SPACE, the byte-order mark some editors and clients write first."""


def strip_bom(text: str) -> str:
    """``text`` without the byte-order marks it starts with (U+FEFF; a file saved twice by a
    BOM-writing editor has two). Unicode §23.8: at the start of a text U+FEFF is a signature,
    not content, and a reader drops it; the ``utf-8`` codec keeps it, so a sheet pasted from
    such a file began with an invisible character that the unit-name check refused. Only the
    start is touched: a U+FEFF inside the text stays and is refused where names are checked."""
    return text.lstrip(BOM)


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str, list[str]]:
    """Decode ``data`` (the payload of one MIME part, after its transfer encoding) by its
    ``declared`` charset, else by detection.

    Returns ``(text, charset_used, notes)``; ``text`` starts with no byte-order mark
    (:func:`strip_bom`: every part, so a body, an HTML part and a text attachment each lose
    theirs). Order: the declared charset (normalized through the alias table) when it decodes
    cleanly; ISO-2022-JP when the bytes are 7-bit with ESC sequences; strict UTF-8;
    ``charset_normalizer``'s best guess among CP932, EUC-JP, UTF-8 and CP1252; CP1252 with
    replacement as the last resort. Never raises.
    """
    text, used, notes = _decode_bytes(data, declared)
    return strip_bom(text), used, notes


def _decode_bytes(data: bytes, declared: str | None) -> tuple[str, str, list[str]]:
    notes: list[str] = []
    label = (declared or "").strip().strip('"').lower()
    codec = _ALIASES.get(label)
    if codec is None and label:
        try:
            codec = codecs.lookup(label).name
        except LookupError:
            notes.append(f"unknown charset {declared!r}, detected instead")
    if codec:
        text = _try(data, codec)
        if text is not None and (
            codec != "iso-2022-jp" or b"\x1b" in data or max(data, default=0) < 0x80
        ):
            return text, codec, notes
        if text is None:
            notes.append(f"bytes are not valid {declared}, detected instead")
    if b"\x1b$" in data and max(data, default=0) < 0x80:
        return decode_iso2022jp(data), "iso-2022-jp", notes
    text = _try(data, "utf-8")
    if text is not None:
        return text, "utf-8", notes
    best_ja: tuple[float, str, str] | None = None
    for cand in ("cp932", "euc-jp"):  # Japanese mail first: short texts fool general detectors
        text = _try(data, cand)
        if text is None:
            continue
        wide = [c for c in text if ord(c) > 0x7F]
        score = sum(1 for c in wide if _JAPANESE.match(c)) / max(len(wide), 1)
        if best_ja is None or score > best_ja[0]:
            best_ja = (score, cand, text)
    if best_ja is not None and best_ja[0] >= 0.9:
        notes.append(f"no usable charset declared; read as {best_ja[1]}")
        return best_ja[2], best_ja[1], notes
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data, cp_isolation=["cp932", "euc_jp", "utf_8", "cp1252"]).best()
    except Exception:
        best = None
    if best is not None:
        enc = best.encoding
        name = {"cp932": "cp932", "euc_jp": "euc-jp", "utf_8": "utf-8", "cp1252": "cp1252"}.get(
            enc, enc
        )
        text = _try(data, name)
        if text is not None:
            return text, name, notes
    return data.decode("cp1252", "replace"), "cp1252", notes


# ---------------------------------------------------------------------------------------------
# the result


@dataclass
class DecodedMail:
    """What the pipeline needs from one mail.

    Attributes:
        message: the parsed message (``email.policy.default``).
        subject: the subject, RFC 2047 decoded ("" when absent).
        sender: the From address, lower-cased ("" when absent or unparsable).
        text: the body text that commands and sheets are read from: quoted lines (``>``), the
            attribution line before them and everything after a ``-- `` signature separator
            removed, cut to ``max_lines`` lines.
        attachments: text attachments (decoded), in order; a sheet may be one of them.
        charset: the charset the main text was decoded with (``"iso-2022-jp"``, ``"utf-8"``…).
        source: ``"plain"``, ``"html"``, ``"attachment"`` or ``"none"``: where ``text`` came from.
        cut_lines: lines dropped by the line limit (0 when nothing was cut).
        too_large: the raw mail exceeded ``max_bytes``; only its headers were read.
        size: length of the raw mail in bytes.
        notes: decoding problems worth telling the player (unknown charset, broken MIME…).
        display_name: the From phrase (RFC 2047 decoded, cleaned for others to read), or ``""``.
        long_lines: line numbers (1-based) of body lines cut to ``max_line_chars``.
        partial: only the text parts of a larger mail were fetched (``omitted`` parts).
    """

    message: EmailMessage
    subject: str = ""
    sender: str = ""
    text: str = ""
    attachments: list[str] = field(default_factory=list)
    charset: str = "utf-8"
    source: str = "none"
    cut_lines: int = 0
    too_large: bool = False
    size: int = 0
    notes: list[str] = field(default_factory=list)
    display_name: str = ""
    long_lines: list[int] = field(default_factory=list)
    partial: bool = False

    @property
    def lang(self) -> str:
        """``"ja"`` when the subject or text holds Japanese script, else ``"en"``."""
        return "ja" if _JAPANESE.search(self.subject + self.text) else "en"


_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60\uff66-\uff9f]")


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:
        return ""
    return str(value) if value is not None else ""


_JIS_WORD = re.compile(
    r"=\?(?:iso-2022-jp[-0-9]*|cp5022[012]|csiso2022jp)(?:\*[^?]*)?\?[bq]\?", re.I
)


def _jis_words(msg: Message, name: str) -> str:
    """Header ``name`` decoded when it has ISO-2022-JP encoded words (RFC 2047, RFC 1468),
    else ``""``: each word's bytes through :func:`decode_iso2022jp`, so the CP5022x extensions
    Japanese mailers write in subjects (half-width katakana after ``ESC ( I``, NEC ①) decode
    as they do in bodies; Python's codec cannot, and ``email`` then keeps the word undecoded.
    Other words are decoded with their charset (``email.header.decode_header`` parses them)."""
    from email.header import decode_header

    raw = next((str(v) for k, v in msg.raw_items() if k.lower() == name.lower()), "")
    if not _JIS_WORD.search(raw[:MAX_HEADER]):
        return ""
    out: list[str] = []
    for chunk, charset in decode_header(" ".join(raw[:MAX_HEADER].split())):
        if isinstance(chunk, str):
            out.append(chunk)
            continue
        codec = _ALIASES.get((charset or "us-ascii").lower().partition("*")[0], "")
        out.append(
            decode_iso2022jp(chunk)
            if codec == "iso-2022-jp"
            else chunk.decode(codec or "latin-1", "replace")
        )
    return "".join(out)


_SPECIALS = frozenset('()<>[]:;,"\\')


def _scan_mailbox(value: str) -> tuple[list[str], str | None, list[str]] | None:
    """Tokens of one RFC 5322 ``mailbox``: ``(phrase words, angle addr or None, comments)`` —
    ``None`` when ``value`` is not exactly one mailbox (a group, a list, an unterminated
    quote/comment/angle, a domain literal, text after the angle addr). One linear pass."""
    words: list[str] = []
    comments: list[str] = []
    angle: str | None = None
    i, n = 0, len(value)
    while i < n:
        c = value[i]
        if c.isspace():
            i += 1
        elif c == "(":
            depth, j, buf = 1, i + 1, []
            while j < n and depth:
                ch = value[j]
                if ch == "\\" and j + 1 < n:
                    buf.append(value[j + 1])
                    j += 2
                    continue
                depth += (ch == "(") - (ch == ")")
                if depth:
                    buf.append(ch)
                j += 1
            if depth:
                return None
            comments.append("".join(buf))
            i = j
        elif angle is not None:
            return None  # only comments may follow the angle addr
        elif c == '"':
            j, buf = i + 1, ['"']
            while j < n and value[j] != '"':
                if value[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(value[j])
                j += 1
            if j >= n:
                return None
            words.append("".join(buf) + '"')
            i = j + 1
        elif c == "<":
            end = value.find(">", i + 1)
            inner = value[i + 1 : end] if end > 0 else ""
            if end < 0 or any(ch in inner for ch in '<"()'):
                return None
            angle = inner.strip()
            i = end + 1
        elif c in _SPECIALS:
            return None  # ',' (several mailboxes), ':' ';' (a group), '[' (a domain literal)…
        else:
            j = i
            while j < n and not value[j].isspace() and value[j] not in _SPECIALS:
                j += 1
            words.append(value[i:j])
            i = j
    return words, angle, comments


def _domain_ok(domain: str) -> bool:
    from email_validator import EmailSyntaxError
    from email_validator.syntax import validate_email_domain_name

    try:
        validate_email_domain_name(domain, test_environment=True, globally_deliverable=False)
        return True
    except EmailSyntaxError as exc:
        # special-use names (localhost, *.test, *.local) are fine for a server on loopback
        if "special-use" not in str(exc):
            return False
    return all(
        re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", label)
        for label in domain.lower().split(".")
    )


def check_addr_spec(addr: str) -> str:
    """``addr`` lower-cased when it is a usable addr-spec (RFC 5322 §3.4.1, RFC 6531 UTF-8 local
    parts; no quoted local part, no domain literal; at most 254 characters; checked with
    ``email-validator``), else ``""``. Nothing is decoded."""
    from email_validator import EmailSyntaxError
    from email_validator.syntax import validate_email_local_part

    local, at, domain = addr.rpartition("@")
    if not at or not local or not domain or len(addr) > 254 or "\ufffd" in addr:
        return ""
    try:
        validate_email_local_part(local, allow_smtputf8=True, quoted_local_part=False)
    except EmailSyntaxError:
        return ""
    return addr.lower() if _domain_ok(domain) else ""


def _decoded_phrase(words: list[str]) -> str:
    from email.header import decode_header, make_header

    text = " ".join(w[1:-1] if w.startswith('"') else w for w in words)
    if "=?" in text:
        try:
            text = str(make_header(decode_header(text)))
        except Exception:
            pass
    return text


def parse_sender(msg: Message) -> tuple[str, str]:
    """``(address, display name)`` of the one mailbox in the one From header (module
    docstring), ``("", "")`` when there is none or it is unusable. The address is lower-cased;
    the display name is cleaned (:func:`app.mail.storable.clean_display_name`). Never raises."""
    try:
        values = [v for k, v in msg.raw_items() if k.lower() == "from"]
    except Exception:
        return "", ""
    if len(values) != 1:
        return "", ""
    raw = str(values[0])
    if any((ord(c) < 32 and c not in "\t\r\n") or c == "\x7f" for c in raw):
        return "", ""  # a control character (NUL…) is in no address: never strip it into one
    value = scrub(" ".join(raw.split()))[:2000]
    scanned = _scan_mailbox(value)
    if scanned is None:
        return "", ""
    words, angle, comments = scanned
    if angle is not None:
        if any("@" in w for w in words):
            # ``"alice@example.org" <alice@example.org>``, as many clients write a From without
            # a name, is that one address; a phrase naming ANOTHER address is refused (a
            # display-name forgery such as ``alice@example.org <m@evil.test>``)
            if _decoded_phrase(words).strip().lower() != angle.lower():
                return "", ""
            words = []
        addr, name = angle, _decoded_phrase(words)
    else:
        if len(words) != 1:
            return "", ""
        addr, name = words[0], (comments[0] if comments else "")
    address = check_addr_spec(addr)
    return (address, clean_display_name(name)) if address else ("", "")


def sender_address(msg: Message) -> str:
    """The lower-cased addr-spec of From ("" when there is none or it cannot be used), by
    :func:`parse_sender`."""
    return parse_sender(msg)[0]


def unflow(text: str, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines (ending in a space), remove
    space-stuffing; the signature separator ``-- `` is never joined."""
    out: list[str] = []
    buf = ""
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith(" "):
            line = line[1:]
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


class _HtmlText(HTMLParser):
    """One pass over HTML collecting the visible text (see :func:`html_to_text`)."""

    BLOCKS = frozenset(
        {
            "p",
            "div",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "table",
            "ul",
            "ol",
            "dl",
            "dt",
            "dd",
            "section",
            "article",
            "header",
            "footer",
            "title",
        }
    )
    HIDDEN = frozenset({"script", "style", "head", "blockquote", "template", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.hidden.pop("head", None)  # a head left open ends where the body starts
        if tag in self.HIDDEN:
            self.hidden[tag] = self.hidden.get(tag, 0) + 1
        elif not self.hidden and (tag == "br" or tag in self.BLOCKS):
            self.out.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and not self.hidden:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            if self.hidden.get(tag, 0) > 1:
                self.hidden[tag] -= 1
            else:
                self.hidden.pop(tag, None)
        elif tag in self.BLOCKS and not self.hidden:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(data)


def _cut_html(html: str) -> str:
    """``html`` cut to :data:`MAX_HTML` characters, without a tag left half open at the end."""
    if len(html) <= MAX_HTML:
        return html
    cut = html[:MAX_HTML]
    lt = cut.rfind("<")
    return cut[:lt] if lt > cut.rfind(">") else cut


def html_to_text(html: str) -> str:
    """The visible text of an HTML body: ``<br>`` and the start and end of block elements
    become line ends; ``script``/``style``/``head`` and ``blockquote`` (a quoted earlier mail)
    are dropped; character references are decoded. One pass of the standard library's
    ``html.parser`` with no tree, so the work is linear in the input (30,000 nested ``<div>``
    cost what 30,000 siblings do, issue #8.2). Never raises."""
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        pass
    text = "".join(parser.out)
    lines = [line.rstrip() for line in text.replace("\xa0", " ").splitlines()]
    out: list[str] = []
    for line in lines:  # block starts and ends both break: at most one blank line in a row
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    return "\n".join(out).strip("\n")


# the end of an attribution line ("… wrote:", "…より:", "… <a@b>:"): looked for in the last
# 100 characters of a line only, so a long line costs nothing
_ATTRIBUTION = re.compile(
    r"(?:(?:wrote|writes|書きました|書いています|より)[ \t]*[:：]?|>[ \t]*[:：])\Z", re.I
)
_ORIGINAL = re.compile(r"-{3,}[ \t]*(?:original message|元のメッセージ)", re.I)


def strip_quotes_and_signature(text: str) -> str:
    """Blank quoted reply lines (``>``) and the attribution line just before a quote, and drop an
    Outlook-style ``-----Original Message-----`` tail, everything after ``-- `` and trailing
    blank lines. Lines are blanked, not removed, so that line numbers in replies are those of
    the mail body. One pass (plus one backwards for "the next non-blank line")."""
    lines = text.split("\n")
    nxt_quoted = [False] * (len(lines) + 1)  # is the next non-blank line after i a quote?
    following = False
    for i in range(len(lines) - 1, -1, -1):
        nxt_quoted[i] = following
        if lines[i].strip():
            following = lines[i].lstrip().startswith(">")
    out: list[str] = []
    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped in ("-- ", "--") or line == "-- ":
            break
        if _ORIGINAL.match(stripped[:100]):
            break
        if stripped.lstrip().startswith(">"):
            out.append("")
            continue
        if nxt_quoted[i] and _ATTRIBUTION.search(stripped[-100:]):
            out.append("")
            continue
        out.append(stripped)
    while out and not out[-1].strip():
        out.pop()
    if not any(line.strip() for line in out):
        return ""
    return "\n".join(out)


def cap_lines(text: str, max_chars: int) -> tuple[str, list[int]]:
    """``text`` with every line cut to ``max_chars`` characters, and the 1-based numbers of the
    lines that were cut."""
    if len(text) <= max_chars:
        return text, []
    lines = text.split("\n")
    cut = [i for i, line in enumerate(lines, start=1) if len(line) > max_chars]
    for i in cut:
        lines[i - 1] = lines[i - 1][:max_chars]
    return "\n".join(lines), cut


def _part_text(part: Message, notes: list[str]) -> tuple[str, str]:
    """Decoded text of a leaf part: (text, charset used)."""
    try:
        payload = part.get_payload(decode=True)
    except Exception as exc:
        notes.append(f"undecodable part: {exc}")
        payload = None
    if not isinstance(payload, bytes):  # None, or (a malformed multipart) a list of parts
        raw = part.get_payload()
        payload = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else b""
    text, used, more = decode_bytes(payload, part.get_content_charset())
    notes.extend(more)
    params = {k.lower(): v for k, v in (part.get_params() or [])[1:]}
    if str(params.get("format", "")).lower() == "flowed":
        text = unflow(text, str(params.get("delsp", "")).lower() == "yes")
    return text.replace("\r\n", "\n").replace("\r", "\n"), used


def _is_attachment(part: Message) -> bool:
    disp = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
    return disp == "attachment" or bool(part.get_filename())


#: MIME parts looked at, and text attachments kept, in one mail
MAX_PARTS = 50
MAX_ATTACHMENTS = 10
#: bytes of one raw header line (top-level or of a MIME part), and characters of one unfolded
#: top-level header, handed to ``email`` (its header parser costs microseconds per character;
#: RFC 5322 lines end at 998). Body lines are not cut here (the decoded text is, by
#: ``max_line_chars``).
MAX_RAW_LINE = 8192
MAX_HEADER = 4000
#: characters of an HTML part reduced to text
MAX_HTML = 256_000


def bounded_raw(raw: bytes) -> tuple[bytes, list[str]]:
    """``raw`` cut to what the ``email`` parser may read at a bounded cost, with notes on what
    was cut: every header line (the top-level header, and the lines after a ``--`` boundary line
    up to the next blank line: a part's header) to :data:`MAX_RAW_LINE` bytes, every top-level
    header (with its folded lines) to :data:`MAX_HEADER` characters, and the body at the
    boundary line that would start MIME part number ``2 × MAX_PARTS`` (the parser then sees an
    unterminated multipart and reads the parts before it). One pass; ``raw`` itself stays stored
    as it came."""
    lines = raw.split(b"\n")
    out: list[bytes] = []
    notes: list[str] = []
    in_header, header_len, dropping = True, 0, False
    in_part_header = False
    boundaries = 0
    for line in lines:
        if (in_header or in_part_header) and len(line) > MAX_RAW_LINE:
            line = line[:MAX_RAW_LINE] + (b"\r" if line.endswith(b"\r") else b"")
        if in_part_header and line in (b"", b"\r"):
            in_part_header = False
        if in_header:
            if line in (b"", b"\r"):
                in_header = False
            elif line[:1] in (b" ", b"\t"):
                header_len += len(line)
                if header_len > MAX_HEADER:
                    if not dropping:
                        notes.append(
                            "a header was too long; only its first "
                            f"{MAX_HEADER} characters were read"
                        )
                    dropping = True
                    continue
            else:
                header_len, dropping = len(line), False
        elif line.startswith(b"--"):
            boundaries += 1
            in_part_header = True
            if boundaries > 2 * MAX_PARTS:
                notes.append(f"only the first {MAX_PARTS} MIME parts were read")
                break
        out.append(line)
    return b"\n".join(out), notes


_LINESEP = re.compile(r"\n|\r")


@functools.lru_cache(maxsize=1024)
def _parsed_header(factory: Any, name: str, value: str) -> Any:
    return factory(name, _LINESEP.sub("", value))


class ParsedOncePolicy(email.policy.EmailPolicy):
    """``email.policy.default`` whose header objects are built once per (name, raw value)
    instead of at every read: ``msg["Content-Type"]``, ``get_content_type()``,
    ``get_content_charset()``, ``get_filename()``… each parse the header again under the
    default policy (about 20 parses of ``email.headerregistry`` per entry mail, 16 of them its
    one ``Content-Type``). The parsed headers are immutable; a bounded LRU cache (1,024 entries)
    shares them between reads and between messages."""

    def header_fetch_parse(self, name: str, value: str) -> Any:
        """The header object of ``name: value`` (cached; the stored value is unchanged)."""
        if hasattr(value, "name"):
            return value
        return _parsed_header(self.header_factory, name, value)


PARSE_POLICY = ParsedOncePolicy()
"""The policy inbound mail is parsed with (:class:`ParsedOncePolicy`)."""


def decode_message(
    raw: bytes,
    *,
    max_lines: int = 500,
    max_bytes: int = 1_000_000,
    max_line_chars: int = 1000,
    omitted: list[dict] | None = None,
) -> DecodedMail:
    """Decode one raw mail into the text the commands are read from.

    Args:
        raw: the RFC 5322 bytes as stored (``InboundMessage.raw``).
        max_lines: lines of text kept; the number cut is in ``cut_lines``.
        max_bytes: a larger mail is not decoded beyond its headers (``too_large``).
        max_line_chars: characters of a line kept, before anything else reads the line
            (``long_lines`` lists the lines cut, and a note says so).
        omitted: the parts the poller did not fetch (``InboundMessage.omitted``): the mail is
            ``partial`` and a note names them.
    Returns a :class:`DecodedMail`. Never raises: broken MIME gives what could be read plus a
    note. Every text in it is storable (no NUL, no lone surrogate).
    """
    notes: list[str] = []
    too_large = len(raw) > max_bytes
    source_bytes = raw
    if too_large:
        end = raw.find(b"\r\n\r\n")
        end = raw.find(b"\n\n") if end < 0 else end
        source_bytes = raw[: end if end >= 0 else min(len(raw), 65536)] + b"\r\n\r\n"
    source_bytes, cut_notes = bounded_raw(source_bytes)
    notes.extend(cut_notes)
    try:
        msg = cast(EmailMessage, email.message_from_bytes(source_bytes, policy=PARSE_POLICY))
    except Exception as exc:
        notes.append(f"broken MIME: {exc}")
        msg = EmailMessage()
        msg.set_payload(source_bytes.decode("latin-1"))
    try:
        subject = _jis_words(msg, "Subject") or _header(msg, "Subject")
    except Exception:
        subject = ""
    if "\x1b" in subject:  # raw ISO-2022-JP bytes in a header, not encoded-words
        subject = decode_iso2022jp(subject.encode("latin-1", "replace"))
    subject = " ".join(scrub(subject)[: 4 * 998].split())[:998]
    address, display_name = parse_sender(msg)
    result = DecodedMail(
        message=msg,
        subject=subject,
        sender=address,
        too_large=too_large,
        size=len(raw),
        notes=notes,
        display_name=display_name,
        partial=bool(omitted),
    )
    if too_large:
        return result
    if omitted:
        shown = ", ".join(
            f"{o.get('name') or o.get('type', '?')} ({int(o.get('size', 0)):,} bytes)"
            for o in omitted[:5]
        )
        notes.append(
            f"the mail is larger than {max_bytes:,} bytes: only its text was read; "
            f"not read: {shown}" + (" …" if len(omitted) > 5 else "")
        )

    plain: tuple[str, str] | None = None
    html: tuple[str, str] | None = None
    attachments: list[str] = []
    truncated = False
    try:
        parts = []
        for part in msg.walk():
            parts.append(part)
            if len(parts) >= MAX_PARTS:
                notes.append(f"only the first {MAX_PARTS} MIME parts were read")
                truncated = True
                break
    except Exception as exc:
        notes.append(f"broken MIME structure: {exc}")
        parts = [msg]
    for part in parts:
        try:
            if part.is_multipart():
                continue
            ctype = part.get_content_type()
            filename = (part.get_filename() or "").lower()
            if _is_attachment(part):
                if len(attachments) >= MAX_ATTACHMENTS:
                    continue
                if ctype.startswith("text/") or filename.endswith((".txt", ".text", ".sheet")):
                    text, _ = _part_text(part, notes)
                    if ctype == "text/html":
                        text = html_to_text(_cut_html(text))
                    attachments.append(text)
                continue
            if ctype == "text/plain" and plain is None:
                plain = _part_text(part, notes)
            elif ctype == "text/html" and html is None:
                text, used = _part_text(part, notes)
                if len(text) > MAX_HTML:
                    notes.append(
                        f"the HTML part is long; only its first {MAX_HTML:,} characters were read"
                    )
                    text = _cut_html(text)
                html = (html_to_text(text), used)
            elif ctype == "message/rfc822":
                continue
        except Exception as exc:
            notes.append(f"unreadable part: {exc}")
    if msg.defects:
        notes.append("MIME defects: " + ", ".join(type(d).__name__ for d in msg.defects[:5]))
    notes[:] = list(dict.fromkeys(notes))[:30]  # one note per kind of problem, at most 30
    if plain is None and html is None and not attachments and truncated:
        # the text lies beyond the parts read (e.g. nested 60 multiparts deep): say so rather
        # than read the raw MIME structure as if it were the sheet
        notes.append(
            f"no text part was found within the first {MAX_PARTS} MIME parts (the mail "
            "is nested too deeply or has too many parts): send the sheet as plain text"
        )
    elif plain is None and html is None and not attachments and msg.defects:
        # broken multipart (no boundary found): read the body as plain text
        body = (
            source_bytes.split(b"\r\n\r\n", 1)
            if b"\r\n\r\n" in source_bytes
            else source_bytes.split(b"\n\n", 1)
        )
        if len(body) == 2:
            text, used, more = decode_bytes(body[1], msg.get_content_charset())
            notes.extend(more)
            plain = (text.replace("\r\n", "\n"), used)
    if plain is not None and plain[0].strip():
        text, result.charset, result.source = plain[0], plain[1], "plain"
    elif html is not None and html[0].strip():
        text, result.charset, result.source = html[0], html[1], "html"
    elif attachments:
        text, result.source = "", "attachment"
    else:
        text = ""
    text, result.long_lines = cap_lines(scrub(text), max_line_chars)
    if result.long_lines:
        where = ", ".join(str(n) for n in result.long_lines[:10])
        notes.append(
            f"line {where}{' …' if len(result.long_lines) > 10 else ''}: longer than "
            f"{max_line_chars} characters; only the first {max_line_chars} were read"
        )
    text = strip_quotes_and_signature(text)
    lines = text.split("\n") if text else []
    if len(lines) > max_lines:
        result.cut_lines = len(lines) - max_lines
        lines = lines[:max_lines]
    result.text = "\n".join(lines)
    result.attachments = [
        strip_quotes_and_signature(cap_lines(scrub(a), max_line_chars)[0]) for a in attachments
    ]
    return result
