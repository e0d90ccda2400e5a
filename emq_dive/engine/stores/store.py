"""The store a dive runs on: its client, its queue, its closers, and the one error class of store I/O."""

from __future__ import annotations

import atexit
import os
import secrets
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from ..echo_mq import keyspace
from ..echo_mq.connector import raw
from .expiry import KEY_TTL_MS, expire, queue_keys, renew
from .url_pool import UrlPool, quiet


class StoreError(RuntimeError):
    """A store that could not be opened; the message says what to do."""


@dataclass
class Store:
    """An open store: a client, what to call it on screen, and what it can show."""

    client: redis.Redis
    kind: str
    description: str
    queue: str
    native: bool
    native_reason: str = ""
    acl: bool = True
    acl_reason: str = ""
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)
    pinned_run_id: bytes | None = None
    """The run_id of a store that has no INFO to ask (the embedded one)."""
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """Held around each piece of work on the store, so that ``close`` waits for the one under way."""
    closed: bool = False
    pid: int | None = None
    """The process id of the server this store started, or None when it started none."""
    owned: bool = False
    """True when the app started this server itself, so it may create users on it (the restricted fate)."""
    starting: Future[None] | None = field(default=None, repr=False, compare=False)
    """Set while the server starts on its own thread; ``io`` waits for it and raises what the start raised."""
    ttl_ms: int | None = None
    """How long each key of the run lives past the last move, on a store the app did not start (None: no TTL)."""
    expiring: set[str] = field(default_factory=set, repr=False, compare=False)
    """The queues whose keys get ``ttl_ms`` again after each move and from the keeper: the run's own."""
    quit_seconds: float = 10.0
    """How long ``close`` waits for work under way before it goes on without it."""
    exited: threading.Event | None = field(default=None, repr=False, compare=False)
    """Set once the server this store started has exited (None when it started none)."""
    cleaned: Future[int] | None = field(default=None, repr=False, compare=False)
    """The quiet clean a URL store runs at start: how many queues of dead owners it deleted."""
    revive: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    """Start a new server in place of the one this store started (``respawn`` calls it once that one stopped)."""

    @property
    def stopped(self) -> bool:
        """True when the server this app started has exited under it."""
        return self.exited is not None and self.exited.is_set() and not self.closed

    @property
    def started(self) -> bool:
        """True once the store answers: it started no server, or the one it started is ready (or failed)."""
        return self.starting is None or self.starting.done()

    def wait_started(self) -> None:
        """Block until the store's server answers; raise StoreError when it could not start."""
        if self.starting is not None:
            self.starting.result()

    @contextmanager
    def io(self) -> Iterator[None]:
        """Hold the store for one piece of work once it answers; refuse once it is closed, so nothing is written then.

        A store whose server is still starting waits for it here, outside the lock, so ``close`` is never held up.
        """
        self.wait_started()
        with self.lock:
            if self.closed:
                raise StoreError("the store is closed")
            failed = True
            try:
                yield
                failed = False
            finally:
                if self.ttl_ms is not None:
                    self._renew(failed)

    def _renew(self, failed: bool) -> None:
        """Give each key of the run the move named (any it created among them) its TTL again; on a pool that notes
        no keys, every key of the run. A move's own error wins over the renewal's."""
        pool = self.client.connection_pool
        ttl, queues = self.ttl_ms or KEY_TTL_MS, sorted(self.expiring | {self.queue})
        try:
            with quiet(self.client):
                if isinstance(pool, UrlPool):
                    expire(self.client, pool.notes.take(), ttl, queues)
                else:
                    renew(self.client, queues, ttl)
        except redis.RedisError:
            if not failed:
                raise

    def run_id(self) -> bytes:
        """The server's run_id, the value the native twin stamps as lease_epoch."""
        if self.pinned_run_id is not None:
            return self.pinned_run_id
        info = raw(self.client, "INFO", "server").decode()
        for line in info.splitlines():
            if line.startswith("run_id:"):
                return line.split(":", 1)[1].strip().encode()
        raise StoreError("the server's INFO names no run_id")

    def own_keys(self) -> list[bytes]:
        """Every key under this run's queue, found with SCAN."""
        return sorted(self.client.scan_iter(match=keyspace.queue_pattern(self.queue), count=1000))

    def respawn(self) -> bool:
        """Start a new server in place of the one this app started, if that one has stopped; True when it did.

        It returns at once: the new server starts on a thread of its own, and ``io`` waits for it.
        """
        if not self.stopped or self.revive is None:
            return False
        self.revive()
        return True

    def interrupt(self, wait: float = 1.0) -> None:
        """Give a move under way ``wait`` seconds, then shut its connections (a stalled server), so the worker
        waiting on a reply returns and the app can exit; a later call connects afresh."""
        if self.lock.acquire(timeout=wait):
            self.lock.release()
            return
        pool = self.client.connection_pool
        pool.let_go() if isinstance(pool, UrlPool) else pool.disconnect()

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the store closes, newest first."""
        self._closers.append(callback)

    def close_at_exit(self) -> None:
        """Close the store when the process exits, should nothing close it before (a close lets that go)."""
        _OPEN[id(self)] = self

        def let_go() -> None:
            _OPEN.pop(id(self), None)

        self.on_close(let_go)

    def forget(self) -> None:
        """Delete every key of this run's queue, and only those (its owner markers stay while the run lives)."""
        keys = queue_keys(self.client, self.queue)
        if keys:
            self.client.delete(*keys)

    def close(self, wait: float | None = None) -> None:
        """Release the store: delete what this run wrote, stop what it started. Safe to call twice.

        It waits up to ``wait`` seconds (default ``quit_seconds``) for work under way on the store, and refuses
        any that comes after; no signal cuts it short.
        """
        with _shielded():
            held = self.lock.acquire(timeout=self.quit_seconds if wait is None else wait)
            self.closed = True
            try:
                self._run_closers()
            finally:
                if held:
                    self.lock.release()

    def _run_closers(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            try:
                closer()
            except Exception:  # a close must finish every step even when one fails
                pass


EXIT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


_OPEN: dict[int, Store] = {}
"""The stores to close at exit that are still open, by id."""
# a forked child owns none of its parent's stores: closing one there would stop the parent's server
os.register_at_fork(after_in_child=_OPEN.clear)


def open_at_exit() -> tuple[Store, ...]:
    """The stores the exit handler would close now, oldest first."""
    return tuple(_OPEN.values())


@atexit.register
def close_open_stores() -> None:
    """Close every store still open that asked to be closed at exit, newest first; a process that leaves with
    ``os._exit`` (a forked tab) calls it itself, since that skips the exit handlers."""
    for store in reversed(list(_OPEN.values())):
        store.close()


@contextmanager
def _shielded() -> Iterator[None]:
    """Ignore SIGINT, SIGTERM and SIGHUP inside the block (on the main thread), so a second one cannot cut a close
    short and leave keys or a server behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {signum: signal.getsignal(signum) for signum in EXIT_SIGNALS}
    for signum in saved:
        signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def fresh_queue() -> str:
    """A queue name no earlier run used, like ``dive-1a2b3c4d``."""
    return f"dive-{secrets.token_hex(4)}"


