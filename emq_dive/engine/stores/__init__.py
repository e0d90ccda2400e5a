"""Stores the simulator runs against: embedded fakeredis, a spawned server, or the user's own URL."""

from __future__ import annotations

from collections.abc import Callable

from .store import EXIT_SIGNALS, Store, StoreError, close_open_stores, fresh_queue, open_at_exit

__all__ = ["EXIT_SIGNALS", "Store", "StoreError", "close_open_stores", "fresh_queue", "open_at_exit", "open_store"]


def open_store(spec: str = "fakeredis", *, clock: Callable[[], float] | None = None,
               queue: str | None = None, run_id: str | None = None, server_binary: str | None = None,
               background: bool = False) -> Store:
    """Open ``auto``, ``fakeredis``, ``server``, ``valkey``, ``cluster`` or a ``redis://``, ``rediss://`` or
    ``unix://`` URL; ``auto`` is the embedded Valkey where it can run with its module, else fakeredis.

    ``clock`` and ``run_id`` pin the embedded store's TIME and run_id, so tests can freeze the screen;
    ``server_binary`` picks the server that ``server`` spawns; ``background`` returns a valkey store at once,
    its server starting on a thread of its own (``io`` waits for it).
    """
    queue = queue or fresh_queue()
    if spec == "auto":
        from .valkey import open_default
        return open_default(queue, background=background)
    if spec == "fakeredis":
        from .embedded import open_embedded
        return open_embedded(queue, clock, run_id)
    if spec == "server":
        from .spawned import open_spawned
        return open_spawned(queue, server_binary)
    if spec == "valkey":
        from .valkey import open_valkey
        return open_valkey(queue, background=background)
    if spec == "cluster":
        from .cluster import open_cluster
        return open_cluster(queue)
    if spec.startswith(("redis://", "rediss://", "unix://")):
        from .url import open_url
        return open_url(spec, queue)
    raise StoreError(f"unknown backend {spec!r}: use auto, fakeredis, server, valkey, cluster, "
                     "or a redis://, rediss:// or unix:// URL")
