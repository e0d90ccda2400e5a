"""Keeping the garbage collector's full passes from stalling the start-up or the screen during a batch-wide move."""

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


_held_for_start_up = False


def hold_for_start_up() -> None:
    """Turn the cyclic collector off while the app starts; ``settle`` (or ``release``) turns it back on.

    Nearly everything start-up allocates (modules, styles, widgets, the first frame) lives as long as the app,
    so the collections it would trigger (one full pass among them) are wasted work before the first frame.
    """
    global _held_for_start_up
    if gc.isenabled():
        gc.disable()
        _held_for_start_up = True


def settle() -> None:
    """Start-up is over: freeze what it built out of the collector's passes, and give the collector back."""
    gc.freeze()
    release()


def release() -> None:
    """Give the collector back if ``hold_for_start_up`` took it (a run that ends before the app starts, say)."""
    global _held_for_start_up
    if _held_for_start_up:
        _held_for_start_up = False
        gc.enable()
