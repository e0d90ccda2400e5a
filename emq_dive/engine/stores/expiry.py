"""Keys that clean themselves: a TTL on every key a dive writes on a server it did not start, and owner markers."""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import redis

from ..echo_mq import keyspace
from .url_pool import quiet

KEY_TTL_MS = 15 * 60 * 1000
"""Every key of a dive on a URL store lives 15 minutes past the last renewal, so a killed run leaves nothing."""
ALIVE_TTL_MS = 30_000
"""The owner marker's own short life: a dive whose marker is gone has no owner any more."""
RENEW_SECONDS = 5.0
"""How often a live dive renews its owner marker (and, every ``SWEEP_EVERY`` turns, its keys' TTL)."""
SWEEP_EVERY = 12
"""Every twelfth turn (a minute) the keeper gives every key of the run its TTL again, not just the markers."""
OWNER = "dive-owner"
"""The suffix of the marker that says a dive made this queue (it lives as long as the queue's keys)."""
ALIVE = "dive-alive"
"""The suffix of the marker that says the dive's owner still runs (it lives ``ALIVE_TTL_MS``)."""
MARKERS = (OWNER, ALIVE)
SIGNATURE = "emq-dive owner v1"
"""How a marker this app wrote begins; ``clean`` leaves any other value alone."""


def marker_keys(queue: str) -> tuple[bytes, ...]:
    """The queue's two owner markers, as the store holds them."""
    return tuple(keyspace.queue_key(queue, suffix).encode() for suffix in MARKERS)


def queue_keys(client: redis.Redis, queue: str) -> list[bytes]:
    """Every key under ``emq:{<queue>}:`` but its owner markers, found with SCAN."""
    markers = marker_keys(queue)
    return sorted(key for key in client.scan_iter(match=keyspace.queue_pattern(queue), count=1000)
                  if key not in markers)


def _start_time(pid: int) -> str:
    """The kernel's start time of ``pid`` (so a reused pid is not taken for the owner), or '' where unknown."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return text[text.rindex(")") + 2:].split()[19]


@dataclass(frozen=True)
class Owner:
    """The process that runs a dive: its host, pid and start time, as its markers carry them."""

    host: str
    pid: int
    started: str

    @classmethod
    def me(cls) -> Owner:
        """This process."""
        return cls(socket.gethostname(), os.getpid(), _start_time(os.getpid()))

    def text(self) -> str:
        """The markers' value."""
        return f"{SIGNATURE} host={self.host} pid={self.pid} started={self.started}"

    @classmethod
    def parse(cls, value: bytes | None) -> Owner | None:
        """The owner a marker names, or None when the value is not one this app writes."""
        text = (value or b"").decode(errors="replace")
        found = re.fullmatch(rf"{SIGNATURE} host=(\S+) pid=(\d+) started=(\S*)", text)
        return None if found is None else cls(found[1], int(found[2]), found[3])

    def gone_here(self) -> bool:
        """True when this owner ran on this host and its process is no more (a pid reused since does not count)."""
        if self.host != socket.gethostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        return bool(self.started) and _start_time(self.pid) not in ("", self.started)


def mark(client: redis.Redis, queue: str, owner: Owner, ttl_ms: int = KEY_TTL_MS) -> None:
    """Write (or renew) both markers of ``queue``: the long one, and the short one that says the owner lives."""
    owner_key, alive_key = marker_keys(queue)
    with client.pipeline(transaction=False) as pipe:
        pipe.set(owner_key, owner.text(), px=ttl_ms)
        pipe.set(alive_key, owner.text(), px=ALIVE_TTL_MS)
        pipe.execute()


def renew(client: redis.Redis, queues: Iterable[str], ttl_ms: int = KEY_TTL_MS) -> int:
    """Give every key of ``queues`` (a key a move just created too) ``ttl_ms`` to live again, but the short-lived
    alive marker; how many were set."""
    keys: list[bytes] = []
    for queue in queues:
        alive = marker_keys(queue)[1]
        keys += [key for key in client.scan_iter(match=keyspace.queue_pattern(queue), count=1000) if key != alive]
    if not keys:
        return 0
    with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.pexpire(key, ttl_ms)
        pipe.execute()
    return len(keys)


def expire(client: redis.Redis, keys: Iterable[bytes], ttl_ms: int, queues: Iterable[str]) -> int:
    """Give each of ``keys`` ``ttl_ms`` to live, but the queues' short-lived alive markers; how many were sent."""
    alive = {marker_keys(queue)[1] for queue in queues}
    chosen = [key for key in keys if key not in alive]
    if chosen:
        with client.pipeline(transaction=False) as pipe:
            for key in chosen:
                pipe.pexpire(key, ttl_ms)
            pipe.execute()
    return len(chosen)


class Keeper:
    """A thread that keeps a live dive's owner marker fresh and its keys' TTL renewed until ``stop``."""

    def __init__(self, client: redis.Redis, queues: set[str], owner: Owner, ttl_ms: int = KEY_TTL_MS,
                 every: float = RENEW_SECONDS) -> None:
        self.client, self.queues, self.owner, self.ttl_ms, self.every = client, queues, owner, ttl_ms, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="emq-dive key keeper", daemon=True)

    def start(self) -> None:
        """Start renewing."""
        self._thread.start()

    def _run(self) -> None:
        turn = 0
        while not self._stop.wait(self.every):
            turn += 1
            try:
                self.turn(turn)
            except redis.RedisError:  # a stalled or lost server: the next turn tries again
                continue

    def turn(self, number: int) -> None:
        """One renewal: the owner markers, and on every ``SWEEP_EVERY``-th turn each key's TTL."""
        queues = sorted(self.queues.copy())  # a copy: another thread may change the set
        with quiet(self.client):
            for queue in queues:
                mark(self.client, queue, self.owner, self.ttl_ms)
            if number % SWEEP_EVERY == 0:
                renew(self.client, queues, self.ttl_ms)

    def stop(self) -> None:
        """Stop renewing (without waiting on a server that may not answer)."""
        self._stop.set()
