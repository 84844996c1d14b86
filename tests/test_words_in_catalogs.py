"""Presentation once: outside ``app/rules`` (whose texts are the rules' own notation), the
Python code holds no Japanese words of a reply, report, subject or page: those are in the
message catalogs (``templates/locale``). What Japanese is left is input vocabulary (command
words, special lines, quote markers: what players write, not what the server says), character
tables, and the demo's sample players; each file with such literals is listed below with why,
and the mail commands' Japanese literals must be command words (``ja=``/``usage_ja=`` of
``@command``, or :data:`app.mail.commands.organizer.ALL`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("app/mail", "app/league", "app/reports", "app/ops", "app/web")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")

#: files whose Japanese literals are not words the server says, and why
VOCABULARY = {
    "app/mail/grammar.py": "the words of special lines (パスワード：, キー：, 名前：) and reply prefixes",
    "app/mail/decode.py": "quote attributions and forwarded-message markers players' mailers write",
    "app/mail/sheets.py": "the sheet notation's bullet characters",
    "app/mail/compose.py": "the full-width 'Re：' read in subjects; JIS equivalents of characters",
    "app/mail/storable.py": "the full-width at sign read in display names",
    "app/reports/battle.py": "the full-width digits of the Japanese notation",
    "app/web/app.py": "the full-width digits; the 500 page, bilingual because no language is known",
    "app/ops/demo.py": "the demo's sample players: their names, subjects, and the seed's unit names",
    "app/league/names.py": "default display names (a name given once and stored, not a word of a "
    "reply: 名無しの桔梗 reads the same on every page and in every mail)",
    "app/mail/commands/player.py": "command words",
    "app/mail/commands/organizer.py": "command words",
    "app/mail/commands/orders.py": "command words",
    "app/mail/commands/prefs.py": "command words and the words of mail preferences",
}


def _japanese_literals(tree: ast.AST) -> list[ast.Constant]:
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and JAPANESE.search(node.value)
    ]


def test_no_japanese_words_in_python_outside_the_rules() -> None:
    found = {}
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            literals = _japanese_literals(ast.parse(path.read_text(encoding="utf-8")))
            if literals and rel not in VOCABULARY:
                found[rel] = [(n.lineno, n.value[:40]) for n in literals]
    assert found == {}, f"move these words to the catalogs (docs/translating.md): {found}"


def test_the_mail_commands_japanese_literals_are_command_words() -> None:
    for rel in ("app/mail/commands/player.py", "app/mail/commands/organizer.py"):
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        words: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "command":
                for kw in node.keywords:
                    if kw.arg in ("ja", "usage_ja"):
                        words |= {id(c) for c in ast.walk(kw.value) if isinstance(c, ast.Constant)}
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "ALL" for t in node.targets
            ):
                words |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
        said = [(n.lineno, n.value) for n in _japanese_literals(tree) if id(n) not in words]
        assert said == [], f"{rel}: words the server says belong in the catalogs: {said}"
        assert "help_ja=" not in (ROOT / rel).read_text(encoding="utf-8")
