"""Translated Jinja environments: one per language, over ``templates/`` with ``jinja2.ext.i18n``
and the Babel message catalogs in ``templates/locale/<lang>/LC_MESSAGES/messages.po``.

Templates are written once, with English message ids (``{% trans %}…{% endtrans %}``,
``{{ _("…") }}``, ``{{ ngettext(…) }}``); the catalogs give the Japanese (and, where wanted, a
polished English) text. The web view (``kind="html"``) and the mails and reports
(``kind="text"``, through :mod:`app.reports.render`) all render through it; Python code gets its
words from :func:`gettext` and :func:`pgettext` (``docs/translating.md``).

Catalogs are compiled **at run time**: :func:`translations` reads the ``.po`` file with Babel and
compiles it in memory once per process (a few milliseconds), so a fresh clone and ``pip install -e .``
need no build step and no compiled ``.mo`` file is committed. A ``.mo`` next to the ``.po`` that is
at least as new is used instead (a packager may compile them: ``pybabel compile -d
templates/locale``).

Updating the catalogs after editing templates (``babel.cfg`` at the top of the repository)::

    .venv/bin/pybabel extract -F babel.cfg -o templates/locale/messages.pot --no-location --sort-output .
    .venv/bin/pybabel update -i templates/locale/messages.pot -d templates/locale --no-fuzzy-matching
    .venv/bin/python scripts/fill_ja_catalog.py   # the Japanese of every message, then check:
    .venv/bin/python -m pytest -q tests/web/test_i18n.py

A new language is ``pybabel init -i templates/locale/messages.pot -d templates/locale -l XX`` and
an entry in :data:`LANGS`.
"""

from __future__ import annotations

import datetime as dt
import io
import threading
from collections.abc import Callable, Iterable
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    nodes,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from app import paths
from app.reports.dates import human_time

#: the ``templates/`` folder (web pages, mails, reports, partials and ``locale/``): at the top of
#: the checkout, or inside the installed package (``app.paths``)
TEMPLATES = paths.TEMPLATES
#: the message catalogs: ``<lang>/LC_MESSAGES/messages.po``
LOCALE_DIR = TEMPLATES / "locale"
#: the languages with a catalog, the first is the default
LANGS: tuple[str, ...] = ("ja", "en")
DOMAIN = "messages"

_lock = threading.Lock()
_translations: dict[str, NullTranslations] = {}
_environments: dict[tuple[str, str, str], Environment] = {}


