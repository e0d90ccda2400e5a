"""The native twin's host over a client: each call a real command, recorded with its source line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import redis

from ..echo_mq import keyspace, native
from ..echo_mq.connector import error_text
from ..stores.protocol import StoreLike
from .driver import WriteHook, send_to
from .model import Call


def probe_refused(reason: str) -> str:
    """The note a step carries when the server would not run the twin's permission probe."""
    if reason.startswith("NOPERM"):
        return ("this user may not run ACL DRYRUN, so the stepped twin cannot check key permissions; "
                "the module checks them in-process")
    return (f"the server would not run ACL DRYRUN ({reason}), so the stepped twin cannot check key "
            "permissions; the module checks them in-process")


RUN_ID_LEARNED = ("this user may not run INFO, so the stepped twin read the server's run_id off a scratch row "
                  "that EMQ.EXTEND stamped and deleted in one transaction")


def learned_run_id(store: StoreLike) -> bytes:
    """The run_id the module stamps, read off a scratch row it extends and that goes in the same transaction."""
    base = keyspace.queue_key(store.queue, "run-id:")
    active, row = base + "active", base + "job:probe"
    with store.client.pipeline(transaction=True) as tx:
        tx.hset(row, "attempts", "1")
        tx.zadd(active, {"probe": 0})
        tx.execute_command("EMQ.EXTEND", "2", active, row, "1", "probe", "1")
        tx.hget(row, "lease_epoch")
        tx.delete(active, row)
        stamped = tx.execute()[3]
    if not isinstance(stamped, bytes):
        raise RuntimeError(f"EMQ.EXTEND stamped no lease_epoch on its scratch row: {stamped!r}")
    return stamped


class ClientHost:
    """Serves the twin's host calls by sending commands to the store, so a step's replies are real."""

    def __init__(self, store: StoreLike, before_write: WriteHook | None = None) -> None:
        self._store = store
        self._before_write = before_write
        self.replay: list[Call] = []
        self._now: int | None = None
        self._user: bytes | None = None
        self._refused: str | None = None
        self.calls: list[Call] = []
        self.notes: list[str] = []
        self.lines: Sequence[int] = ()
        """The twin's lines run so far in this step, as the driver traces them."""

    def _exchange(self, *args: Any, probe: bool = False) -> Any:
        """Send one command (or take its recorded reply on a replay); an error reply comes back as the exception.

        The call's source line is the twin's line running now: the last one ``lines`` (the driver's
        ``tracing.lines_of(native.py)``) recorded, since the host runs inside that line's call."""
        sent = tuple(a if isinstance(a, bytes) else str(a).encode() for a in args)
        if self.replay:
            recorded = self.replay.pop(0)
            if recorded.sent != sent:
                raise RuntimeError(f"replay expected {recorded.sent!r}, the twin sent {sent!r}")
            return recorded.reply
        call = send_to(self._store, self._before_write, "native", self.lines[-1] if self.lines else 0, sent)
        if probe and isinstance(call.reply, Exception):  # a stand-in this user may not run: the note says so
            call = replace(call, refused_stand_in=True)
        self.calls.append(call)
        return call.reply

    def _send(self, *args: Any) -> Any:
        reply = self._exchange(*args)
        if isinstance(reply, Exception):
            raise native.NativeError(error_text(reply))
        return reply

    def now_ms(self) -> int:
        if self._now is None:
            seconds, micros = self._send("TIME")
            self._now = int(seconds) * 1000 + int(micros) // 1000
        return self._now

    def run_id(self) -> bytes:
        """INFO's run_id; where this user may not run INFO, the one the module itself stamps."""
        try:
            return self._store.run_id()
        except redis.exceptions.NoPermissionError:
            if not self._store.native:
                raise
        self.notes.append(RUN_ID_LEARNED)
        return learned_run_id(self._store)

    def may(self, key: bytes, write: bool) -> bool:
        """ACL DRYRUN as the store's user; where the server refuses the probe itself, go on as permitted."""
        if not self._store.acl:
            return True
        if self._refused is None and self._user is None:
            self._user = self._probe("ACL", "WHOAMI")
        if self._refused is None:
            probe = ("HSET", key, b"lease_epoch", b"x") if write else ("HGET", key, b"attempts")
            verdict = self._probe("ACL", "DRYRUN", self._user, *probe)
            if self._refused is None:
                return bool(verdict == b"OK")
        self.notes.append(probe_refused(self._refused))
        return True

    def _probe(self, *args: Any) -> Any:
        reply = self._exchange(*args, probe=True)
        if isinstance(reply, Exception):
            self._refused = error_text(reply)
        return reply

    def hget(self, key: bytes, field: bytes) -> bytes | None:
        return self._send("HGET", key, field)

    def zscore(self, key: bytes, member: bytes) -> bytes | None:
        return self._send("ZSCORE", key, member)

    def zadd(self, key: bytes, score: bytes, member: bytes) -> None:
        self._send("ZADD", key, score, member)

    def hset(self, key: bytes, field: bytes, value: bytes) -> None:
        self._send("HSET", key, field, value)

