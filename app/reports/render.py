"""The Jinja environment of the reports: ``templates/`` with strict undefined variables.

HTML templates (``*.html``) are autoescaped; text templates are not. Templates are named
``reports/<name>.<lang>.<txt|html>``; :func:`render` picks the file for a language and format.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
LANGS = ("ja", "en")
FORMATS = {"text": "txt", "html": "html"}


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The shared Jinja ``Environment`` (``StrictUndefined``; autoescape for ``.html``)."""
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def template_name(name: str, lang: str, fmt: str) -> str:
    """``reports/<name>.<lang>.<ext>``. Raises ``ValueError`` for an unknown language or format."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (expected one of {LANGS})")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (expected text or html)")
    return f"reports/{name}.{lang}.{FORMATS[fmt]}"


def render(name: str, context: object, *, lang: str, fmt: str = "text") -> str:
    """Render template ``name`` with the fields of the dataclass ``context`` as variables (and the
    object itself as ``ctx``). Raises ``ValueError`` for a bad language/format and Jinja's
    ``UndefinedError`` when a template uses a field the context does not have."""
    from dataclasses import fields, is_dataclass

    if not is_dataclass(context):
        raise TypeError("context must be a dataclass instance")
    variables = {f.name: getattr(context, f.name) for f in fields(context)}
    tpl = environment().get_template(template_name(name, lang, fmt))
    return tpl.render(ctx=context, **variables)
