"""The stepper: one batch on one wire, a step at a time, every step undoable in the store itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from ..stores.protocol import StoreLike
from . import handle, lua_driver, native_driver  # noqa: F401  (the drivers register their wires on import)
from .agreement import verify
from .driver import Batch, Outcome, driver_for, focus
from .model import Agreement, Step
from .timeline import Timeline, is_write


class Stepper:
    """Runs one batch on one wire a step at a time; every reply comes from the live store."""

    def __init__(self, store: StoreLike, held: Sequence[tuple[str, int]], lease_ms: int, wire: int = 4) -> None:
        self.store = store
        self.client: redis.Redis = store.client
        self.queue: str = store.queue
        self.held = list(held)
        self.lease_ms = lease_ms
        self.wire = wire
        sent = handle.capture(wire, self.queue, self.held, lease_ms)
        self.script, self.keys, self.argv = sent.script, list(sent.keys), list(sent.argv)
        self.timeline = Timeline(self.client, self.held)
        self.driver = driver_for(wire, Batch(store, sent.script, sent.keys, sent.argv, tuple(self.held), lease_ms,
                                             self.timeline.before_write))
        self.command = self.driver.command
        self.steps: list[Step] = [Step(
            index=0, count=self.driver.count, wire=wire, title="the handle: gate, flatten, argv, keys, send",
            source="handle", lines=sent.lines, focus=focus(sent.lines, handle.MARKED), calls=(),
            members=self.timeline.members_at(0), failed=self.timeline.failed_at(0),
            lease_ms=lease_ms, command=self.command)]
        self.position = 0
        self._started = False

    @property
    def count(self) -> int:
        """How many steps the batch takes after the handle."""
        return self.driver.count

    @property
    def current(self) -> Step:
        """The step on screen; the store is in the state it left."""
        return self.steps[self.position]

    @property
    def finished(self) -> bool:
        """True once the code has returned or raised."""
        return self.current.done

    def forward(self) -> Step:
        """Run the next step against the store."""
        if self.current.done:
            return self.current
        if not self._started:
            self.driver.start([call for step in self.steps[1: self.position + 1] for call in step.calls],
                              self.position)
            self._started = True
        del self.steps[self.position + 1:]
        index = self.position + 1
        self.timeline.open()
        try:
            outcome = self.driver.step(self.current)
        except BaseException:
            # a step that could not finish (the store went away, say) takes back what it wrote, if it still can
            try:
                self.timeline.undo(index)
            except redis.RedisError:
                pass
            self.timeline.rewind(index)
            self._started = False
            raise
        self.timeline.commit(index, outcome.members, outcome.failed)
        self.steps.append(self._step(index, outcome))
        self.position = index
        return self.current

    def back(self) -> Step:
        """Undo the last step in the store itself and show the one before."""
        if self.position == 0:
            return self.current
        self.timeline.undo(self.position)
        self.timeline.rewind(self.position)
        self.position -= 1
        self._started = False
        return self.current

    def home(self) -> Step:
        """Back to the handle, the store as it was before anything was sent."""
        while self.position:
            self.back()
        return self.current

    def end(self) -> Step:
        """Run every remaining step."""
        while not self.current.done:
            self.forward()
        return self.current

    def _step(self, index: int, outcome: Outcome) -> Step:
        driver = self.driver
        changed = frozenset(call.sent[1] for call in outcome.calls if is_write(call.sent))
        return Step(index=index, count=driver.count, wire=self.wire, title=driver.title(index, outcome.done,
                    outcome.error), source=driver.source, lines=outcome.lines,
                    focus=focus(outcome.lines, driver.marked()), calls=outcome.calls,
                    members=self.timeline.members_at(index), failed=self.timeline.failed_at(index),
                    now=outcome.now, lease_ms=self.lease_ms, command=self.command, reply=outcome.reply,
                    error=outcome.error, done=outcome.done, changed=changed, notes=outcome.notes)

    def handle_answer(self) -> tuple[tuple[int, ...], Any]:
        """Run the handle again with the stepped reply: the lines it runs and what it returns or raises."""
        step = self.current
        if not step.done:
            raise RuntimeError("the run has not finished")
        return handle.answer(self.wire, self.queue, self.held, self.lease_ms, step.reply, step.error)

    def verify(self) -> Agreement:
        """Run the same batch atomically from the same start; say whether it agrees with the stepped run."""
        return verify(self.store, self.driver, self.timeline, self.end(), self.lease_ms)
