"""The console's policy, free of I/O: one typed line becomes a command the dive may send, or one line of refusal."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from enum import Enum

from . import keyspace, scripts


class Kind(Enum):
    """What a console command does to the store."""

    READ = "read"
    """Reads the dive's keys (or the server clock) and writes nothing."""
    SCRIPT = "script"
    """Runs one of the course's scripts by SHA: it may re-score the active set."""
    NATIVE = "native"
    """Runs the native twin's verb: it may re-score and stamp rows."""

    @property
    def writes(self) -> bool:
        """True when the command may write, so back needs what it will replace."""
        return self is not Kind.READ


class KeysAt(Enum):
    """Which arguments of a read command are keys."""

    FIRST = "the first argument"
    ALL = "every argument"
    NONE = "none"


@dataclass(frozen=True)
class Spec:
    """One command the console lets through: its argument count and where its keys are."""

    least: int
    most: int | None
    keys: KeysAt = KeysAt.FIRST
    status: bool = False
    """True when the reply is a status, which redis-cli prints without quotes (TYPE's ``zset``)."""


READS: dict[str, Spec] = {
    "ZSCORE": Spec(2, 2), "ZMSCORE": Spec(2, None), "ZRANGE": Spec(3, None),
    "ZRANGEBYSCORE": Spec(3, None), "ZREVRANGE": Spec(3, 4),
    "ZREVRANGEBYSCORE": Spec(3, None), "ZRANK": Spec(2, 3), "ZCARD": Spec(1, 1),
    "ZCOUNT": Spec(3, 3), "HGETALL": Spec(1, 1), "HGET": Spec(2, 2),
    "HMGET": Spec(2, None), "HEXISTS": Spec(2, 2), "HKEYS": Spec(1, 1),
    "HVALS": Spec(1, 1), "HLEN": Spec(1, 1), "EXISTS": Spec(1, None, KeysAt.ALL),
    "TYPE": Spec(1, 1, status=True), "TTL": Spec(1, 1), "PTTL": Spec(1, 1),
    "GET": Spec(1, 1), "LRANGE": Spec(3, 3), "LLEN": Spec(1, 1),
    "SMEMBERS": Spec(1, 1), "SCARD": Spec(1, 1), "SISMEMBER": Spec(2, 2),
    "TIME": Spec(0, 0, KeysAt.NONE),
}
"""The read commands, by name."""
RUNS: dict[str, Kind] = {"EVALSHA": Kind.SCRIPT, "EMQ.EXTENDS": Kind.NATIVE, "EMQ.EXTEND": Kind.NATIVE}
"""The commands that run the protocol: the course's scripts by SHA and the native twin's verbs."""


@dataclass(frozen=True)
class Place:
    """Where the console runs: the dive's queue, the lesson's lease, and whether the store serves the native verbs."""

    queue: str
    lease_ms: int
    native: bool = False
    native_reason: str = ""

    @property
    def prefix(self) -> bytes:
        """Every key of this run starts with it: ``emq:{dive-…}:``."""
        return keyspace.queue_key(self.queue, "").encode()

    def placeholders(self) -> dict[str, str]:
        """Each ``$name`` a line may use, with what it stands for."""
        return {"$sha": scripts.extend_locks().sha, "$sha_one": scripts.extend_lock().sha,
                "$active": keyspace.queue_key(self.queue, "active"), "$base": keyspace.queue_key(self.queue, ""),
                "$pending": keyspace.queue_key(self.queue, "pending"), "$lease": str(self.lease_ms)}


@dataclass(frozen=True)
class Line:
    """A console line the policy lets through: what was typed, the arguments it sends, and the keys it may write."""

    typed: str
    args: tuple[bytes, ...]
    kind: Kind
    touched: tuple[bytes, ...] = ()
    """The keys a writing command may change (its declared keys and the rows it derives), for back."""
    status: bool = False

    @property
    def name(self) -> str:
        """The command's name, upper case: ``EVALSHA``."""
        return self.args[0].decode().upper()


@dataclass(frozen=True)
class Refusal:
    """A line the console will not send, and why, in one line; nothing was sent."""

    typed: str
    reason: str