def translations(lang: str) -> NullTranslations:
    """The compiled catalog of ``lang`` (cached per process). Raises ``ValueError`` for a language
    not in :data:`LANGS`; a language whose ``.po`` file is missing gets no translations (message
    ids shown as written, in English)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (expected one of {LANGS})")
    with _lock:
        cached = _translations.get(lang)
        if cached is None:
            cached = _translations[lang] = _load(lang)
        return cached


def _load(lang: str) -> NullTranslations:
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fh:
            return Translations(fh, domain=DOMAIN)
    if not po.is_file():
        return NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def gettext(lang: str) -> Callable[[str], str]:
    """``gettext`` of ``lang`` for Python code (``_ = gettext("ja"); _("Standings")``)."""
    return translations(lang).gettext


def pgettext(lang: str) -> Callable[[str, str], str]:
    """``pgettext`` of ``lang``: a message id with a context (``pgettext("ja")("a report's
    subject", "draw")``)."""
    tr = translations(lang)

    def pgettext(context: str, message: str) -> str:
        return str(tr.pgettext(context, message))

    return pgettext


#: the names a folded call may have: the functions ``jinja2.ext.i18n`` installs
_MESSAGE_FUNCTIONS = ("_", "gettext", "pgettext")
#: keyword names the new-style functions take themselves (a value of that name is an error)
_RESERVED = ("__context", "__string", "__string_ctx")


@pass_context
def _translated(context: Context, text: str) -> str:
    """A folded message as new-style gettext returns it before formatting: ``Markup`` when the
    *render-time* context autoescapes (``pass_context``: never constant-folded, so a message in
    a block, a macro or a parent template follows the autoescaping it is rendered under, as a
    gettext call does)."""
    return Markup(text) if context.eval_ctx.autoescape else text


def _binds_message_names(tree: nodes.Template) -> bool:
    """Whether ``tree`` binds ``_``, ``gettext`` or ``pgettext`` itself (``set``, ``for``,
    ``with``, a macro or its parameter, an import): then its calls of those names are not
    the catalog's and nothing is folded."""
    for node in tree.find_all((nodes.Name, nodes.Macro, nodes.Import, nodes.FromImport)):
        if (
            isinstance(node, nodes.Name)
            and node.ctx in ("store", "param")
            and node.name in _MESSAGE_FUNCTIONS
        ):
            return True
        if isinstance(node, nodes.Macro) and node.name in _MESSAGE_FUNCTIONS:
            return True
        if isinstance(node, nodes.Import) and node.target in _MESSAGE_FUNCTIONS:
            return True
        if isinstance(node, nodes.FromImport) and any(
            (n[1] if isinstance(n, tuple) else n) in _MESSAGE_FUNCTIONS for n in node.names
        ):
            return True
    return False


class _FoldMessages(NodeTransformer):
    """Replace each ``_("constant", name=value, …)``, ``gettext(…)`` and ``pgettext("context",
    "constant", …)`` call of a parsed template (``jinja2.ext.i18n``, new style; a ``{% trans %}``
    block parses to a ``gettext`` call) by its translation from ``translations``, as the
    new-style functions compute it at run time: ``Markup`` when the render-time context
    autoescapes (:func:`_translated`), then ``% {name: value, …}`` (``pgettext`` adds
    ``context``; the values escaped when the message is ``Markup``). The catalog look-up and
    the two ``Context.call`` hops of a call are gone; what stays is a direct filter call.

    Left as calls: a variable message or context, ``*args``/``**kwargs``, a repeated or
    reserved keyword (an error at render time, as before), ``ngettext``, a constant message
    whose ``%`` formatting raises. A template that binds one of the names itself
    (:func:`_binds_message_names`) is not folded at all. Not detectable here: a render variable
    named ``_``, ``gettext`` or ``pgettext``; no caller passes one."""

    def __init__(self, tr: NullTranslations) -> None:
        self.tr = tr

    def visit_Call(self, node: nodes.Call) -> nodes.Node:
        node = self.generic_visit(node)  # type: ignore[assignment]
        fn = node.node
        args = [a.value for a in node.args if isinstance(a, nodes.Const)]
        keys = [k.key for k in node.kwargs]
        if (
            not isinstance(fn, nodes.Name)
            or node.dyn_args
            or node.dyn_kwargs
            or len(args) != len(node.args)
            or not all(isinstance(a, str) for a in args)
            or len(set(keys)) != len(keys)
            or any(k in _RESERVED for k in keys)
        ):
            return node
        values: dict[str, nodes.Expr] = {k.key: k.value for k in node.kwargs}
        if fn.name in ("_", "gettext") and len(args) == 1:
            text = self.tr.gettext(args[0])
        elif fn.name == "pgettext" and len(args) == 2:
            text = str(self.tr.pgettext(args[0], args[1]))
            values.setdefault("context", nodes.Const(args[0]))
        else:
            return node
        if not values:
            try:
                text = text % {}
            except (KeyError, ValueError, TypeError):
                return node
        message: nodes.Expr = nodes.Filter(nodes.Const(text), _FILTER, [], [], None, None)
        if values:
            pairs = [nodes.Pair(nodes.Const(k), v) for k, v in values.items()]
            message = nodes.Mod(message, nodes.Dict(pairs))
        return message.set_lineno(node.lineno)


#: the name :func:`_translated` is registered under in a folding environment's filters
_FILTER = "_amaryllis_translated"


class _TranslatedEnvironment(Environment):
    """An ``Environment`` of one language whose templates carry the translations of their
    constant messages compiled in (:class:`_FoldMessages`): a report mail's HTML part called
    ``gettext`` about 16 times per render (a third of the render time) for text that is the
    same in every mail of the language. The output is the same as with run-time ``gettext``."""

    fold: NullTranslations | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters[_FILTER] = _translated

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if self.fold is None or _binds_message_names(tree):
            return tree
        folded = _FoldMessages(self.fold).visit(tree)
        folded.set_environment(self)
        return folded  # type: ignore[no-any-return]


def environment(
    lang: str,
    *,
    kind: str = "html",
    name: str = "",
    filters: dict[str, Callable[..., Any]] | None = None,
    globals: dict[str, Any] | None = None,
) -> Environment:
    """The Jinja ``Environment`` of ``lang`` over :data:`TEMPLATES` (cached per language,
    ``kind`` and ``name``: a user with its own ``filters``/``globals``, such as the web view's
    ``name="web"``, gets an environment of its own), with ``jinja2.ext.i18n`` installed (new-style gettext: ``_("%(n)s rounds", n=3)``
    formats and autoescapes), ``trimmed`` translation blocks, ``StrictUndefined``,
    ``trim_blocks``/``lstrip_blocks``, and ``lang`` as a global. Constant messages are
    translated when a template is compiled, not at each render (:class:`_TranslatedEnvironment`).

    ``kind="html"`` autoescapes every template (web pages, HTML mail parts); ``kind="text"``
    autoescapes only ``*.html`` (mail text parts). ``filters`` and ``globals`` are added when the
    environment is made (later calls with the same key return it as it is; imported macros see
    globals only, not the render context). Every environment has the filter ``utc``
    (:func:`app.reports.dates.human_time`: ``2026-12-04 01:35 UTC``). Raises
    ``ValueError`` for an unknown language or kind."""
    if kind not in ("html", "text"):
        raise ValueError(f"unknown template kind {kind!r} (expected html or text)")
    tr = translations(lang)
    with _lock:
        env = _environments.get((lang, kind, name))
        if env is None:
            env = _TranslatedEnvironment(
                loader=FileSystemLoader(str(TEMPLATES)),
                undefined=StrictUndefined,
                autoescape=(
                    True
                    if kind == "html"
                    else select_autoescape(enabled_extensions=("html",), default_for_string=False)
                ),
                extensions=["jinja2.ext.i18n"],
                trim_blocks=True,
                lstrip_blocks=True,
                keep_trailing_newline=kind == "text",
                auto_reload=False,
            )
            env.policies["ext.i18n.trimmed"] = True
            env.install_gettext_translations(tr, newstyle=True)  # type: ignore[attr-defined]
            env.fold = tr  # the catalog's constant messages compiled into the templates
            env.globals["lang"] = lang
            env.globals.update(globals or {})
            env.filters["utc"] = human_time  # the one human form of an instant (dates.py)
            env.filters.update(filters or {})
            _environments[(lang, kind, name)] = env
        return env


def negotiate(accept_language: str | None, available: Iterable[str] = LANGS) -> str | None:
    """The best of ``available`` for an HTTP ``Accept-Language`` header (RFC 9110 §12.5.4: the
    highest q wins, ties in header order; ``ja-JP`` matches ``ja``; ``*`` matches the first), or
    ``None`` when nothing matches. Malformed items are skipped."""
    avail = list(available)
    best: tuple[float, int, str] | None = None
    for index, item in enumerate((accept_language or "").split(",")[:50]):
        tag, _, params = item.strip().partition(";")
        tag = tag.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = -1.0
        if not tag or q <= 0 or q > 1:
            continue
        match = (
            avail[0]
            if tag == "*"
            else next((a for a in avail if tag == a or tag.split("-")[0] == a), None)
        )
        if match is not None and (best is None or q > best[0]):
            best = (q, index, match)
    return best[2] if best else None


def human_span(value: dt.timedelta | int, lang: str) -> str:
    """A span (a ``timedelta`` or seconds) in words in ``lang``, in the largest unit that
    divides it: ``2 days``, ``12 hours``, ``90 minutes`` (the catalogs: ``2日``, ``12時間``,
    ``90分``); ``""`` for zero."""
    seconds = int(value.total_seconds()) if isinstance(value, dt.timedelta) else int(value)
    if not seconds:
        return ""
    ngettext = translations(lang if lang in LANGS else LANGS[0]).ngettext
    units = (
        (86400, lambda n: ngettext("%(n)s day", "%(n)s days", n)),
        (3600, lambda n: ngettext("%(n)s hour", "%(n)s hours", n)),
        (60, lambda n: ngettext("%(n)s minute", "%(n)s minutes", n)),
        (1, lambda n: ngettext("%(n)s second", "%(n)s seconds", n)),
    )
    for size, words in units:
        if seconds % size == 0:
            n = seconds // size
            return str(words(n) % {"n": n})
    return f"{seconds} s"
