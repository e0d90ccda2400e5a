"""The plain mode's tools: the cost view measured live (c) and the transcript of the run so far (x)."""

from __future__ import annotations

import os
from pathlib import Path

import redis

from ....course.sandbox import MAX_MEMBERS
from ....tools import cost
from ..transcript import default_name
from .state import Dive
from .words import cost_text


def measure(dive: Dive, _key: str, argument: str) -> None:
    """Measure what one lease costs on the dive's store, on a scratch queue of its own (``c 1 100`` picks sizes)."""
    store = dive.session.store
    sizes = argument.replace(",", " ").split() or [str(size) for size in cost.SIZES]
    if not all(size.isdigit() and 1 <= int(size) <= MAX_MEMBERS for size in sizes):
        dive.say(f"The cost view measures lease counts from 1 to {MAX_MEMBERS:,}, such as c 1 100; "
                 f"not {argument!r}. Nothing was measured.")
        return
    counts = tuple(int(size) for size in sizes)
    native = "natively with EMQ.EXTENDS" if store.native else f"(not natively: {store.native_reason})"
    dive.say(f"The cost of one lease, measured now on {store.description}: extends "
             f"{', '.join(f'{n:,}' for n in counts)} leases as one batch, as N single calls, and {native}, on a "
             "scratch queue of its own that is deleted afterwards; the dive's keys stay as they were. Measuring…")
    try:
        with store.io():
            costs = cost.measure(store, counts, dive.session.lesson.lease_ms, store.description, store.native_reason,
                                 clock=dive.clock)
    except redis.RedisError as error:  # as the cost view says it; its scratch queue is deleted either way
        dive.say(f"The measurement failed: {type(error).__name__}: {error}. The dive goes on.")
        return
    scale = "µs per lease, client round trip included, best of the runs, on this machine, not a reference"
    dive.say("\n".join([f"Measured on {costs.backend}, {scale}:", *cost_text(costs)]))


def transcript(dive: Dive, _key: str, argument: str) -> None:
    """Write the transcript of everything so far, to ``argument`` or a file named after the run."""
    session = dive.session
    path = argument or default_name(session.lesson.id, session.store.queue)
    problem = dive.path_problem(path)
    if problem:
        dive.say(f"Cannot write the transcript: {problem}.")
        return
    try:
        written = dive.recorder.write(path)
    except OSError as err:
        dive.say(f"Cannot write the transcript: {err.strerror or err}.")
        return
    dive.say(f"The transcript so far is in {Path(os.path.abspath(written))}.")