def _fill(token: str, values: dict[str, str]) -> str:
    if not token.startswith("$"):
        return token
    if token.startswith("$job:") and len(token) > 5:
        return values["$base"] + "job:" + keyspace.gate(token[5:])
    if token in values:
        return values[token]
    raise ValueError(f"unknown placeholder {token}: one of {', '.join(values)} or $job:ID")


def _words(typed: str, place: Place) -> list[str]:
    try:
        words = shlex.split(typed, posix=True)
    except ValueError as err:
        raise ValueError(f"malformed line: {str(err).lower()}") from None
    values = place.placeholders()
    return [_fill(word, values) for word in words]


def _own(key: bytes, place: Place, name: str) -> None:
    """Raise ValueError unless ``key`` is one of this run's keys."""
    shown = key.decode("utf-8", "backslashreplace")
    if not key.startswith(place.prefix):
        raise ValueError(f"{name} refused: {shown} is not a key of this dive (they start with "
                         f"{place.prefix.decode()})")


def _run(typed: str, name: str, kind: Kind, args: list[bytes], place: Place) -> Line:
    start = 2 if name == "EVALSHA" else 1
    if len(args) < start + 1:
        raise ValueError(f"wrong number of arguments for {name}: {'sha ' if start == 2 else ''}numkeys key … arg …")
    if kind is Kind.NATIVE and not place.native:
        raise ValueError(f"{name} is not on this backend: {place.native_reason or 'the EMQ module is not loaded'}")
    if start == 2:
        known = {scripts.extend_locks().sha, scripts.extend_lock().sha}
        if args[1].decode("utf-8", "replace").lower() not in known:
            raise ValueError("EVALSHA runs only the course's scripts: $sha (extend_locks) or $sha_one (extend_lock)")
    try:
        numkeys = int(args[start])
    except ValueError:
        raise ValueError(f"{name} refused: numkeys must be a number, not {args[start].decode(errors='replace')}") \
            from None
    rest = args[start + 1:]
    if not 0 <= numkeys <= len(rest):
        raise ValueError(f"wrong number of arguments for {name}: numkeys {numkeys}, but {len(rest)} after it")
    keys, argv = rest[:numkeys], rest[numkeys:]
    markers = {keyspace.queue_key(place.queue, suffix).encode() for suffix in ("dive-owner", "dive-alive")}
    for key in keys:
        _own(key, place, name)
        if key in markers:
            raise ValueError(f"{name} refused: {key.decode()} is the app's owner marker, not the queue's")
    rows = tuple(keys[1] + b"job:" + item for item in argv) if len(keys) > 1 else ()
    touched = tuple(dict.fromkeys((*keys, *(row for row in rows if row.startswith(place.prefix)))))
    return Line(typed, tuple(args), kind, touched)


def parse(typed: str, place: Place) -> Line | Refusal:
    """The command ``typed`` stands for where ``place`` says, or why the console will not send it."""
    try:
        words = _words(typed, place)
    except (ValueError, keyspace.IllFormed) as err:
        return Refusal(typed, str(err))
    if not words:
        return Refusal(typed, "nothing to send: type a command, e.g. ZRANGE $active 0 -1 WITHSCORES")
    name = words[0].upper()
    args = [name.encode(), *(word.encode("utf-8") for word in words[1:])]
    try:
        if name in RUNS:
            return _run(typed, name, RUNS[name], args, place)
        spec = READS.get(name)
        if spec is None:
            return Refusal(typed, f"{name} is not a console command: it sends the course's EVALSHA, EMQ.EXTEND(S) "
                                  "and reads (ZSCORE, ZRANGE, HGETALL, HGET, EXISTS, TYPE, TTL, …) of this dive's keys")
        count = len(args) - 1
        if count < spec.least or (spec.most is not None and count > spec.most):
            return Refusal(typed, f"wrong number of arguments for {name}: {count}")
        keys = args[1:] if spec.keys is KeysAt.ALL else args[1:2] if spec.keys is KeysAt.FIRST else []
        for key in keys:
            _own(key, place, name)
    except ValueError as err:
        return Refusal(typed, str(err))
    return Line(typed, tuple(args), Kind.READ, status=spec.status)
