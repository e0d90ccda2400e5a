"""Save and restore a queue's keys with plain typed commands, which a user without ``@dangerous`` may run."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from ..echo_mq.connector import raw_replies, raw_transaction
from .expiry import queue_keys

Pairs = tuple[tuple[bytes, bytes], ...]
Value = bytes | tuple[bytes, ...] | Pairs


@dataclass(frozen=True)
class Entry:
    """One key's type and contents, and its PTTL to put back; entries with equal contents compare equal."""

    kind: str
    """``string``, ``list``, ``hash``, ``zset`` or ``set``."""
    value: Value
    """The string; the list's items; a hash's (field, value) or a zset's (member, score) pairs; a set's members."""
    ttl: int = field(default=-1, compare=False)
    """Milliseconds left to live, or -1 for a key that does not expire."""


Snapshot = dict[bytes, Entry]

_READ = {"string": ("GET",), "list": ("LRANGE", 0, -1), "hash": ("HGETALL",),
         "zset": ("ZRANGE", 0, -1, "WITHSCORES"), "set": ("SMEMBERS",)}


def _bytes(value: Any) -> bytes:
    """A reply item as the wire carries it: the embedded store hands back scores as floats."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, float):
        return (str(int(value)) if value.is_integer() else f"{value:.17g}").encode()
    return str(value).encode()


def _pairs(reply: Sequence[Any]) -> Pairs:
    """Pairs from a flat ``[a, 1, b, 2]`` reply or from one the client already paired."""
    flat = [x for pair in reply for x in pair] if reply and isinstance(reply[0], (list, tuple)) else reply
    return tuple(zip((_bytes(x) for x in flat[::2]), (_bytes(x) for x in flat[1::2]), strict=True))


def _entry(kind: str, ttl: int, reply: Any) -> Entry:
    if kind == "string":
        return Entry(kind, _bytes(reply), ttl)
    if kind == "list":
        return Entry(kind, tuple(_bytes(x) for x in reply), ttl)
    if kind == "hash":
        flat = [x for pair in reply.items() for x in pair] if isinstance(reply, dict) else reply
        return Entry(kind, tuple(sorted(_pairs(flat))), ttl)
    if kind == "zset":
        return Entry(kind, _pairs(reply), ttl)
    return Entry(kind, tuple(sorted(_bytes(x) for x in reply)), ttl)


_PLAIN_KINDS = ("string", "list", "hash", "zset")
"""The kinds ``read`` gives the contents of."""

CHUNK = 1000
"""Keys read per pipeline, so a big queue's snapshot never holds more than a chunk of commands and replies at once."""


def take_keys(client: redis.Redis, keys: Iterable[bytes]) -> Snapshot:
    """Each of ``keys`` that exists, with its type, contents and PTTL (read a chunk of keys at a time)."""
    out: Snapshot = {}
    for chunk in take_chunks(client, list(keys)):
        out.update(chunk)
    return out


def take_chunks(client: redis.Redis, keys: Sequence[bytes]) -> Iterator[Snapshot]:
    """``take_keys`` a chunk at a time, for a caller that keeps only part of what it reads."""
    for start in range(0, len(keys), CHUNK):
        yield _take_chunk(client, list(keys[start:start + CHUNK]))


def _take_chunk(client: redis.Redis, keys: list[bytes]) -> Snapshot:
    if not keys:
        return {}
    shapes = raw_replies(client, [command for key in keys for command in ((b"TYPE", key), (b"PTTL", key))])
    kinds = {key: _bytes(shapes[2 * i]).decode() for i, key in enumerate(keys)}
    present = [key for key in keys if kinds[key] != "none"]
    for key in present:
        if kinds[key] not in _READ:
            raise TypeError(f"cannot snapshot {key!r}: a {kinds[key]} key")
    # the contents in one transaction, so a snapshot never holds half of a move another client made
    values = raw_transaction(client, [_read_command(kinds[key], key) for key in present])
    ttls = {key: shapes[2 * i + 1] for i, key in enumerate(keys)}
    return {key: _entry(kinds[key], max(int(ttls[key]), -1), value)
            for key, value in zip(present, values, strict=True)}


