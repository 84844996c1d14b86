"""MIME to text: the part of a mail that holds the player's command and sheet.

Sources: RFC 5322 (message format), RFC 2045-2047 (MIME, transfer encodings, encoded-word
subjects), RFC 3676 (format=flowed, the ``-- `` signature separator), RFC 1468 (ISO-2022-JP) and
the Microsoft CP50220/CP50221 extensions of it (NEC row 13 such as ①, IBM extensions, half-width
katakana via ``ESC ( I`` or SO/SI).

Parsing uses ``email`` with ``policy=default``; when a declared charset is missing or wrong,
``charset_normalizer`` guesses among the charsets Japanese mail uses. HTML-only mails are reduced to
their text with BeautifulSoup. Nothing here raises on bad input: problems land in
``DecodedMail.notes``.
"""

from __future__ import annotations

import codecs
import email
import email.policy
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.utils import getaddresses

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
                b"(B": "ascii", b"(J": "ascii", b"(I": "kana", b"$@": "jis", b"$B": "jis",
                b"$(Q": "jis", b"$(O": "jis", b"&@\x1b$B": "jis", b"$(D": "jis0212",
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
            out.append(bytes((b | 0x80,)).decode("cp932", "replace") if 0x21 <= b <= 0x5F else chr(b))
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


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str, list[str]]:
    """Decode ``data`` by its ``declared`` charset, else by detection.

    Returns ``(text, charset_used, notes)``. Order: the declared charset (normalized through the
    alias table) when it decodes cleanly; ISO-2022-JP when the bytes are 7-bit with ESC sequences;
    strict UTF-8; ``charset_normalizer``'s best guess among CP932, EUC-JP, UTF-8 and CP1252; CP1252
    with replacement as the last resort. Never raises.
    """
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
        if text is not None and (codec != "iso-2022-jp" or b"\x1b" in data or max(data, default=0) < 0x80):
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
    except Exception:  # noqa: BLE001 - the detector must never stop decoding
        best = None
    if best is not None:
        enc = best.encoding
        name = {"cp932": "cp932", "euc_jp": "euc-jp", "utf_8": "utf-8", "cp1252": "cp1252"}.get(enc, enc)
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

    @property
    def lang(self) -> str:
        """``"ja"`` when the subject or text holds Japanese script, else ``"en"``."""
        return "ja" if _JAPANESE.search(self.subject + self.text) else "en"


_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60\uff66-\uff9f]")


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # noqa: BLE001 - malformed header: treat as absent
        return ""
    return str(value) if value is not None else ""


def sender_address(msg: Message) -> str:
    """The lower-cased addr-spec of From ("" when there is none or it cannot be parsed)."""
    raw = _header(msg, "From")
    try:
        pairs = getaddresses([raw])
    except Exception:  # noqa: BLE001
        return ""
    for _name, addr in pairs:
        if addr and "@" in addr:
            return addr.strip().lower()
    return ""


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


