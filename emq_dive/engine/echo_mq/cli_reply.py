"""A reply as redis-cli prints it on a terminal: one line per item, arrays numbered, errors with their class."""

from __future__ import annotations

from typing import Any

import redis

from .connector import error_text

MOST_LINES = 200
"""How many lines of a long reply are printed before the rest are counted."""


def _quoted(value: bytes) -> str:
    """A bulk string as redis-cli quotes it: printable ASCII as is, ``"`` and ``\\`` escaped, other bytes as \\xNN."""
    out = []
    for byte in value:
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


def cli_lines(reply: Any, status: bool = False, statuses: tuple[bool, ...] = ()) -> list[str]:
    """``reply`` (a parsed RESP2 reply, or the ResponseError raised) as redis-cli's lines; ``status`` prints a
    simple-string reply bare, as redis-cli prints TYPE's ``zset``, and ``statuses`` does so for an array's items
    (EXEC's replies)."""
    if isinstance(reply, redis.ResponseError):
        return [f"(error) {error_text(reply)}"]
    if reply is None:
        return ["(nil)"]
    if isinstance(reply, bool):
        return [f"(integer) {int(reply)}"]
    if isinstance(reply, int):
        return [f"(integer) {reply}"]
    if isinstance(reply, str):
        reply = reply.encode()
    if isinstance(reply, bytes):
        return [reply.decode("utf-8", "backslashreplace") if status else _quoted(reply)]
    if isinstance(reply, (list, tuple)):
        if not reply:
            return ["(empty array)"]
        width = len(str(len(reply)))
        lines: list[str] = []
        for number, item in enumerate(reply, 1):
            head = f"{number:>{width}}) "
            inner = cli_lines(item, number <= len(statuses) and statuses[number - 1])
            lines.append(head + inner[0])
            lines.extend(" " * len(head) + line for line in inner[1:])
        return lines
    return [str(reply)]


def resp2(reply: Any, pairs: bool = False) -> Any:
    """``reply`` as a RESP2 server sends it: the embedded store hands back a hash as a map and, for ``pairs`` (a
    WITHSCORES read), a zset as [member, score] pairs, where a server sends one flat array."""
    if isinstance(reply, dict):
        return [x for pair in reply.items() for x in pair]
    if pairs and isinstance(reply, list) and reply and all(isinstance(x, (list, tuple)) for x in reply):
        return [x for pair in reply for x in pair]
    return reply


def clipped(lines: list[str], most: int = MOST_LINES) -> tuple[str, ...]:
    """The first ``most`` lines, and a line counting the rest."""
    if len(lines) <= most:
        return tuple(lines)
    return (*lines[:most], f"… ({len(lines)} lines in all)")
