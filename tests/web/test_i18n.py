"""Translations: the catalogs cover every message of the templates, compile at run time, and
``Accept-Language`` negotiation picks the right language."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.reports import i18n

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[tuple[str | None, str]]:
    """Every message id of the templates (web pages, mails, reports) and of app/, as pybabel
    extracts them (babel.cfg)."""
    method_map = [("app/**.py", "python"), ("templates/**.html", "jinja2"),
                  ("templates/**.txt", "jinja2")]
    options = {"templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"},
               "templates/**.txt": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map=options):
        msgid = message[0] if isinstance(message, (tuple, list)) else message
        found.add((context, msgid))
    return found


def test_every_template_message_has_a_japanese_translation() -> None:
    extracted = _extracted()
    assert len(extracted) > 100
    with (i18n.LOCALE_DIR / "ja" / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        catalog = read_po(fh, locale="ja")
    translated = {}
    for m in catalog:
        if m.id:
            msgid = m.id[0] if isinstance(m.id, tuple) else m.id
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            translated[(m.context, msgid)] = all(strings) and "fuzzy" not in m.flags
    missing = sorted(k[1] for k in extracted if not translated.get(k))
    assert missing == [], f"run pybabel update and translate: {missing}"


def test_catalogs_compile_at_run_time_and_translate() -> None:
    ja = i18n.gettext("ja")
    en = i18n.gettext("en")
    assert ja("Standings") == "順位表" and en("Standings") == "Standings"
    env = i18n.environment("ja")
    out = env.from_string('{{ _("Round %(n)s", n=3) }} {{ _("win") }}').render()
    assert out == "第3回戦 勝ち"
    escaped = env.from_string('{{ _("League %(name)s", name=x) }}').render(x="<b>")
    assert escaped == "リーグ &lt;b&gt;"
    with pytest.raises(ValueError):
        i18n.translations("fr")


def test_no_compiled_catalog_is_committed() -> None:
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "templates/locale"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
    assert tracked and not [f for f in tracked if f.endswith(".mo")]


@pytest.mark.parametrize(("header", "expected"), [
    ("ja-JP,ja;q=0.9,en;q=0.8", "ja"),
    ("en-US,en;q=0.9", "en"),
    ("fr-FR, en;q=0.5, ja;q=0.7", "ja"),
    ("de, *;q=0.1", "ja"),
    ("en;q=0, ja;q=0.1", "ja"),
    ("fr", None),
    ("", None),
    (";;;,q=x,en;q=abc", None),
    ("EN-gb", "en"),
])
def test_accept_language_negotiation(header: str, expected: str | None) -> None:
    assert i18n.negotiate(header) == expected


def test_po_files_parse_cleanly() -> None:
    for lang in i18n.LANGS:
        data = (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").read_bytes()
        read_po(io.BytesIO(data), locale=lang)
