"""MIME decoding: charsets (with the CP5022x extensions), transfer encodings, flowed text, HTML,
quotes and signatures, limits, broken input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.mail.decode import (
    decode_bytes,
    decode_iso2022jp,
    decode_message,
    html_to_text,
    strip_quotes_and_signature,
    unflow,
)


def test_iso2022jp_plain_and_extensions() -> None:
    text = "グリスク：１０／１／１／２"
    assert decode_iso2022jp(text.encode("iso-2022-jp")) == text
    # half-width katakana with ESC ( I (CP50221) and with SO/SI (CP50222)
    assert decode_iso2022jp("ｸﾞﾘｽｸ".encode("iso2022_jp_ext")) == "ｸﾞﾘｽｸ"
    assert decode_iso2022jp(b"\x0e\x38\x5e\x0fA") == "ｸﾞA"
    # NEC row 13 (①, ㈱) and an IBM extension kanji (髙) as Outlook writes them (CP50220)
    assert decode_iso2022jp(b"\x1b$B\x2d\x21\x2d\x6a\x1b(B") == "①㈱"
    assert decode_iso2022jp(b"\x1b$B\x7c\x62\x1b(B") == "髙"  # NEC-selected IBM row 92
    # the standard codec cannot do these: this is why the decoder exists
    try:
        b"\x1b$B\x2d\x21\x1b(B".decode("iso-2022-jp")
        std_ok = True
    except UnicodeDecodeError:
        std_ok = False
    assert not std_ok


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("あいうアイウ漢字ｱｲｳ ABCabc123：／、\n"), max_size=60))
def test_iso2022jp_round_trip(text: str) -> None:
    assert decode_iso2022jp(text.encode("iso2022_jp_ext")) == text


@given(st.binary(max_size=200))
def test_decoders_never_raise(data: bytes) -> None:
    decode_iso2022jp(data)
    text, used, _notes = decode_bytes(data, None)
    assert isinstance(text, str) and used
    decode_message(data, max_lines=10, max_bytes=1000)


def test_declared_and_detected_charsets() -> None:
    s = "ヌト：１０／３／１／１／命の剣"
    assert decode_bytes(s.encode("cp932"), "Shift_JIS")[:2] == (s, "cp932")
    assert decode_bytes(s.encode("euc_jp"), "EUC-JP")[:2] == (s, "euc-jp")
    assert decode_bytes(s.encode(), "utf-8")[:2] == (s, "utf-8")
    assert decode_bytes("Zoë".encode("latin-1"), "iso-8859-1")[:2] == ("Zoë", "cp1252")
    # undeclared
    assert decode_bytes(s.encode("cp932"), None)[:2] == (s, "cp932")
    assert decode_bytes(s.encode("euc_jp"), None)[:2] == (s, "euc-jp")
    assert decode_bytes(s.encode("iso-2022-jp"), None)[:2] == (s, "iso-2022-jp")
    # declared wrongly: UTF-8 bytes labelled Shift_JIS
    text, used, notes = decode_bytes("こんにちは、ヌトです".encode(), "Shift_JIS")
    assert text == "こんにちは、ヌトです" and used == "utf-8" and notes
    # unknown label
    text, _used, notes = decode_bytes(b"abc", "x-unknown-charset")
    assert text == "abc" and "unknown charset" in notes[0]


def test_flowed_quotes_signature() -> None:
    assert unflow("Bolt: 10/2/2/2/Spark, \nSpark\n", delsp=False) == "Bolt: 10/2/2/2/Spark, Spark\n"
    assert unflow("abc \ndef", delsp=True) == "abcdef"
    assert unflow(" >not a quote", delsp=False) == ">not a quote"
    body = (
        "順位\n\nOn Sun, Nov 29, 2026 Amaryllis wrote:\n> quoted\n>> deeper\nafter\n-- \nsig line\n"
    )
    # quoted and attribution lines are blanked: "after" stays on line 6, as in the mail
    assert strip_quotes_and_signature(body) == "順位\n\n\n\n\nafter"
    assert strip_quotes_and_signature("\n> old\n\nGrisk") == "\n\n\nGrisk"
    assert strip_quotes_and_signature("\n> only a quote\n") == ""
    assert strip_quotes_and_signature("a\n-----Original Message-----\nold") == "a"


def test_html_to_text_keeps_lines_and_drops_quotes() -> None:
    html = "<div>line 1<br>line&nbsp;2</div><blockquote>old</blockquote><p>line 3</p><style>x{}</style>"
    lines = [x for x in html_to_text(html).split("\n") if x.strip()]
    assert lines == ["line 1", "line 2", "line 3"]


def test_rfc2047_subject_and_text_attachment() -> None:
    raw = (
        b"From: A <a@example.jp>\r\nSubject: =?ISO-2022-JP?B?GyRCRVBPPxsoQg==?=\r\n"
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
        b"see file\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Disposition: attachment; filename=u.txt\r\n\r\nX: 10/1/1/1\r\n--b--\r\n"
    )
    d = decode_message(raw)
    assert d.subject == "登録" and d.sender == "a@example.jp"
    assert d.text == "see file" and d.attachments == ["X: 10/1/1/1"]
    assert d.lang == "ja"


def test_limits() -> None:
    body = "\n".join(f"line {i}" for i in range(30))
    raw = ("Subject: x\r\nContent-Type: text/plain\r\n\r\n" + body).encode()
    d = decode_message(raw, max_lines=10)
    assert d.cut_lines == 20 and d.text.split("\n")[-1] == "line 9"
    big = decode_message(raw + b"x" * 5000, max_bytes=1000)
    assert big.too_large and big.text == "" and big.subject == "x" and big.size > 5000


def test_broken_input_does_not_raise() -> None:
    for raw in (
        b"",
        b"\x00\xff\xfe garbage",
        b"Content-Type: multipart/mixed\r\n\r\nno boundary",
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!notbase64",
    ):
        d = decode_message(raw)
        assert isinstance(d.text, str)


def test_iso2022jp_line_end_resets_to_ascii() -> None:
    # a mailer that forgot ESC ( B before the line end: the next line is still ASCII
    assert decode_iso2022jp(b"\x1b$BF|K\\\nabc") == "日本\nabc"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('"alice2@example.org" <alice2@example.org>', ("alice2@example.org", "")),
        ('"ALICE2@Example.org" <alice2@example.org>', ("alice2@example.org", "")),
        ("alice2@example.org <alice2@example.org>", ("alice2@example.org", "")),
        ('"alice@example.org" <mal2@example.org>', ("", "")),  # a phrase naming another address
        ("alice@example.org (Alice) <m@evil.test>", ("", "")),
    ],
)
def test_a_phrase_that_is_the_address_itself_is_that_address(
    value: str, expected: tuple[str, str]
) -> None:
    """Many clients write a From without a name as ``"a@b" <a@b>``: that is the one mailbox;
    a phrase that names a different address stays refused (display-name forgery)."""
    from email import message_from_bytes

    from app.mail.decode import parse_sender

    msg = message_from_bytes(f"From: {value}\r\nSubject: x\r\n\r\nbody\r\n".encode())
    assert parse_sender(msg) == expected


def test_a_sheet_nested_too_deep_is_reported_not_read_as_raw_mime() -> None:
    """60 nested multiparts hide the text part beyond the parts read: the note says so and the
    MIME structure is never read as the sheet (it was: boundary lines came back as sheet lines)."""
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    from app.mail.decode import MAX_PARTS, decode_message

    inner: object = MIMEText("Grisk: 10/1/1/2/Shield\n- Shield (1): DEF+2 <Limited>\n", "plain")
    for _ in range(60):
        outer = MIMEMultipart("mixed")
        outer.attach(inner)  # type: ignore[arg-type]
        inner = outer
    inner["From"] = "a@example.org"  # type: ignore[index]
    inner["Subject"] = "entry"  # type: ignore[index]
    mail = decode_message(inner.as_bytes())  # type: ignore[attr-defined]
    assert "Content-Type" not in mail.text and "--===" not in mail.text
    assert any(f"within the first {MAX_PARTS} MIME parts" in n for n in mail.notes), mail.notes
    shallow: object = MIMEText("Grisk: 10/1/1/2/Shield\n", "plain")
    for _ in range(20):
        outer = MIMEMultipart("mixed")
        outer.attach(shallow)  # type: ignore[arg-type]
        shallow = outer
    assert "Grisk" in decode_message(shallow.as_bytes()).text  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("=?ISO-2022-JP?B?GyhJQSovOCBDRBsoQg==?=", "ﾁｪｯｸ ﾃﾄ"),  # JIS X 0201 katakana after ESC ( I
        ("=?iso-2022-jp?b?GyRCLSEbKEI=?= test", "① test"),  # NEC row 13 (CP50220)
        ("=?ISO-2022-JP?B?GyRCJUEhPCVgGyhC?= =?ISO-2022-JP?B?GyRCJUEhPCVgGyhC?=", "チームチーム"),
        ("Re: =?utf-8?b?5pel5pys?= x", "Re: 日本 x"),
    ],
)
def test_iso_2022_jp_subject_words_decode_like_bodies(word: str, expected: str) -> None:
    """Python's iso-2022-jp codec cannot read the CP5022x extensions Japanese mailers write in
    subjects, and ``email`` then kept the encoded word as it was (a black-box test: the
    チェック command in such a subject was missed and the mail taken as an entry)."""
    raw = (
        f"From: a@example.org\r\nTo: b@example.org\r\nSubject: {word}\r\n"
        "Message-ID: <x@example.org>\r\n\r\nbody\r\n"
    ).encode()
    assert decode_message(raw).subject == expected
