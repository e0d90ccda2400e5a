"""BullMQ's own batch lock extension on the same server, where the optional Node package is installed."""

from __future__ import annotations

from typing import Any, Sequence


def report(store: Any, sizes: Sequence[int]) -> None:
    """Print BullMQ's per-lease cost beside ours, or say why it was not measured."""
    if store.kind == "fakeredis":
        return
    print("  BullMQ extendLocks: not measured (the bench extra is not built yet)")
