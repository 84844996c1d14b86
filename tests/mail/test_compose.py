"""Header encoding of the outgoing mail builder (``app.mail.compose``) against the email
package it speeds up."""

from __future__ import annotations


def test_subject_encoded_words_match_the_email_package() -> None:
    """``_HeaderCharset`` (encoded words found by bisection) writes the encoded words
    ``email.charset.Charset`` writes, for UTF-8 and ISO-2022-JP, short and long, with a field
    name that leaves the first line no room (RFC 2047 §2)."""
    import random
    from email.charset import BASE64, Charset
    from email.header import Header

    from app.mail.compose import _JIS_HEADER, _UTF8_B, to_jis

    stock = Charset("utf-8")
    stock.header_encoding = BASE64
    rng = random.Random(4)
    chars = list("グリスクヌトの勝利第回戦：vs —abc Unit  漢字変換日本語") + [
        chr(rng.randrange(0x3041, 0x3094)) for _ in range(30)
    ]
    for _ in range(400):
        text = to_jis("".join(rng.choice(chars) for _ in range(rng.randrange(0, 150))))
        for name in ("Subject", "X-" + "H" * rng.randrange(10, 90)):
            for width in (78, 30):
                assert (
                    Header(text, _UTF8_B, header_name=name, maxlinelen=width).encode()
                    == Header(text, stock, header_name=name, maxlinelen=width).encode()
                )
                assert (
                    Header(text, _JIS_HEADER, header_name=name, maxlinelen=width).encode()
                    == Header(text, "iso-2022-jp", header_name=name, maxlinelen=width).encode()
                )
