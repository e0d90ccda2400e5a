"""The connector: sends a script by SHA (wire 4) or as its native command (wire 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import hiredis
import redis

from .scripts import Script

WIRES = {4: "EVALSHA", 6: "native"}


class Wire(Protocol):
    """What a verb needs of a connector: run a script's keys and arguments and hand back the reply."""

    wire: int

    def eval(self, script: Script, keys: Sequence[str], argv: Sequence[str]) -> Any:
        """Send ``script`` with ``keys`` and ``argv`` (by SHA on wire 4, natively on wire 6)."""
        ...


def as_bytes(value: Any) -> bytes:
    """One command argument as the wire carries it: bytes as they are, text as UTF-8, an int in decimal."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode()
    raise TypeError(f"cannot send {value!r} on the wire")


def error_text(err: BaseException) -> str:
    """The error's exact wire text, class word included, once."""
    # redis-py (7.2 on) keeps the class word as status_code; it cuts it off the message only for the classes it
    # maps to an exception of their own (ERR, NOPERM, ...): EMQSTALE or WRONGTYPE stay at the message's head
    code, text = getattr(err, "status_code", None), str(err)
    return text if not code or text == code or text.startswith(f"{code} ") else f"{code} {text}"


def _as_sent(reply: Any) -> Any:
    """A reply as RESP2 carries it: the embedded store hands back scores as floats, a server as bulk strings."""
    kind = type(reply)
    if kind is list:
        # a list with nothing to reshape (every reply from a server) is handed back as it came, not copied
        return [_as_sent(item) for item in reply] if any(type(item) in _RESHAPED for item in reply) else reply
    if kind is float:
        return (str(int(reply)) if reply.is_integer() else f"{reply:.17g}").encode()
    return reply


_RESHAPED = (float, list)


def raw(client: redis.Redis, *args: Any) -> Any:
    """Send one command and return the server's reply as parsed, with no client-side reshaping."""
    pool = client.connection_pool
    conn = pool.get_connection()
    try:
        conn.send_command(*args)
        return _as_sent(conn.read_response())
    finally:
        pool.release(conn)


def raw_block(client: redis.Redis, commands: Sequence[tuple[Any, ...]]) -> tuple[tuple[Any, ...], Any]:
    """Send ``commands`` in one MULTI/EXEC on one connection: each command's queuing reply (``QUEUED`` or the
    error), and EXEC's reply (its array, or the EXECABORT error), as parsed."""
    pool = client.connection_pool
    conn = pool.get_connection()
    try:
        conn.send_command("MULTI")
        conn.read_response()
        queued: list[Any] = []
        for command in commands:
            conn.send_command(*command)
            try:
                queued.append(conn.read_response())
            except redis.ResponseError as err:
                queued.append(err)
        conn.send_command("EXEC")
        try:
            reply: Any = _as_sent(conn.read_response())
        except redis.ResponseError as err:
            reply = err
    except BaseException:
        conn.disconnect()  # never hand back a connection left inside a transaction
        raise
    finally:
        pool.release(conn)
    return tuple(queued), reply


def raw_pair(client: redis.Redis, first: Sequence[Any], second: Sequence[Any]) -> tuple[Any, Any]:
    """Send two commands in one round trip, in order; both replies as ``raw_many`` gives them."""
    old, reply = raw_many(client, [first, second])
    return old, reply


def raw_many(client: redis.Redis, commands: Sequence[Sequence[Any]]) -> list[Any]:
    """Send ``commands`` in one round trip, in order, packed in C: each reply as ``raw`` gives it, an error reply as
    its ResponseError (returned, not raised, so the connection is left with nothing unread)."""
    pool = client.connection_pool
    conn = pool.get_connection()
    try:
        note = getattr(conn, "note", None)  # a connection that notes the keys it sends (a URL store's) sees each
        if note is not None:
            for command in commands:
                note(command)
        conn.send_packed_command([b"".join(hiredis.pack_command(tuple(command)) for command in commands)])
        replies: list[Any] = []
        for _ in commands:
            try:
                replies.append(_as_sent(conn.read_response()))
            except redis.ResponseError as err:
                replies.append(err)
        return replies
    except BaseException:
        conn.disconnect()  # a connection with replies left unread must not go back to the pool
        raise
    finally:
        pool.release(conn)


def raw_replies(client: redis.Redis, commands: Sequence[Sequence[Any]]) -> list[Any]:
    """``raw_many``, with the first error reply raised (as a redis-py pipeline raises it)."""
    return _raised(raw_many(client, commands))


def raw_transaction(client: redis.Redis, commands: Sequence[Sequence[Any]]) -> list[Any]:
    """Run ``commands`` in one MULTI/EXEC sent in one round trip: EXEC's replies as ``raw`` gives them; an error reply
    (one a command was queued with, the EXECABORT, or one inside EXEC's array) raises."""
    *_, replies = raw_replies(client, [(b"MULTI",), *commands, (b"EXEC",)])
    return _raised(list(replies or ()))


def _raised(replies: list[Any]) -> list[Any]:
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


@dataclass(frozen=True)
class Exchange:
    """One command on the wire and what came back (a value, or the error raised)."""

    sent: tuple[bytes, ...]
    reply: Any

    @property
    def failed(self) -> bool:
        """True when the server answered with an error."""
        return isinstance(self.reply, redis.ResponseError)


class Connector:
    """Runs a script over one wire and records every exchange it makes."""

    def __init__(self, client: redis.Redis, wire: int = 4) -> None:
        if wire not in WIRES:
            raise ValueError(f"wire must be 4 (EVALSHA) or 6 (native), not {wire!r}")
        self.client = client
        self.wire = wire
        self.log: list[Exchange] = []

    def send(self, *args: Any) -> Any:
        """Send one raw command, record it, and return its reply or raise its error."""
        sent = tuple(as_bytes(a) for a in args)
        try:
            reply = raw(self.client, *sent)
        except redis.ResponseError as err:
            self.log.append(Exchange(sent, err))
            raise
        self.log.append(Exchange(sent, reply))
        return reply

    def eval(self, script: Script, keys: Sequence[Any], argv: Sequence[Any], numkeys: Any = None) -> Any:
        """Run ``script`` with ``keys`` and ``argv``: by SHA on wire 4, as its native verb on wire 6.

        ``numkeys`` sends another key count than ``len(keys)``, to show what each twin does with a wrong one.
        """
        numkeys = len(keys) if numkeys is None else numkeys
        if self.wire == 6:  # the native command: no script travels
            verb = script.native_verb
            return self.send(verb, numkeys, *keys, *argv)  # @native
        try:
            return self.send("EVALSHA", script.sha, numkeys, *keys, *argv)
        except redis.exceptions.NoScriptError:
            self.send("SCRIPT", "LOAD", script.source)
            return self.send("EVALSHA", script.sha, numkeys, *keys, *argv)

    @property
    def last(self) -> Exchange | None:
        """The most recent exchange, if any."""
        return self.log[-1] if self.log else None
