"""Translations: the catalogs cover every message of the templates, compile at run time, and
``Accept-Language`` negotiation picks the right language."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.reports import i18n

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[tuple[str | None, str]]:
    """Every message id of the templates (web pages, mails, reports) and of app/, as pybabel
    extracts them (babel.cfg)."""
    method_map = [
        ("app/**.py", "python"),
        ("templates/**.html", "jinja2"),
        ("templates/**.txt", "jinja2"),
    ]
    options = {
        "templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"},
        "templates/**.txt": {"extensions": "jinja2.ext.i18n", "trimmed": "true"},
    }
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map=options
    ):
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

    tracked = subprocess.run(
        ["git", "ls-files", "templates/locale"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert tracked and not [f for f in tracked if f.endswith(".mo")]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ja-JP,ja;q=0.9,en;q=0.8", "ja"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR, en;q=0.5, ja;q=0.7", "ja"),
        ("de, *;q=0.1", "ja"),
        ("en;q=0, ja;q=0.1", "ja"),
        ("fr", None),
        ("", None),
        (";;;,q=x,en;q=abc", None),
        ("EN-gb", "en"),
    ],
)
def test_accept_language_negotiation(header: str, expected: str | None) -> None:
    assert i18n.negotiate(header) == expected


def test_po_files_parse_cleanly() -> None:
    for lang in i18n.LANGS:
        data = (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").read_bytes()
        read_po(io.BytesIO(data), locale=lang)


#: templates that exercise each form a message takes: constant, ``%%``, values (escaped when
#: autoescaping), a trans block, an ``{% autoescape %}`` switch (also around a block and a macro
#: call), a message used in an expression, a variable message, ngettext, a constant whose
#: formatting fails, names of the message functions bound by the template itself, keywords the
#: functions reserve or repeated (errors either way)
FOLD_CASES = [
    '{{ _("Standings") }}|{{ _("100%% done") }}|{{ _("Round %(n)s", n=x) }}',
    "{% trans n=x %}Round {{ n }}{% endtrans %}|{% trans %}Standings{% endtrans %}",
    '{% autoescape false %}{{ _("Round %(n)s", n=x) }}{% endautoescape %}'
    '{{ _("Round %(n)s", n=x) }}{{ _("Standings") }}',
    '{% autoescape true %}{{ _("Round %(n)s", n=x) }}{{ _("Standings") }}{% endautoescape %}',
    '{% autoescape false %}{% block b %}{{ _("Standings") }}{{ _("Round %(n)s", n=x) }}'
    "{% endblock %}{% endautoescape %}",
    '{% macro m() %}{{ _("Standings") }}{{ _("Round %(n)s", n=x) }}{% endmacro %}'
    "{% autoescape false %}{{ m() }}{% endautoescape %}{{ m() }}",
    '{{ (_("Standings") ~ x) | upper }}|{{ _(msg) }}|'
    '{{ ngettext("%(num)s round", "%(num)s rounds", 2) }}',
    '{% set t = _("Standings") %}{{ t }}{{ t | length }}'
    '{% if _("Standings") == "順位表" %}ja{% endif %}',
    '{{ _("Round %(n)s", n="<i>") }}|{{ pgettext("list separator", ", ") }}|{{ _("Standings") }}'
    '{{ pgettext("standings table row: printf widths align it with the header", "%(rank)-4s '
    "%(points)4d %(played)3d %(wins)3d %(draws)3d %(losses)3d %(h2h)4d %(sb)6s %(hp)+7d  "
    '%(name)s (%(unit)s)", rank=1, points=2, played=3, wins=1, draws=0, losses=2, h2h=0, '
    'sb="1.5", hp=-3, name=x, unit="U&1") }}|{{ pgettext("list separator", "%(context)s") }}',
    '{% set _ = x.upper %}{{ _("Standings") }}',
    '{% for _ in [1] %}{{ _("Standings") }}{% endfor %}',
    '{% macro m(_) %}{{ _("Standings") }}{% endmacro %}{{ m(x.upper) }}',
    '{% with pgettext = x.replace %}{{ pgettext("list separator", ", ") }}{% endwith %}',
    '{% macro gettext(s) %}[{{ s }}]{% endmacro %}{{ _("Standings") }}',
    '{{ _("Standings", __string=1) }}',
    '{{ pgettext("list separator", ", ", __string_ctx=1) }}',
    '{{ _("Standings", n=1, n=2) }}',
    '{{ _("Round %(n)s") }}',
]


def _markup_catalog() -> object:
    """Translations whose texts hold markup (``<b>``, ``&amp;``) and a quote, as a translator
    may write."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    catalog = Catalog(locale="en")
    catalog.add("Standings", "Player's <b>Standings</b> &amp; more")
    catalog.add("Round %(n)s", "<i>Round</i> %(n)s")
    catalog.add(", ", "<br>", context="list separator")
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf)


