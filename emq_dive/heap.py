"""Keeping the garbage collector's full passes from stalling the screen during a batch-wide move."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a batch-wide move with the cyclic collector off, and turn it back on after.

    A big batch's move builds tens of thousands of long-lived objects, and the collector's full passes over
    them, each holding the interpreter for 50 to 100 ms, came again and again while they were being built.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
