"""The seam between the stepper and one way a batch runs: a driver per wire, chosen from a registry."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from ..echo_mq import scripts
from ..echo_mq.connector import Connector
from ..stores.protocol import StoreLike
from .model import Call, Member, Step

WriteHook = Callable[[Sequence[bytes]], None]
"""Called with a write's arguments just before it is sent, so the undo log can note what it replaces."""


class ReplayMismatch(RuntimeError):
    """Replaying recorded replies led the code to a different command than it sent before."""


@dataclass(frozen=True)
class Batch:
    """One batch as the handle sends it, and what a driver needs to run it against the store."""

    store: StoreLike
    script: scripts.Script
    keys: tuple[bytes, ...]
    argv: tuple[bytes, ...]
    held: tuple[tuple[str, int], ...]
    lease_ms: int
    before_write: WriteHook


@dataclass(frozen=True)
class Outcome:
    """What one step of a driver did: the code it ran, what it sent, and what the run now knows."""

    lines: tuple[int, ...]
    calls: tuple[Call, ...]
    now: int | None
    reply: Any = None
    error: str | None = None
    done: bool = False
    members: tuple[Member, ...] = ()
    """Members whose state this step changed, in the order it changed them."""
    failed: tuple[str, ...] = ()
    """Ids that joined the failed list in this step."""
    notes: tuple[str, ...] = ()


class Driver(Protocol):
    """Runs one batch a step at a time against the live store; every reply it reports came from the store."""

    wire: int
    source: str
    """Which code it steps, as the code pane names it: ``lua`` or ``native``."""
    command: tuple[bytes, ...]
    """The batch command as the handle sends it."""
    count: int
    """How many steps the batch takes after the handle."""

    def title(self, index: int, done: bool, error: str | None) -> str:
        """The heading of step ``index``."""
        ...

    def marked(self) -> Collection[int]:
        """The lines of the stepped code that carry an ``@marker``."""
        ...

    def start(self, recorded: Sequence[Call], position: int) -> None:
        """Begin a fresh run and bring it to step ``position`` by feeding it the replies ``recorded`` on the way."""
        ...

    def step(self, before: Step) -> Outcome:
        """Run the step after ``before`` against the store."""
        ...

    def atomic(self) -> tuple[tuple[bytes, ...], Any]:
        """Run the whole batch in one command: what was sent, and the reply or the error."""
        ...


DriverFactory = Callable[[Batch], Driver]
DRIVERS: dict[int, DriverFactory] = {}
"""Each wire's driver, by the wire number the screen names."""


def register(wire: int) -> Callable[[DriverFactory], DriverFactory]:
    """Make a driver class the one that runs ``wire``."""
    def add(factory: DriverFactory) -> DriverFactory:
        DRIVERS[wire] = factory
        return factory
    return add


def driver_for(wire: int, batch: Batch) -> Driver:
    """The registered driver for ``wire``, set up for ``batch``."""
    try:
        factory = DRIVERS[wire]
    except KeyError:
        raise ValueError(f"no driver runs wire {wire}; known wires: {sorted(DRIVERS)}") from None
    return factory(batch)


def focus(lines: Sequence[int], marked: Collection[int]) -> int | None:
    """The line to highlight: the last one run that carries a marker, else the last one run."""
    return next((n for n in reversed(lines) if n in marked), lines[-1] if lines else None)


def run_atomic(batch: Batch, wire: int) -> tuple[tuple[bytes, ...], Any]:
    """Send the batch through the project's connector on ``wire``, in one command."""
    connector = Connector(batch.store.client, wire)
    try:
        reply: Any = connector.eval(batch.script, batch.keys, batch.argv)
    except redis.ResponseError as err:
        reply = err
    return tuple(connector.log[-1].sent), reply
