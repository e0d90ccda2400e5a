"""The stepper: one batch on one wire, a step at a time, every step undoable in the store itself."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import redis

from ..echo_mq import scripts
from ..stores.protocol import StoreLike
from . import handle, lua_driver, native_driver, singles, whatif  # noqa: F401  (drivers register on import)
from .agreement import verify
from .ahead import Ahead, Lane
from .driver import Batch, focus
from .events import holder_events
from .model import Agreement, Before, Event, Step
from .modes import driver_for
from .race import Race
from .shared import Shared
from .step_log import Kept, StepLog, StepMaker
from .timeline import Timeline
from .user_script import ATOMIC_OFF, KeyScreen, runaway, stepped_only

_RUNS = itertools.count(1)
AHEAD_FROM = 8
"""Steps in one move from which it runs ahead in pipelines rather than a command a round trip."""


class Stepper:
    """Runs one held list on one wire in one mode a step at a time; every reply comes from the live store."""

    def __init__(self, store: StoreLike, held: Sequence[tuple[str, int]], lease_ms: int, wire: int = 4,
                 mode: str = "batch", yours: Mapping[str, scripts.Script] | None = None) -> None:
        self.store = store
        self.client: redis.Redis = store.client
        self.queue: str = store.queue
        self.held = list(held)
        self.lease_ms = lease_ms
        self.wire = wire
        self.mode = mode
        self.run_id = f"run-{next(_RUNS)}"
        """This run's id (a new Stepper is a new run): what predictions and agreement checks are kept under."""
        sent = handle.capture(wire, self.queue, self.held, lease_ms)
        self.script, self.keys, self.argv = sent.script, list(sent.keys), list(sent.argv)
        self.timeline = Timeline(self.client, self.held)
        self.yours = dict(yours or {})
        """The learner's edits this run steps in place of the course's scripts, by name."""
        self.shared = Shared((*sent.keys, *sent.argv[:1]))
        screened = stepped_only(store, self.yours)
        self._lane = Lane()
        self.driver = driver_for(wire, Batch(store, sent.script, sent.keys, sent.argv, tuple(self.held), lease_ms,
                                             self.timeline.before_write, self.yours,
                                             KeyScreen(self.queue) if screened else None, self.shared,
                                             self.timeline.paired, self._lane), mode)
        self.stepped_only = screened and scripts.yours_by_file(self.driver.code) is not None
        """True when this run steps the learner's script on a store the app did not start: stepped only, its keys
        screened, never sent whole."""
        self.race = Race(self.client, self.queue, self.timeline)
        self.command = self.driver.command
        opening = self.driver.handle.opening(sent, wire, self.queue, self.held, lease_ms)
        self.steps = StepLog(Step(
            index=0, count=self.driver.count, wire=wire, title=self.driver.handle.title, source="handle",
            code="jobs.py", lines=opening, focus=focus(opening, handle.MARKED), calls=(),
            members=self.timeline.members_at(0), failed=self.timeline.failed_at(0),
            lease_ms=lease_ms, command=self.command, mode=mode),
            StepMaker(self.driver, self.timeline, self.shared, self.queue, wire, lease_ms, mode,
                      (ATOMIC_OFF,) if self.stepped_only else ()))
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
        return self.steps.done(self.position)

    def forward(self) -> Step:
        """Run the next step against the store."""
        self._forward()
        return self.current

    def _forward(self) -> None:
        """Run the next step without making its Step: a long move makes only the one it ends on."""
        position = self.position
        if self.steps.done(position):
            return
        if not self._started:
            self.driver.start(list(self.steps.calls(position)), position)
            self._started = True
        self.steps.cut(position + 1)
        index = position + 1
        self.timeline.open()
        try:
            sent_before = self.steps.round_trips(position)
            landed = [] if self.driver.one_command else self.race.land(index, sent_before)
            kept = self.steps.kept(position)
            outcome = self.driver.step(Before(position, self.timeline.members_at(position, handed=False),
                                              self.timeline.failed_at(position, handed=False),
                                              None if kept is None else kept.now))
            if self.driver.one_command and outcome.done:
                landed = self.race.land(index, sent_before + outcome.round_trips)
        except BaseException:
            # a step that could not finish (the store went away, say) takes back what it wrote, if it still can
            try:
                if self._lane.ahead is not None:
                    self._lane.ahead.flush()  # what waits to be sent goes first, so the undo log holds it all
                self.timeline.undo(index)
            except redis.RedisError:
                pass
            self.timeline.rewind(index)
            self.race.rewind(self.position)
            self._started = False
            raise
        self.timeline.commit(index, outcome.members, outcome.failed)
        holder = holder_events(index, self.driver, outcome, self.timeline.members_at(index, handed=False))
        self.steps.add(Kept(self.shared.one(outcome.lines), outcome.calls, outcome.now, outcome.reply, outcome.error,
                            outcome.done, outcome.notes, outcome.locals,
                            (*holder, *landed) if self.driver.one_command else (*landed, *holder),
                            sent_before + outcome.round_trips))
        self.position = index

    def back(self) -> Step:
        """Undo the last step in the store itself and show the one before."""
        if self.position == 0:
            return self.current
        self.timeline.undo(self.position)
        self.steps.cut(self.position)  # dropped before the rewind, so its views need not copy what they show
        self.timeline.rewind(self.position)
        self.position -= 1
        self.race.rewind(self.position)
        self._started = False
        return self.current

    def home(self) -> Step:
        """Back to the handle, the store as it was before anything was sent."""
        while self.position:
            self.back()
        return self.current

    def end(self) -> Step:
        """Run every remaining step (a learner's script may take more steps than the batch has members)."""
        while not self.finished:
            self.run_to(max(self.count, self.position + 1))
        return self.current

    def run_to(self, target: int) -> Step:
        """Run forward to step ``target`` (or the end); a long run goes ahead in pipelines (see ahead.Ahead), and a
        step the store answered otherwise than the run-ahead fed it is taken back and run again, command by command."""
        while self.position < target and not self.finished:
            if target - self.position < AHEAD_FROM or self.race.waiting():
                self._forward()
                continue
            ahead = self._lane.ahead = Ahead(self.client, self.queue, self.held)
            try:
                while self.position < target and not self.finished and ahead.wrong is None:
                    ahead.step = self.position + 1
                    self._forward()
                    if ahead.full:
                        ahead.flush()
                ahead.flush()
            finally:
                self._lane.ahead = None
            if ahead.wrong is not None:
                while self.position >= ahead.wrong:
                    self.back()
                self._forward()
        return self.current

    def reap_next(self) -> Event:
        """Ask the reaper to reap the next member not yet checked: it lands after the batch returns (the server runs
        the batch as one command), or before the next single call. Raises NothingToReap with the reason."""
        return self.race.ask(self.current, self.driver.one_command)

    def race_events(self) -> tuple[Event, ...]:
        """The race so far, in order: the holder's commands and the reaper's moves, up to the step on screen."""
        one = self.driver.one_command
        events = list(self.race.waits_at(0, one))
        asked = {request.asked_at for request in self.race.requests if 0 < request.asked_at <= self.position}
        for index in sorted(asked.union(self.steps.eventful(self.position))):  # not every step: most hold none
            kept = self.steps.kept(index)
            assert kept is not None
            events += [*kept.events, *self.race.waits_at(index, one)]
        return tuple(events)

    def handle_answer(self) -> tuple[tuple[int, ...], Any]:
        """Run the handle again with the stepped reply: the lines it runs and what it returns or raises (for
        singles, what each call returns or raises, in member order, and the last call's lines)."""
        step = self.current
        if not step.done:
            raise RuntimeError("the run has not finished")
        return self.driver.handle.answer(self.wire, self.queue, self.held, self.lease_ms, step)

    def verify(self) -> Agreement | None:
        """Run the same held list unstepped from the same start (with the reaper's moves where they landed); say
        whether it agrees with the stepped run. None where it must not run: the learner's script on a store the app
        did not start (the last step's note says so), or a runaway the stepped run stopped."""
        end = self.end()
        if self.stepped_only or runaway(end.error):
            return None
        return verify(self.store, self.driver, self.timeline, end, self.lease_ms, self.race.interlude())
