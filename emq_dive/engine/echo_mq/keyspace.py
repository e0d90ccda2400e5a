"""Key builders for one EchoMQ queue; every name is gated before a key exists."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

MAX_BYTES = 128
_FORBIDDEN = {"{": "a '{'", "}": "a '}'", ":": "a ':'"}
_SUSPECT = re.compile(r"[{}:\s\x00-\x1f\x7f-\x9f]")


class IllFormed(ValueError):
    """A queue name or job id that may not become part of a key."""

    def __init__(self, value: object, rule: str) -> None:
        self.value = value
        self.rule = rule
        super().__init__(f"ill-formed name {value!r}: {rule}")


def gate(value: str | bytes) -> str:
    """Return ``value`` as text when it may stand in a key, else raise IllFormed."""
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            raise IllFormed(value, "it is not valid UTF-8") from None
    elif isinstance(value, str):
        text = value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise IllFormed(value, "it is not valid UTF-8") from None
    else:
        raise IllFormed(value, "it must be text")
    if not text:
        raise IllFormed(value, "it is empty")
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise IllFormed(value, f"it is over {MAX_BYTES} bytes")
    if _SUSPECT.search(text) is None and text.isprintable():
        return text
    for ch in text:
        if ch in _FORBIDDEN:
            raise IllFormed(value, f"it contains {_FORBIDDEN[ch]}")
        if ch.isspace():
            raise IllFormed(value, "it contains whitespace")
        if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0:
            raise IllFormed(value, "it contains a control character")
        if unicodedata.category(ch) == "Cf":
            name = unicodedata.name(ch, "a format character")
            raise IllFormed(value, f"it contains U+{ord(ch):04X} ({name}), an invisible format character that "
                                   "changes how the name reads, not what it is")
    return text


def queue_key(queue: str | bytes, suffix: str) -> str:
    """The key ``emq:{<queue>}:<suffix>``; an empty suffix gives the queue base."""
    return f"emq:{{{gate(queue)}}}:{suffix}"


def job_key(queue: str | bytes, job_id: str | bytes) -> str:
    """The row key ``emq:{<queue>}:job:<id>`` of one job."""
    return queue_key(queue, "job:") + gate(job_id)


def job_keys(queue: str | bytes, job_ids: Iterable[str | bytes]) -> list[str]:
    """The row keys of many jobs, as ``job_key`` gives each (the queue is gated once, not once a job)."""
    base = queue_key(queue, "job:")
    return [base + gate(job_id) for job_id in job_ids]


def _literal(text: str) -> str:
    """``text`` as a glob that matches only itself."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def queue_pattern(queue: str) -> str:
    """A SCAN pattern that matches exactly ``queue``'s keys (glob characters in the name match only themselves)."""
    return f"emq:{{{_literal(gate(queue))}}}:*"


def key_pattern(queue: str, suffix: str) -> str:
    """A glob (for SCAN or an ACL key pattern) that matches only the key ``queue_key(queue, suffix)``."""
    return f"emq:{{{_literal(gate(queue))}}}:{_literal(suffix)}"


def job_pattern(queue: str) -> str:
    """A glob (for SCAN or an ACL key pattern) that matches every job row of ``queue`` and nothing else."""
    return key_pattern(queue, "job:") + "*"
