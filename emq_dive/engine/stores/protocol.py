"""The seam every store offers the engine: a client, its queue, what it can show, and its lifetime."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

import redis


@runtime_checkable
class Sharded(Protocol):
    """A store on a cluster: where each key's hash slot is, and which node serves it."""

    def keyslot(self, key: str | bytes) -> int:
        """The hash slot of ``key``."""
        ...

    def node_for(self, key: str | bytes) -> str:
        """The ``host:port`` of the node that serves ``key``."""
        ...


class StoreLike(Protocol):
    """An open store as the engine sees it; ``Store`` is the one implementation, tests may bring others."""

    client: redis.Redis
    queue: str
    kind: str
    description: str
    native: bool
    native_reason: str
    acl: bool
    acl_reason: str
    owned: bool
    """True when the app started this server itself, so it may create users on it."""

    def io(self) -> AbstractContextManager[None]:
        """Hold the store for one piece of work; refuse once it is closed."""
        ...

    def run_id(self) -> bytes:
        """The server's run_id, the value the native twin stamps as lease_epoch."""
        ...

    def forget(self) -> None:
        """Delete every key of this run's queue, and only those."""
        ...

    @property
    def stopped(self) -> bool:
        """True when the server this app started has exited under it."""
        ...

    def respawn(self) -> bool:
        """Start a new server in place of the one this app started, if that one has stopped; True when it did."""
        ...

    def interrupt(self, wait: float = 1.0) -> None:
        """Give a move under way ``wait`` seconds, then cut it off, so its worker returns and the app can exit."""
        ...

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the store closes, newest first."""
        ...
