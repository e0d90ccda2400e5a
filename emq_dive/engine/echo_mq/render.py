"""What the learner reads, free of widgets: commands and replies as redis-cli prints them, answers, and values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from . import jobs
from .connector import as_bytes, error_text

MAX_ITEMS = 8
"""How many items of a long list (reply items, ids, fates) are spelled out before the rest are counted."""
MAX_ARGS = 24
"""How many arguments of a long command are spelled out before the rest are counted."""
MAX_LINES = 12
"""How many lines of a long listing (the calls of a step, the writes of an answer) are shown before the rest."""
MISSING = "\u2013"
"""What a pane shows for a field the row does not have: an en dash."""


def text(value: object) -> str:
    """``value`` as text: bytes decoded as UTF-8 (bad bytes escaped), anything else through ``str``."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def short(value: object) -> str:
    """A stored value as a write names it: ``∅`` for none, a whole float without its ``.0``."""
    if value is None:
        return "∅"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return text(value)


def clip(value: str | None, width: int) -> str:
    """``value`` cut to ``width`` with an ellipsis; MISSING for a field the row does not have."""
    if value is None:
        return MISSING
    return value if len(value) <= width else value[: width - 1] + "…"


def listed(items: Sequence[str], sep: str = ", ", most: int = MAX_ITEMS) -> str:
    """``items`` joined, or for a long list its first ``most`` and how many there are in all."""
    if len(items) <= most:
        return sep.join(items)
    return f"{sep.join(items[:most])}{sep}… ({len(items)} in all)"


def relative(score: int | None, now: int | None) -> str:
    """A score as a deadline relative to the shared ``now`` (``now+30000``), or as read when ``now`` is unknown."""
    if score is None:
        return "nil"
    if now is None:
        return str(score)
    delta = score - now
    return f"now{delta:+d}" if delta else "now"


def deadline(score: object, now: int | None) -> str:
    """A ZSCORE reply or a new score, as sent or read, as a deadline relative to ``now``."""
    try:
        return relative(int(float(text(score))), now)
    except ValueError:
        return text(score)


def wire_text(args: Sequence[Any], most: int | None = None) -> str:
    """A command the way a person would type it at redis-cli; past ``most`` arguments, count the rest."""
    out = []
    for arg in args[:most]:
        shown = text(as_bytes(arg))
        needs_quotes = not shown or not shown.isprintable() or any(c.isspace() or c in "\"'\\" for c in shown)
        out.append(repr(shown) if needs_quotes else shown)
    if most is not None and len(args) > most:
        out.append(f"… ({len(args)} arguments in all)")
    return " ".join(out)


def reply_text(reply: Any, most: int | None = None) -> str:
    """A reply the way redis-cli prints it, on one line; past ``most`` items of an array, count the rest."""
    if isinstance(reply, redis.ResponseError):
        return f"(error) {error_text(reply)}"
    if reply is None:
        return "(nil)"
    if isinstance(reply, int):
        return f"(integer) {reply}"
    if isinstance(reply, bytes):
        return '"' + text(reply) + '"'
    if isinstance(reply, list):
        if not reply:
            return "(empty array)"
        items = [reply_text(item) for item in reply[:most]]
        if most is not None and len(reply) > most:
            items.append(f"… ({len(reply)} items in all)")
        return "[" + ", ".join(items) + "]"
    return str(reply)


def answer_text(value: object) -> str:
    """What the batch handle returns or raises, as a learner reads it: ``returns [...]`` or ``raises …``."""
    if isinstance(value, redis.ResponseError):
        return f"raises ResponseError: {error_text(value)}"
    if isinstance(value, Exception):
        return f"raises {type(value).__name__}: {value}"
    if isinstance(value, list) and len(value) > MAX_ITEMS:
        return f"returns [{', '.join(map(repr, value[:MAX_ITEMS]))}, …] ({len(value)} ids)"
    return f"returns {value!r}"


def outcome_text(value: object, most: int | None = None) -> str:
    """What one of the four verbs returned or raised; a list of ids is cut after ``most`` and counted."""
    if isinstance(value, jobs.LeaseRefused):
        return f"raises {type(value).__name__}: {value.reply}"
    if isinstance(value, redis.ResponseError):
        return f"raises ResponseError: {error_text(value)}"
    if isinstance(value, Exception):
        return f"refused before the wire: {type(value).__name__}: {value}"
    if value is None:
        return "returns None (re-scored)"
    if isinstance(value, list):
        shown = [repr(short(v)) for v in value[:most]]
        if most is not None and len(value) > most:
            shown.append(f"… ({len(value)} ids in all)")
        return "returns [" + ", ".join(shown) + "]"
    return f"returns {value!r}"


def clock_note(stepped_now: int | None, atomic_now: int | None) -> str:
    """How the atomic run's clock read compares with the stepped run's: ``, the same now`` or its own, in ms."""
    if atomic_now is None or stepped_now is None:
        return ""
    if atomic_now == stepped_now:
        return ", the same now"
    return f", a now of its own ({atomic_now - stepped_now:+d} ms)"

