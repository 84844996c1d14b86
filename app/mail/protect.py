"""Protection rules: when the server must not answer a mail automatically, or must refuse it.

Each rule is a small named predicate (Mailman style); the pipeline records the names that matched in
``InboundMessage.rules``. Sources: RFC 3834 (automatic responses: ``Auto-Submitted``, no reply to
bounces, lists or ourselves), RFC 2369/2919 (``List-*`` headers), RFC 3464 (delivery status
notifications, ``multipart/report``), RFC 8601 (``Authentication-Results``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.message import Message
from email.utils import getaddresses

BOUNCE_LOCALPARTS = ("mailer-daemon", "postmaster", "mail-daemon", "mailer_daemon")
LIST_HEADERS = ("List-Id", "List-Unsubscribe", "List-Post", "List-Help", "List-Owner", "List-Archive")


def _get(msg: Message, name: str) -> str | None:
    try:
        value = msg.get(name)
    except Exception:  # noqa: BLE001 - malformed header counts as present but unreadable
        return ""
    return None if value is None else str(value)


def _addresses(value: str | None) -> list[str]:
    if not value:
        return []
    try:
        return [a.strip().lower() for _n, a in getaddresses([value]) if a]
    except Exception:  # noqa: BLE001
        return []


def check_auto_reply(msg: Message, *, ourselves: Iterable[str] = ()) -> list[str]:
    """Names of the rules that forbid an automatic reply to ``msg`` (empty list: a reply is allowed).

    Rules (RFC 3834 §2):
        ``bounce``: empty Return-Path (``<>``), a MAILER-DAEMON/postmaster sender, or a
            ``multipart/report`` delivery status notification.
        ``auto-submitted``: ``Auto-Submitted`` present with any value other than ``no``; also the
            older ``X-Autoreply``/``X-Autorespond``/``Precedence: auto_reply`` markers.
        ``list``: ``Precedence: bulk|list|junk`` or any ``List-*`` header.
        ``ourselves``: the From address is one of ``ourselves`` (a loop).
        ``no-sender``: no usable From address.
    """
    rules: list[str] = []
    return_path = _get(msg, "Return-Path")
    froms = _addresses(_get(msg, "From"))
    sender = froms[0] if froms else ""
    if return_path is not None and return_path.strip() in ("<>", ""):
        rules.append("bounce")
    elif any(a.split("@")[0] in BOUNCE_LOCALPARTS for a in froms + _addresses(return_path)):
        rules.append("bounce")
    elif msg.get_content_type() == "multipart/report":
        rules.append("bounce")
    auto = (_get(msg, "Auto-Submitted") or "").strip().lower()
    precedence = (_get(msg, "Precedence") or "").strip().lower()
    if (auto and not auto.startswith("no")) or _get(msg, "X-Autoreply") is not None \
            or _get(msg, "X-Autorespond") is not None or precedence == "auto_reply":
        rules.append("auto-submitted")
    if precedence in ("bulk", "list", "junk") or any(_get(msg, h) is not None for h in LIST_HEADERS):
        rules.append("list")
    ours = {a.lower() for a in ourselves}
    if sender and sender in ours:
        rules.append("ourselves")
    if not sender:
        rules.append("no-sender")
    return rules


_METHOD = re.compile(r"\b(dkim|spf|dmarc)\s*=\s*([a-z]+)", re.I)


def check_authentication(msg: Message, *, authserv_id: str | None = None) -> list[str]:
    """Names of failed sender authentications in the topmost ``Authentication-Results`` header.

    Only the first (topmost) header is trusted: it is the one our receiving server added (RFC 8601
    §5); when ``authserv_id`` is given, a header from another server id is ignored. Returns e.g.
    ``["dkim-fail", "spf-fail"]`` for ``dkim=fail`` / ``spf=fail|softfail`` / ``dmarc=fail``;
    ``[]`` when there is no header (nothing to judge) or everything passed.
    """
    try:
        headers = msg.get_all("Authentication-Results") or []
    except Exception:  # noqa: BLE001
        return []
    if not headers:
        return []
    top = str(headers[0])
    server_id = top.split(";", 1)[0].strip().lower()
    if authserv_id and server_id.split()[0:1] != [authserv_id.lower()]:
        return []
    failed: list[str] = []
    for method, result in _METHOD.findall(top):
        method, result = method.lower(), result.lower()
        bad = {"fail", "permerror"} | ({"softfail"} if method == "spf" else set())
        if result in bad and f"{method}-fail" not in failed:
            failed.append(f"{method}-fail")
    return failed