def _read_command(kind: str, key: bytes, whole: Collection[str] = _READ.keys()) -> tuple[Any, ...]:
    """The command that reads a whole ``kind`` key, or TYPE again for a kind not in ``whole``."""
    command, *args = _READ[kind] if kind in whole else ("TYPE",)
    return (command, key, *args)


def take(client: redis.Redis, queue: str) -> Snapshot:
    """Every key under ``emq:{<queue>}:`` (but its owner markers) with its type, contents and PTTL."""
    return take_keys(client, queue_keys(client, queue))


def put_commands(key: bytes, entry: Entry | None) -> list[tuple[Any, ...]]:
    """The commands that make ``key`` hold ``entry`` (or not exist, for None)."""
    commands: list[tuple[Any, ...]] = [(b"DEL", key)]
    if entry is None:
        return commands
    value = entry.value
    if entry.kind == "string":
        commands.append((b"SET", key, value))
    elif entry.kind == "list":
        commands.append((b"RPUSH", key, *value))
    elif entry.kind == "hash":
        commands.append((b"HSET", key, *(x for pair in cast(Pairs, value) for x in pair)))
    elif entry.kind == "zset":
        commands.append((b"ZADD", key, *(x for member, score in cast(Pairs, value) for x in (score, member))))
    else:
        commands.append((b"SADD", key, *value))
    if entry.ttl > 0:
        commands.append((b"PEXPIRE", key, entry.ttl))
    return commands


def restore(client: redis.Redis, queue: str, snap: Snapshot) -> None:
    """Put the queue's keys back exactly as ``snap`` holds them, deleting any key it lacks."""
    current = set(queue_keys(client, queue))
    restore_keys(client, snap, sorted(current | snap.keys()))


def restore_keys(client: redis.Redis, snap: Snapshot, keys: Iterable[bytes]) -> None:
    """Put just ``keys`` back as ``snap`` holds them (deleting those it lacks), in one transaction."""
    keys = list(keys)
    if not keys:
        return
    raw_transaction(client, [command for key in keys for command in put_commands(key, snap.get(key))])


def read(client: redis.Redis, queue: str) -> dict[bytes, Any]:
    """The queue's keys as plain values: a zset as {member: score}, a hash as a dict, a list, a string."""
    keys = queue_keys(client, queue)
    out: dict[bytes, Any] = {}
    for start in range(0, len(keys), CHUNK):
        out.update(_read_chunk(client, keys[start:start + CHUNK]))
    return out


def _read_chunk(client: redis.Redis, keys: list[bytes]) -> dict[bytes, Any]:
    kinds = raw_replies(client, [(b"TYPE", key) for key in keys])
    # a set reads as its type, as ``plain_value`` gives it
    values = raw_replies(client, [_read_command(kind.decode(), key, _PLAIN_KINDS)
                                  for key, kind in zip(keys, kinds, strict=True)])
    return {key: _plain_reply(kind, value) for key, kind, value in zip(keys, kinds, values, strict=True)}


def _plain_reply(kind: bytes, value: Any) -> Any:
    """One key's raw reply (RESP2 or RESP3) as ``read`` gives it: a zset as {member: float score}, a hash as a dict."""
    if kind == b"zset":
        return {member: float(score) for member, score in _pairs(value)}
    if kind == b"hash":
        return value if isinstance(value, dict) else dict(_pairs(value))
    return value


def plain_value(entry: Entry) -> Any:
    """One entry's contents as ``read`` gives them: a zset as {member: float score}, a hash as a dict, a set's type."""
    value = entry.value
    if entry.kind == "zset":
        return {member: float(score) for member, score in cast(Pairs, value)}
    if entry.kind == "hash":
        return dict(cast(Pairs, value))
    if entry.kind == "list":
        return list(value)
    if entry.kind == "string":
        return value
    return entry.kind.encode()
