"""Issue 20: no body line of an outgoing mail is longer than 78 characters (RFC 5322 §2.1.1), in
any charset, and the reader gets the text back unchanged. ISO-2022-JP bodies went out with
lines of up to 271 octets. A part with a longer line now goes quoted-printable (ISO-2022-JP,
mostly-ASCII UTF-8) or base64 (Japanese UTF-8); its lines are at most 76 characters and the
``email`` package decodes it to the very text (``docs/mail.md``, Replies)."""

from __future__ import annotations

import datetime as dt
import email
import email.policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.db.session import transaction
from app.league import service as svc
from app.mail import compose
from app.mail.send import send_once
from tests.mail.conftest import NOW, make_settings, open_league
from tests.mail.hostile import cycle, mk

NOW_ = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def body_lines(raw: bytes) -> list[bytes]:
    """The lines of ``raw`` below its header (every part's header and body), line ends off."""
    return raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[1].split(b"\n")


def texts(raw: bytes) -> dict[str, tuple[str, str, str]]:
    """``{subtype: (charset, transfer encoding, text)}`` of the text parts of ``raw``; line ends
    as ``\\n`` (a text's canonical line end is CRLF, RFC 2045 §2.10: decoded quoted-printable
    keeps the CRLF of the wire, decoded base64 the LF it encoded)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    out = {}
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            out[part.get_content_subtype()] = (
                part.get_content_charset(),
                part["Content-Transfer-Encoding"],
                part.get_content().replace("\r\n", "\n"),
            )
    return out


LONG_JA = (
    "・ターン１２：グリスクのスピア（遅延起動４、効果２倍）がヌトに命中、ＨＰ－６、ヌトのシールドは"
    "リミテッドで消えた。" * 3
)
LONG_EN = (
    "Turn 12: Grisk's Spear (Delay 4, Effect x2) hits Nut for 6 HP; Nut's Shield was Limited. "
) * 3


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=200),
            st.sampled_from(
                [
                    LONG_JA,
                    LONG_EN,
                    "x" * 1200,
                    "あ" * 37,
                    "あ" * 36,
                    "",
                    " trailing  ",
                    "=3D =?utf-8?q?x?= From here",
                    "Ｈｐ－１〜～—",
                ]
            ),
        ),
        max_size=12,
    ),
    charset=st.sampled_from(["utf-8", "iso-2022-jp"]),
)
def test_every_body_line_fits_and_every_part_decodes_to_its_text(
    lines: list[str], charset: str
) -> None:
    text = "\n".join(lines) + "\n"
    html = "<pre>" + text + "</pre>"
    raw = compose.shared_bytes(
        sender="tourney@example.net", subject="s", text=text, html=html, charset=charset, now=NOW_
    )
    assert max(map(len, body_lines(raw))) <= 78
    parts = texts(b"To: p@example.org\n" + raw)
    sent_charset, _cte, plain = parts["plain"]
    if sent_charset == "iso-2022-jp":
        assert charset == "iso-2022-jp" and plain == compose.to_jis(text)
    else:  # UTF-8: asked for, or the fallback for a character JIS X 0208 lacks
        assert plain == text
    assert parts["html"][2] == html


# ------------------------------------------------------------------ the real path, by mail


def _jis_mail(sender: str, subject: str, body: str, mid: str, to: str) -> bytes:
    from email.header import Header

    subject = Header(subject, "iso-2022-jp").encode()
    head = (
        f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: {mid}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=ISO-2022-JP\r\n"
        "Content-Transfer-Encoding: 7bit\r\n\r\n"
    )
    return head.encode("ascii") + body.replace("\n", "\r\n").encode("iso-2022-jp")


def _sheet(name: str) -> str:
    return (
        f"{name}：１０／１／１／２／シールド、スピア、スピア、ブースト\n"
        "・シールド（１）：防御力＋２＜リミテッド＞\n"
        "・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞\n"
        "・ブースト（１）：攻撃力＋１\n"
    )


@pytest.mark.dovecot
def test_replies_reports_and_standings_fit_in_78_columns_in_both_charsets(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """Two Japanese players, one reading ISO-2022-JP and one UTF-8, and two English ones enter
    by mail and ask for help; the league plays every round. Every mail the relay received has
    body lines of at most 78 characters; the ISO-2022-JP and the UTF-8 copy of each mail both
    Japanese players get (help, every battle report between them, every standings table) decode
    to the same text; and the long lines are there, whole, in what the reader sees."""
    to = mail_user.address
    conf = make_settings(
        db_url, imap_url=mail_user.imap_url, smtp_url=smtp_sink.url, server_address=to
    )
    open_league(factory, "spring")
    # long unit names make long lines in every table and turn line
    jis_unit, utf_unit = "グリスク・アマリリス・ロングネーム", "ヌト・マーガレット・ロングネーム"
    cycle(
        conf,
        factory,
        mail_user,
        [
            _jis_mail("jis@example.jp", "entry", _sheet(jis_unit), "<j1@example.jp>", to),
            mk("utf@example.jp", "登録", _sheet(utf_unit), "<u1@example.jp>", to=to),
            mk(
                "en1@example.org",
                "entry",
                "Bolt Of The Very Long Name Indeed: 10/2/2/2/Spark, Spark\n"
                "- Spark (1): Direct Attack\n",
                "<e1@example.org>",
                to=to,
            ),
            mk(
                "en2@example.org",
                "entry",
                "Volt Of The Even Longer Name Indeed: "
                "10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n",
                "<e2@example.org>",
                to=to,
            ),
        ],
    )
    cycle(
        conf,
        factory,
        mail_user,
        [
            _jis_mail("jis@example.jp", "ヘルプ", "ヘルプ\n", "<j2@example.jp>", to),
            mk("utf@example.jp", "ヘルプ", "ヘルプ\n", "<u2@example.jp>", to=to),
        ],
    )
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "spring"), now=NOW + dt.timedelta(days=8))
    from app.mail.league_mail import LeagueMail

    svc.run_round(
        factory, LeagueMail.of(conf), "spring", all_rounds=True, now=NOW + dt.timedelta(days=8)
    )
    while send_once(conf, factory).sent:
        pass

    mails = smtp_sink.messages
    assert len(mails) >= 4 + 2 + 3 * 4  # entries, helps, 3 rounds of reports and standings
    for m in mails:
        assert max(map(len, body_lines(m.raw))) <= 78, m.raw[:300]

    def by_subject(address: str) -> dict[str, dict[str, tuple[str, str, str]]]:
        out = {}
        for m in mails:
            if address in m.rcpt_tos:
                # the subject as JIS shows it: "―" for "—" (compose.to_jis)
                out[compose.to_jis(str(m.parsed()["Subject"]))] = texts(m.raw)
        return out

    jis, utf = by_subject("jis@example.jp"), by_subject("utf@example.jp")
    shared = sorted(set(jis) & set(utf))
    assert any("ヘルプ" in s or "help" in s.lower() for s in shared)
    assert sum("順位" in s for s in shared) >= 3
    assert sum(jis_unit in jis[s]["plain"][2] for s in shared) >= 4
    encodings = set()
    longest = 0
    for subject in shared:
        charset, cte, text_jis = jis[subject]["plain"]
        assert charset == "iso-2022-jp", subject
        assert utf[subject]["plain"][0] == "utf-8"
        assert text_jis == compose.to_jis(utf[subject]["plain"][2]), subject  # the same text
        assert jis[subject].get("html") == utf[subject].get("html")
        encodings.add(cte)
        longest = max(longest, *(len(line.encode("iso-2022-jp")) for line in text_jis.split("\n")))
    assert "quoted-printable" in encodings and longest > 78  # long lines, sent whole