def _outcome(render: Any) -> tuple[str, str]:
    """``("ok", output)`` of ``render()``, or ``("error", exception type)``."""
    try:
        return "ok", render()
    except Exception as e:
        return "error", type(e).__name__


def _env_pair(tr: Any, **options: Any) -> tuple[Any, Any]:
    """A plain environment with run-time new-style gettext, and a folding one, same options."""
    from jinja2 import Environment

    plain = Environment(extensions=["jinja2.ext.i18n"], **options)
    folded = i18n._TranslatedEnvironment(extensions=["jinja2.ext.i18n"], **options)
    for env in (plain, folded):
        env.install_gettext_translations(tr, newstyle=True)  # type: ignore[attr-defined]
    folded.fold = tr
    return plain, folded


@pytest.mark.parametrize("lang", [*i18n.LANGS, "markup"])
@pytest.mark.parametrize("autoescape", [True, False])
@pytest.mark.parametrize("source", FOLD_CASES)
def test_folded_messages_render_as_runtime_gettext(
    lang: str, autoescape: bool, source: str
) -> None:
    """A template with its constant messages translated at compile time (the environments of
    :func:`i18n.environment`) renders exactly what run-time ``gettext`` renders, escaping and
    ``%`` formatting included, or fails with the same error, for each catalog (the two
    languages, and one whose translations hold markup) and autoescape setting."""
    tr = _markup_catalog() if lang == "markup" else i18n.translations(lang)
    plain, folded = _env_pair(tr, autoescape=autoescape)
    values = {"x": "<b>&3</b>", "msg": "Standings"}
    got = [
        _outcome(lambda env=env: env.from_string(source).render(**values))  # type: ignore[misc]
        for env in (plain, folded)
    ]
    assert got[1] == got[0]


@pytest.mark.parametrize("lang", [*i18n.LANGS, "markup"])
def test_folded_messages_follow_the_autoescaping_they_render_under(lang: str) -> None:
    """A parent template compiled with autoescaping and extended by one without, a macro
    imported across the two: each message is escaped as run-time gettext escapes it, by the
    autoescaping of the render, not of the compilation."""
    from jinja2 import DictLoader, select_autoescape

    tr = _markup_catalog() if lang == "markup" else i18n.translations(lang)
    loader = DictLoader(
        {
            "b.html": '{{ _("Standings") }}{% block x %}{{ _("Round %(n)s", n=v) }}{% endblock %}',
            "c.txt": '{% extends "b.html" %}',
            "m.html": '{% macro f() %}{{ _("Standings") }}|{{ _("Round %(n)s", n="<i>") }}'
            "{% endmacro %}",
            "d.txt": '{% from "m.html" import f %}{{ f() }}',
            "e.txt": '{% import "m.html" as m with context %}{{ m.f() }}',
        }
    )
    plain, folded = _env_pair(
        tr, loader=loader, autoescape=select_autoescape(enabled_extensions=("html",))
    )
    for name in ("b.html", "c.txt", "m.html", "d.txt", "e.txt"):
        got = [
            _outcome(lambda env=env, name=name: env.get_template(name).render(v="<b>&3</b>"))  # type: ignore[misc]
            for env in (plain, folded)
        ]
        assert got[1] == got[0], name


def test_constant_messages_are_compiled_in_and_broken_ones_still_raise() -> None:
    """The compiled code of a folded template holds the translation as text and calls no
    ``gettext`` for it; a constant message whose ``%`` formatting fails is left to fail at render
    time, as it did before."""
    env = i18n.environment("ja", kind="text")
    code = env.compile('{{ _("Standings") }} {{ _("Round %(n)s", n=3) }}', raw=True)
    assert i18n.translations("ja").gettext("Standings") in code
    assert "gettext" not in code and "'_'" not in code
    with pytest.raises(KeyError):
        env.from_string('{{ _("Round %(n)s") }}').render()
