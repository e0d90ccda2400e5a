"""A run's steps kept as what each step did, each made into a whole Step only when something reads it."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, overload

from ..echo_mq import keyspace
from .driver import Driver, focus
from .lua_locals import Locals
from .model import Call, Event, Step
from .shared import Shared
from .timeline import Timeline, is_write

MADE = 64
"""How many made steps are kept, the newest read last: the step on screen is read again and again."""


class Kept(NamedTuple):
    """What one step did, as the run keeps it: its Step is made from this and the timeline when it is read."""

    lines: tuple[int, ...]
    calls: tuple[Call, ...]
    now: int | None
    reply: Any
    error: str | None
    done: bool
    notes: tuple[str, ...]
    locals: tuple[Locals, ...]
    events: tuple[Event, ...]
    """The holder's events and the reaper's landings of this step, in order."""
    round_trips: int
    """Client commands sent by the end of this step, counted from the handle."""


@dataclass(frozen=True)
class StepMaker:
    """Makes a step whole from what it did and the timeline as it stood after it (it holds what a step shows of the
    run, not the Stepper, so the Stepper and its log hold no cycle)."""

    driver: Driver
    timeline: Timeline
    shared: Shared
    queue: str
    wire: int
    lease_ms: int
    mode: str
    at_end: tuple[str, ...]
    """The notes the last step adds (a run stepped only says so there)."""

    def __call__(self, index: int, kept: Kept) -> Step:
        driver, timeline = self.driver, self.timeline
        changed = {call.sent[1] for call in kept.calls if is_write(call.sent)}
        if any(event.moved for event in kept.events):  # the reaper's landing moved a member
            changed |= {keyspace.queue_key(self.queue, name).encode() for name in ("active", "pending")}
        return Step(index=index, count=driver.count, wire=self.wire, title=driver.title(index, kept.done, kept.error),
                    source=driver.source, code=driver.code, lines=kept.lines, focus=focus(kept.lines, driver.marked()),
                    calls=kept.calls, members=timeline.members_at(index), failed=timeline.failed_at(index),
                    clocks=timeline.clocks_at(index), raised=timeline.raised_at(index),
                    now=kept.now, lease_ms=self.lease_ms, command=driver.command, reply=kept.reply,
                    error=kept.error, done=kept.done, changed=self.shared.one(frozenset(changed)),
                    notes=(*kept.notes, *(self.at_end if kept.done else ())),
                    mode=self.mode, round_trips=kept.round_trips, events=kept.events, locals=kept.locals)


class StepLog(Sequence[Step]):
    """Step 0 (the handle) and each step after it; a big batch's run holds one small record a step, not a Step."""

    def __init__(self, first: Step, make: StepMaker) -> None:
        self._first = first
        self._kept: list[Kept] = []
        self._made: dict[int, Step] = {}
        self._make = make
        self._eventful: list[int] = []
        """The steps that hold events, in order: the race reads these, not every step."""

    def add(self, kept: Kept) -> None:
        """Record the next step."""
        self._kept.append(kept)
        if kept.events:
            self._eventful.append(len(self._kept))

    def cut(self, length: int) -> None:
        """Keep only the first ``length`` steps (the handle counts)."""
        if length >= len(self):  # a step forward from the last: nothing to cut
            return
        del self._kept[max(0, length - 1):]
        del self._eventful[bisect_left(self._eventful, length):]
        for index in [index for index in self._made if index >= length]:
            del self._made[index]

    def kept(self, index: int) -> Kept | None:
        """What step ``index`` did (None for the handle)."""
        return self._kept[index - 1] if index else None

    def done(self, index: int) -> bool:
        """Whether the code had returned or raised by step ``index``."""
        return self._kept[index - 1].done if index else self._first.done

    def round_trips(self, index: int) -> int:
        """Client commands sent by the end of step ``index``."""
        return self._kept[index - 1].round_trips if index else self._first.round_trips

    def eventful(self, last: int) -> list[int]:
        """The steps from 1 to ``last`` that hold events, in order."""
        return self._eventful[:bisect_right(self._eventful, last)]

    def calls(self, last: int) -> Iterator[Call]:
        """Every call of steps 1 to ``last``, in order."""
        for kept in self._kept[:last]:
            yield from kept.calls

    def __len__(self) -> int:
        return 1 + len(self._kept)

    @overload
    def __getitem__(self, index: int) -> Step: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Step, ...]: ...

    def __getitem__(self, index: int | slice) -> Step | tuple[Step, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        index = range(len(self))[index]
        if index == 0:
            return self._first
        step = self._made.pop(index, None)
        if step is None:
            step = self._make(index, self._kept[index - 1])
            if len(self._made) >= MADE:
                del self._made[next(iter(self._made))]
        self._made[index] = step  # the newest read goes last, so the oldest read goes first
        return step
