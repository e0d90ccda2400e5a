"""The connection pool of a URL store: it notes each key of the run's queues a command names, and can be let go."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import redis


class Notes:
    """The keys of the watched queues that commands named since the last ``take``: what a move may have created."""

    def __init__(self) -> None:
        self.prefixes: tuple[bytes, ...] = ()
        self._keys: set[bytes] = set()
        self._local = threading.local()

    def watch(self, prefix: str) -> None:
        """Note the keys that start with ``prefix`` (a queue's ``emq:{<queue>}:``)."""
        self.prefixes = (*self.prefixes, prefix.encode())

    def note(self, args: Sequence[Any]) -> None:
        """Keep each argument of one command that is a key of a watched queue (a value that looks like one too)."""
        if not self.prefixes or getattr(self._local, "quiet", False):
            return
        for arg in args:
            name = arg.encode() if isinstance(arg, str) else arg
            if isinstance(name, bytes) and name.startswith(self.prefixes):
                self._keys.add(name)

    def take(self) -> set[bytes]:
        """The keys noted so far; the notes start afresh."""
        keys, self._keys = self._keys, set()
        return keys

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Note nothing this thread sends inside the block (the renewals themselves)."""
        self._local.quiet = True
        try:
            yield
        finally:
            self._local.quiet = False


class _Noting:
    """A connection that shows every command it sends to its pool's notes, alone or packed in a pipeline."""

    notes: Notes

    def note(self, command: Sequence[Any]) -> None:
        """Show one command sent packed by other means (``connector.raw_many`` packs in C) to the notes."""
        self.notes.note(command)

    def send_command(self, *args: Any, **kwargs: Any) -> None:
        self.notes.note(args)
        super().send_command(*args, **kwargs)  # type: ignore[misc]

    def pack_commands(self, commands: Iterable[Sequence[Any]]) -> Any:
        commands = list(commands)
        for command in commands:
            self.notes.note(command)
        return super().pack_commands(commands)  # type: ignore[misc]


class UrlPool(redis.ConnectionPool):
    """A pool whose connections note the run's keys; once ``let_go``, every call fails at once."""

    gone = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.notes = Notes()
        plain = kwargs.get("connection_class", redis.Connection)
        plain = getattr(plain, "plain", plain)
        kwargs["connection_class"] = type(f"Noting{plain.__name__}", (_Noting, plain),
                                          {"notes": self.notes, "plain": plain})
        super().__init__(*args, **kwargs)

    def let_go(self) -> None:
        """Shut every connection, those a stalled call waits on too, and refuse new ones."""
        self.gone = True
        self.disconnect()

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if self.gone:
            raise redis.ConnectionError("the app let the store go: it is quitting")
        return super().get_connection(*args, **kwargs)


@contextmanager
def quiet(client: redis.Redis) -> Iterator[None]:
    """Note nothing ``client`` sends from this thread inside the block."""
    pool = client.connection_pool
    if isinstance(pool, UrlPool):
        with pool.notes.quiet():
            yield
    else:
        yield
