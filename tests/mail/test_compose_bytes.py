"""The fast message builder (``app.mail.compose.shared_bytes``, issue 9) writes what the ``email``
package would, and every part parses back to the text it was given."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import io
from email.generator import BytesGenerator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.mail import compose

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
TEXTS = [
    "Round 3 — Grisk vs Nut\nturn 1: 12 HP\n" * 40,
    "第3回戦：グリスク 対 ヌト\n・ターン1：ＨＰ－１\n" * 40,
    "plain ascii\r\nwith CRLF\rand CR\n" + "x" * 2000 + "\n",
    "",
]


def _stock(**kw: object) -> bytes:
    """The same message written by the stock ``BytesGenerator`` (line by line)."""
    saved = compose._Generator._write_lines
    try:
        compose._Generator._write_lines = BytesGenerator._write_lines  # type: ignore[method-assign]
        return compose.shared_bytes(**kw)  # type: ignore[arg-type]
    finally:
        compose._Generator._write_lines = saved  # type: ignore[method-assign]


@pytest.mark.parametrize("charset", ["utf-8", "iso-2022-jp"])
@pytest.mark.parametrize("text", TEXTS)
def test_the_one_call_generator_writes_the_stock_bytes(text: str, charset: str) -> None:
    kw = dict(
        sender="tourney@example.net",
        sender_name="Tourney — 春",
        subject="[spring] 第1回戦 — x",
        text=text,
        html=f"<p>{text}</p>",
        charset=charset,
        now=NOW,
    )
    assert compose.shared_bytes(**kw) == _stock(**kw)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400),
    html=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400),
    subject=st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=120),
)
def test_every_part_parses_back_to_its_text(text: str, html: str, subject: str) -> None:
    raw = compose.shared_bytes(
        sender="tourney@example.net",
        sender_name="T",
        subject=subject,
        text=text,
        html=html,
        now=NOW,
    )
    assert all(len(line) <= 998 for line in raw.split(b"\n"))  # RFC 5322 §2.1.1
    assert raw.isascii()
    back = email.message_from_bytes(b"To: a@example.org\n" + raw, policy=email.policy.default)

    def norm(s):
        return s.replace("\r\n", "\n").replace("\r", "\n")

    assert norm(back.get_body(("plain",)).get_content()).rstrip("\n") == norm(text).rstrip("\n")
    assert norm(back.get_body(("html",)).get_content()).rstrip("\n") == norm(html).rstrip("\n")
    assert back["Subject"] == subject
    boundary = back.get_boundary()
    assert boundary and boundary.startswith("=_")


def test_equal_messages_are_equal_bytes() -> None:
    kw = dict(sender="tourney@example.net", subject="s", text="a\n", html="<p>a</p>", now=NOW)
    assert compose.shared_bytes(**kw) == compose.shared_bytes(**kw)  # type: ignore[arg-type]
    assert io.BytesIO(compose.shared_bytes(**kw)).read().count(b"--=_") == 3  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "subject",
    [
        "hello\nBcc: victim@example.com",
        "a\r\nb",
        "a\rb",
        "a\nb\n",
        "日本\n語",
        "x" * 100 + "\nBcc: v@example.com",
        "a\u2028b",
    ],
)
def test_a_line_break_in_a_subject_or_name_forges_no_field(subject: str) -> None:
    msg = compose.build_message(
        sender="tourney@example.net",
        sender_name="Tour\nBcc: v@e.com",
        to="p@example.org",
        subject=subject,
        text="body\n",
    )
    raw = msg.as_bytes()
    back = email.message_from_bytes(raw, policy=email.policy.default)
    assert back["Bcc"] is None and "Bcc" not in [k for k, _ in back.items()]
    assert back["Subject"] == " ".join(subject.splitlines())
    assert back["From"].addresses[0].display_name == "Tour Bcc: v@e.com"
    assert back.get_body(("plain",)).get_content() == "body\n"  # the header ended where it should
    assert {"Date", "MIME-Version", "Content-Type", "To", "Message-ID"} <= set(back.keys())


def test_a_long_msg_id_threads_nothing_rather_than_break_the_line_limit() -> None:
    """A Message-ID of 990 characters (folded within 998 octets in the player's mail) would make
    ``In-Reply-To: <id>`` a line of 1,004 octets, which relays refuse (found by a black-box test:
    500 Line too long, the reply lost)."""
    long_id = "<" + "b" * 900 + "@" + "d" * 84 + ".org>"
    ok_id = "<" + "c" * 900 + "@" + "d" * 60 + ".org>"
    for parent, threaded in ((long_id, False), (ok_id, True)):
        raw = compose.build_message(
            sender="s@example.net",
            to="p@example.org",
            subject="Re: x",
            text="t\n",
            in_reply_to=parent,
        ).as_bytes()
        assert max(map(len, raw.split(b"\n"))) <= 998
        assert (b"In-Reply-To: " + parent.encode() in raw) is threaded


def test_a_jis_line_over_78_octets_goes_quoted_printable() -> None:
    """A 7bit ISO-2022-JP part keeps its lines (RFC 1468) when none is over 78 octets; a longer
    one (issue 20: lines of up to 271 octets went out as they were; before that, over 998 octets
    went base64) makes the part quoted-printable, still ISO-2022-JP, every line at most 76
    characters (RFC 2045 §6.7), and the text comes back unchanged."""
    long_line = "お" * 500 + "：１０／１／１／２／" + "あ" * 100 + "\nshort\n"
    just_over = "あ" * 37 + "\n"  # 74 octets of JIS + 3 + 3 for the escapes: 80
    fits = "あ" * 36 + "\n"  # 72 + 6 = 78
    for text, cte in (
        (long_line, "quoted-printable"),
        (just_over, "quoted-printable"),
        (fits, "7bit"),
        ("短い行\n", "7bit"),
    ):
        raw = compose.build_message(
            sender="s@example.net",
            to="p@example.org",
            subject="x",
            text=text,
            charset="iso-2022-jp",
        ).as_bytes()
        body = raw.split(b"\n\n", 1)[1]
        assert max(map(len, body.split(b"\n"))) <= 78
        part = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",))
        assert (
            part["Content-Transfer-Encoding"] == cte and part.get_content_charset() == "iso-2022-jp"
        )
        assert part.get_content() == text


def test_an_internationalized_address_is_written_in_utf8_not_encoded_words() -> None:
    raw = compose.build_message(
        sender="s@example.net", to="jörg@exämple.org", subject="x", text="t\n"
    ).as_bytes()
    assert "To: jörg@exämple.org".encode() in raw and b"=?utf-8?q?j" not in raw  # RFC 2047 §5


def test_a_literal_encoded_word_in_a_subject_is_encoded_itself() -> None:
    """RFC 2047 §5: the player's text ``=?us-ascii?q?x=0D=0ABcc...?=`` echoed raw would be decoded
    by readers into a line break and a Bcc: line."""
    subject = "Re: check =?us-ascii?q?x=0D=0ABcc=3A_v=40evil.test?="
    raw = compose.build_message(
        sender="s@example.net", to="p@example.org", subject=subject, text="t\n"
    ).as_bytes()
    back = email.message_from_bytes(raw, policy=email.policy.default)
    assert back["Subject"] == subject


def test_a_subject_of_spaces_only_is_written() -> None:
    """A long whitespace-only subject has no word to measure (max() of nothing raised)."""
    raw = compose.build_message(
        sender="s@example.net", to="p@example.org", subject=" " * 120, text="t\n"
    ).as_bytes()
    assert max(map(len, raw.split(b"\n"))) <= 998
    assert email.message_from_bytes(raw, policy=email.policy.default)["Subject"].strip() == ""
