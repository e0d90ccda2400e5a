"""Keeping the garbage collector's full passes from stalling the screen during a batch-wide move."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a batch-wide move with the cyclic collector off, then freeze what it built.

    A big batch's move builds tens of thousands of long-lived objects, and each full pass the collector makes
    over them holds the interpreter for 50–100 ms. What the move built lives as long as the batch, so it is
    frozen (refcounting still frees it; only the cycle search skips it).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
