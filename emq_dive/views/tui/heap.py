"""Keeping the garbage collector's full passes from stalling the start-up or the screen during a batch-wide move."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a batch-wide move with the cyclic collector off, then hand what it built to the oldest generation.

    A big batch's move builds tens of thousands of long-lived objects, and the collector's full passes over
    them, each holding the interpreter for 50 to 100 ms, came again and again while they were being built.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # freeze then unfreeze moves every object to the oldest generation without a scan: the young pass
            # that would else walk all the move built (66 ms at 10,000 members, 0.8 s at 100,000) never runs, and
            # nothing stays frozen, so the move's garbage still goes at the next full pass
            gc.freeze()
            gc.unfreeze()
            gc.enable()


_held_for_start_up = False
_thresholds: tuple[int, int, int] | None = None
"""The collector's thresholds before ``settle`` raised the young one (None while they are as they were)."""

YOUNG = 25_000
"""The young generation's threshold once start-up is over: one step leaves far fewer new objects than this, so
its key, its store round trip and its paint never wait on a pass; ``tidy`` runs the passes just after each paint.
(Python's default, 700, ran two young passes and a fifth of a middle one inside every step: about 1 ms.)"""


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
    """Start-up is over: freeze what it built out of the collector's passes, leave the young passes to ``tidy``,
    and give the collector back."""
    global _thresholds
    gc.freeze()
    if _thresholds is None:
        _thresholds = gc.get_threshold()
        gc.set_threshold(YOUNG, *_thresholds[1:])
    release()


def tidy() -> None:
    """Run the collector's young pass now, just after a paint, while the learner reads; every tenth one (as the
    collector itself would) takes the middle generation too."""
    if _thresholds is None or not gc.isenabled():
        return
    gc.collect(1 if gc.get_count()[1] >= _thresholds[1] else 0)


def hand_back() -> None:
    """The app is done: its frozen objects go back to the collector, and its thresholds to what they were (an
    embedding process, a test run say, gets its collector back as it lent it)."""
    global _thresholds
    gc.unfreeze()
    if _thresholds is not None:
        gc.set_threshold(*_thresholds)
        _thresholds = None


def release() -> None:
    """Give the collector back if ``hold_for_start_up`` took it (a run that ends before the app starts, say)."""
    global _held_for_start_up
    if _held_for_start_up:
        _held_for_start_up = False
        gc.enable()
