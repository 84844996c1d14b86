"""Rendering the mail and report templates: one template per view, translated with the message
catalogs (``jinja2.ext.i18n``, see :mod:`app.reports.i18n`).

Templates are named ``reports/<name>.<txt|html>`` and ``mail/<name>.txt`` (one file for every
language; the words come from ``templates/locale/<lang>/LC_MESSAGES/messages.po``). Text parts
are not escaped; HTML parts (``*.html``) are autoescaped, including the variables of translated
messages. Variables a template uses must exist (``StrictUndefined``).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from jinja2 import Environment

from app.reports import i18n

TEMPLATES = i18n.TEMPLATES
LANGS = i18n.LANGS
FORMATS = {"text": "txt", "html": "html"}


def environment(lang: str = "ja") -> Environment:
    """The Jinja ``Environment`` of the mails and reports in ``lang`` (``StrictUndefined``;
    autoescape for ``*.html`` only; trailing newlines kept; the catalog of ``lang`` installed,
    ``lang``, :func:`app.reports.layout.turn_blocks`, :func:`~app.reports.layout.turn_title` and
    :func:`~app.reports.layout.text_table` globals). Raises ``ValueError`` for an unknown language."""
    from app.reports.layout import text_table, turn_blocks, turn_title

    return i18n.environment(
        lang,
        kind="text",
        name="mail",
        globals={"turn_blocks": turn_blocks, "turn_title": turn_title, "text_table": text_table},
    )


def template_name(name: str, lang: str, fmt: str) -> str:
    """``reports/<name>.<ext>`` (``ext`` ``txt`` or ``html``; one file for every language).
    Raises ``ValueError`` for an unknown language or format."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (expected one of {LANGS})")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (expected text or html)")
    return f"reports/{name}.{FORMATS[fmt]}"


def render(name: str, context: object, *, lang: str, fmt: str = "text", **extra: Any) -> str:
    """Render template ``name`` (``reports/<name>.<ext>``) in ``lang`` with the fields of the
    dataclass ``context`` as variables (and the object itself as ``ctx``), plus ``extra``.

    Raises ``TypeError`` when ``context`` is not a dataclass instance, ``ValueError`` for a bad
    language/format and Jinja's ``UndefinedError`` when a template uses a field the context does
    not have."""
    if not is_dataclass(context) or isinstance(context, type):
        raise TypeError("context must be a dataclass instance")
    variables = {f.name: getattr(context, f.name) for f in fields(context)}
    variables.update(extra)
    tpl = environment(lang).get_template(template_name(name, lang, fmt))
    return tpl.render(ctx=context, **variables)


def render_mail(name: str, lang: str, /, **context: Any) -> str:
    """Render the mail reply ``templates/mail/<name>.txt`` in ``lang`` (an unknown language
    falls back to Japanese, the server's first language) with ``context`` as variables.
    Raises Jinja's ``UndefinedError`` when a variable the template uses is missing and
    ``TemplateNotFound`` for an unknown ``name``."""
    if lang not in LANGS:
        lang = LANGS[0]
    return environment(lang).get_template(f"mail/{name}.txt").render(**context)
