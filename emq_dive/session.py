"""The dive's engine side, free of widgets: one batch, one stepper, and every store move the screen asks for."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace

from . import fates, sandbox, store_view
from .lessons import Lesson, LessonMember
from .render import answer_text
from .stepper import Agreement, Step, Stepper
from .stores.protocol import StoreLike


@dataclass(frozen=True)
class Frame:
    """Everything one screen of the dive shows, read from the engine in one go."""

    step: Step
    wire: int
    held: tuple[tuple[str, int], ...]
    fates: tuple[str, ...]
    view: store_view.StoreView
    agreement: Agreement | None = None
    answer: str = ""
    """What the handle returns or raises once the run is over."""
    seq: int = 0


def rescored_ids(step: Step) -> frozenset[str]:
    """The ids this step's ZADD calls re-scored."""
    return frozenset(c.sent[3].decode() for c in step.calls if c.sent[0].upper() == b"ZADD" and len(c.sent) > 3)


class Session:
    """Owns the stepper; every method does store I/O, so call them from workers inside ``store.io()``."""

    def __init__(self, store: StoreLike, lesson: Lesson, batch: Sequence[str] | None = None, wire: int = 4) -> None:
        self.store = store
        self.lesson = lesson
        self.fates: tuple[str, ...] = tuple(batch or lesson.batch)
        self.wire = wire if wire == 4 or store.native else 4
        self.stepper: Stepper | None = None
        self.held: tuple[tuple[str, int], ...] = ()
        self._agreement: Agreement | None = None
        self._answer = ""
        self._early: Future[Frame] | None = None

    def begin_early(self) -> None:
        """Promise the first frame now, before the screen exists; ``open_early`` keeps the promise from a worker."""
        self._early = Future()

    def open_early(self, target: int = 0) -> None:
        """Set the batch up and step it to ``target`` for the promised first frame, so it overlaps the app's start."""
        early = self._early
        if early is None:
            return
        try:
            with self.store.io():
                frame = self.open(target)
        except BaseException as error:  # handed to the screen's worker, which shows it in the error view
            early.set_exception(error)
        else:
            early.set_result(frame)

    def take_early(self) -> Future[Frame] | None:
        """The early set-up started by ``open_early``, once (later set-ups run in the screen's workers)."""
        early, self._early = self._early, None
        return early

    def open(self, target: int = 0) -> Frame:
        """Set the batch up afresh from its fates and step it to ``target``."""
        self.held = self._set_up()
        self._new_stepper(self.wire)
        return self.goto(target)

    def _set_up(self) -> tuple[tuple[str, int], ...]:
        """Put the batch in place: with the ids and tokens the lesson names, else the course's ids and claims."""
        lesson = self.lesson
        if lesson.members and len(lesson.members) == len(self.fates):
            members = tuple(sandbox.SandboxMember(m.id, fate, m.token)
                            for m, fate in zip(lesson.members, self.fates, strict=True))
            return sandbox.setup(self.store, sandbox.SandboxBatch(members, lesson.lease_ms), lesson.claim_lease_ms)
        return fates.build_batch(self.store, self.fates, lesson.lease_ms, lesson.claim_lease_ms).held

    def restart(self, batch: sandbox.SandboxBatch) -> Frame:
        """Run the edited ``batch`` (its ids, fates, tokens and lease) on the live store from step 0."""
        members = tuple(LessonMember(m.id, m.fate, m.token) for m in batch.members)
        self.lesson = replace(self.lesson, lease_ms=batch.lease_ms, batch=batch.fates, members=members)
        self.fates = batch.fates
        return self.open(0)

    def _new_stepper(self, wire: int) -> None:
        self.stepper = Stepper(self.store, self.held, self.lesson.lease_ms, wire)
        self.wire = wire
        self._agreement, self._answer = None, ""

    def goto(self, target: int) -> Frame:
        """Step forward or back until the stepper stands at ``target``."""
        stepper = self.stepper
        assert stepper is not None
        target = max(0, target)
        while stepper.position > target:
            stepper.back()
        while stepper.position < target and not stepper.finished:
            stepper.forward()
        return self.frame()

    def frame(self) -> Frame:
        """The screen's data for the stepper's current step."""
        stepper = self.stepper
        assert stepper is not None
        step = stepper.current
        if step.done and self._agreement is None:
            self._agreement = stepper.verify()
            self._answer = answer_text(stepper.handle_answer()[1])
        ids = [job for job, _ in self.held]
        current = min(max(step.index - 1, 0), max(len(ids) - 1, 0))
        view = store_view.read(self.store.client, self.store.queue, ids, current, step.changed, rescored_ids(step))
        done = step.done
        return Frame(step=step, wire=self.wire, held=self.held, fates=self.fates, view=view,
                     agreement=self._agreement if done else None, answer=self._answer if done else "")

    def switch(self, wire: int) -> tuple[fates.WireCompare, Frame]:
        """Compare both wires from the batch's start, then re-run the batch on ``wire`` to the same step."""
        stepper = self.stepper
        assert stepper is not None
        position = stepper.position
        stepper.home()
        compared = fates.compare(self.store, self.held, self.lesson.lease_ms)
        if wire == 6 and not self.store.native:
            return compared, self.goto(position)
        self._new_stepper(wire)
        return compared, self.goto(position)

    def run_fate(self, key: str) -> tuple[fates.FateRun, Frame]:
        """Run the four verbs on one fate, then set the lesson batch up again and step it back to where it was."""
        position = self.stepper.position if self.stepper else 0
        ran = fates.run_fate(self.store, key, self.lesson.lease_ms, self.lesson.claim_lease_ms)
        return ran, self.open(position)

    def apply(self, index: int, key: str) -> Frame:
        """Give member ``index`` the fate ``key`` and re-run the batch from the handle."""
        fates.fate(key)
        changed = list(self.fates)
        changed[index] = key
        self.fates = tuple(changed)
        return self.open(0)


def with_seq(frame: Frame, seq: int) -> Frame:
    """The frame tagged with the request it answers."""
    return replace(frame, seq=seq)