def html_to_text(html: str) -> str:
    """The visible text of an HTML body (``<br>`` and block ends become line ends)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    for br in soup.find_all("br"):
        br.replace_with("\n")
    for block in soup.find_all(["p", "div", "li", "tr", "h1", "h2", "h3", "pre", "blockquote"]):
        if block.name == "blockquote":  # a quoted earlier mail
            block.decompose()
            continue
        block.append("\n")
    text = soup.get_text()
    return "\n".join(line.rstrip() for line in text.replace("\xa0", " ").splitlines())


_ATTRIBUTION = re.compile(r"((wrote|writes|書きました|書いています|より)\s*[:：]?|>\s*[:：])\s*$", re.I)


def strip_quotes_and_signature(text: str) -> str:
    """Blank quoted reply lines (``>``) and the attribution line just before a quote, and drop an
    Outlook-style ``-----Original Message-----`` tail, everything after ``-- `` and trailing
    blank lines. Lines are blanked, not removed, so that line numbers in replies are those of
    the mail body."""
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped in ("-- ", "--") or line == "-- ":
            break
        if re.match(r"^-{3,}\s*(original message|元のメッセージ)", stripped, re.I):
            break
        if stripped.lstrip().startswith(">"):
            out.append("")
            continue
        nxt = next((x for x in lines[i + 1 :] if x.strip()), "")
        if _ATTRIBUTION.search(stripped) and nxt.lstrip().startswith(">"):
            out.append("")
            continue
        out.append(stripped)
    while out and not out[-1].strip():
        out.pop()
    if not any(line.strip() for line in out):
        return ""
    return "\n".join(out)


def _part_text(part: Message, notes: list[str]) -> tuple[str, str]:
    """Decoded text of a leaf part: (text, charset used)."""
    try:
        payload = part.get_payload(decode=True)
    except Exception as exc:  # noqa: BLE001
        notes.append(f"undecodable part: {exc}")
        payload = None
    if payload is None:
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


def decode_message(raw: bytes, *, max_lines: int = 500, max_bytes: int = 1_000_000) -> DecodedMail:
    """Decode one raw mail into the text the commands are read from.

    Args:
        raw: the RFC 5322 bytes as stored (``InboundMessage.raw``).
        max_lines: lines of text kept; the number cut is in ``cut_lines``.
        max_bytes: a larger mail is not decoded beyond its headers (``too_large``).
    Returns a :class:`DecodedMail`. Never raises: broken MIME gives what could be read plus a note.
    """
    notes: list[str] = []
    too_large = len(raw) > max_bytes
    source_bytes = raw
    if too_large:
        end = raw.find(b"\r\n\r\n")
        end = raw.find(b"\n\n") if end < 0 else end
        source_bytes = raw[: end if end >= 0 else min(len(raw), 65536)] + b"\r\n\r\n"
    try:
        msg = email.message_from_bytes(source_bytes, policy=email.policy.default)
    except Exception as exc:  # noqa: BLE001 - email is lenient, but be sure
        notes.append(f"broken MIME: {exc}")
        msg = EmailMessage()
        msg.set_payload(source_bytes.decode("latin-1"))
    try:
        subject = _header(msg, "Subject")
    except Exception:  # noqa: BLE001
        subject = ""
    if "\x1b" in subject:  # raw ISO-2022-JP bytes in a header, not encoded-words
        subject = decode_iso2022jp(subject.encode("latin-1", "replace"))
    subject = " ".join(subject.split())
    result = DecodedMail(
        message=msg, subject=subject, sender=sender_address(msg), too_large=too_large,
        size=len(raw), notes=notes,
    )
    if too_large:
        return result

    plain: tuple[str, str] | None = None
    html: tuple[str, str] | None = None
    attachments: list[str] = []
    try:
        parts = list(msg.walk())
    except Exception as exc:  # noqa: BLE001
        notes.append(f"broken MIME structure: {exc}")
        parts = [msg]
    for part in parts:
        try:
            if part.is_multipart():
                continue
            ctype = part.get_content_type()
            filename = (part.get_filename() or "").lower()
            if _is_attachment(part):
                if ctype.startswith("text/") or filename.endswith((".txt", ".text", ".sheet")):
                    text, _ = _part_text(part, notes)
                    if ctype == "text/html":
                        text = html_to_text(text)
                    attachments.append(text)
                continue
            if ctype == "text/plain" and plain is None:
                plain = _part_text(part, notes)
            elif ctype == "text/html" and html is None:
                text, used = _part_text(part, notes)
                html = (html_to_text(text), used)
            elif ctype == "message/rfc822":
                continue
        except Exception as exc:  # noqa: BLE001 - one bad part must not lose the others
            notes.append(f"unreadable part: {exc}")
    if msg.defects:
        notes.append("MIME defects: " + ", ".join(type(d).__name__ for d in msg.defects[:5]))
    if plain is None and html is None and not attachments and msg.defects:
        # broken multipart (no boundary found): read the body as plain text
        body = source_bytes.split(b"\r\n\r\n", 1) if b"\r\n\r\n" in source_bytes else source_bytes.split(b"\n\n", 1)
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
    text = strip_quotes_and_signature(text)
    lines = text.split("\n") if text else []
    if len(lines) > max_lines:
        result.cut_lines = len(lines) - max_lines
        lines = lines[:max_lines]
    result.text = "\n".join(lines)
    result.attachments = [strip_quotes_and_signature(a) for a in attachments]
    return result
