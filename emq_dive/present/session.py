"""The dive's engine side, free of widgets: one batch, one stepper, and every store move the screen asks for."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..course import sandbox
from ..course.lessons import Lesson, LessonMember
from ..engine.echo_mq import scripts
from ..engine.echo_mq.render import answer_text
from ..engine.fate_table import fate
from ..engine.fates.setups import build_batch
from ..engine.stepper import MODES, Agreement, Check, Event, Judged, ModeRefused, Predictions, Step, Stepper, choices
from ..engine.stepper.modes import choose
from ..engine.stepper.step_log import Kept
from ..engine.stores.protocol import StoreLike
from . import store_view
from .play_to import Breakpoints

if TYPE_CHECKING:  # the verbs' and the comparison's modules load on the first fate or wire switch
    from ..engine.fates import FateRun, WireCompare


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
    run: int = 0
    """Which run of this session, counted from 1, the agreement checked (0 while the run is not over)."""
    seq: int = 0
    played: Played | None = None
    """The learner's own moves in this run: its mode, the reaper's race, the guesses judged."""
    checking: bool = False
    """True for a finished run's frame made before its agreement check and answer (a screen shows the end first,
    then the frame ``Session.frame`` makes once the check has run)."""

    @property
    def run_key(self) -> tuple[object, ...]:
        """What frames of one run share: the wire, the fates, the held leases and the command."""
        return (self.wire, self.fates, self.held, self.step.command)


@dataclass(frozen=True)
class Played:
    """What the learner's moves add to a frame: the run mode, the race so far, and the guesses judged."""

    mode: str
    """The stepper's mode: ``batch``, ``singles`` or ``guard-off``."""
    label: str
    """The header's run mode: ``batch · extend_locks`` or ``singles · extend_lock ×N``."""
    race: tuple[Event, ...] = ()
    predicting: bool = False
    asks: int | None = None
    """The member the next step decides, while predict mode waits for a guess on it."""
    judged: tuple[Judged, ...] = ()
    score: tuple[int, int] = (0, 0)
    """(right, judged so far) of this run's guesses."""
    choices: tuple[Check, ...] = ()

    @property
    def what_if(self) -> bool:
        """True while the run steps a script the protocol does not ship (guard off)."""
        return MODES[self.mode].what_if


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
        self._ids: tuple[tuple[tuple[str, int], ...], list[str]] = ((), [])  # held's ids, made once per held list
        self._agreement: Agreement | None = None
        self._checked: Kept | None = None
        """The record of the finished step last checked (a step run again is a new record, and gets its own check)."""
        self._answer = ""
        self._runs = 0
        self._early: Future[Frame] | None = None
        self.breakpoints = Breakpoints()
        """The lines the learner marked with ``b``, where playing forward stops."""
        self.run_mode = "batch"
        """``batch`` or ``singles``: how ``m`` sends the held list."""
        self.guard_off = False
        """True while ``g`` runs the batch's what-if without its ZSCORE guard (wire 4, batch only)."""
        self.predicting = False
        self.predictions = Predictions()
        self.yours: dict[str, scripts.Script] = {}
        """The learner's edited scripts the dive steps in place of the course's, by name (see present.yours)."""
        self._stale = False
        """True after a move failed part-way (OOM, a timeout): the next move sets the batch up afresh and re-runs
        it, so no step of the failed run, nor its error, is shown as the store's answer."""

    def begin_early(self) -> Future[Frame]:
        """Promise the first frame now, before the screen exists; ``open_early`` keeps the promise from a worker."""
        self._early = Future()
        return self._early

    def open_early(self, early: Future[Frame], target: int = 0) -> None:
        """Set the batch up and step it to ``target`` for the promised first frame, so it overlaps the app's start.

        It keeps the promise it was handed even when the screen has taken it already, which the screen may do
        before this worker thread runs at all.
        """
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
        self._stale = True
        self.held = self._set_up()
        self._new_stepper(self.wire)
        self._stale = False
        return self.goto(target)

    def _set_up(self) -> tuple[tuple[str, int], ...]:
        """Put the batch in place: with the ids and tokens the lesson names, else the course's ids and claims."""
        lesson = self.lesson
        if lesson.members and len(lesson.members) == len(self.fates):
            members = tuple(sandbox.SandboxMember(m.id, fate, m.token)
                            for m, fate in zip(lesson.members, self.fates, strict=True))
            return sandbox.setup(self.store, sandbox.SandboxBatch(members, lesson.lease_ms), lesson.claim_lease_ms)
        return build_batch(self.store, self.fates, lesson.lease_ms, lesson.claim_lease_ms).held

    def restart(self, batch: sandbox.SandboxBatch) -> Frame:
        """Run the edited ``batch`` (its ids, fates, tokens and lease) on the live store from step 0."""
        members = tuple(LessonMember(m.id, m.fate, m.token) for m in batch.members)
        self.lesson = replace(self.lesson, lease_ms=batch.lease_ms, batch=batch.fates, members=members)
        self.fates = batch.fates
        return self.open(0)

    def _new_stepper(self, wire: int) -> None:
        self.stepper = Stepper(self.store, self.held, self.lesson.lease_ms, wire, self._mode_on(wire), self.yours)
        self.wire = wire
        self._agreement, self._checked, self._answer = None, None, ""

    def goto(self, target: int, check: bool = True) -> Frame:
        """Step forward or back until the stepper stands at ``target``; with ``check`` off, a finished run's frame
        comes before its agreement check (``checking``), which the next ``frame`` runs."""
        if self._stale:
            return self.open(target)
        stepper = self.stepper
        assert stepper is not None
        target = max(0, target)
        try:
            while stepper.position > target:
                stepper.back()
            stepper.run_to(target)
            return self.frame(check)
        except BaseException:
            self._stale = True
            raise

    def frame(self, check: bool = True) -> Frame:
        """The screen's data for the stepper's current step (a finished run's checked, unless ``check`` is off)."""
        stepper = self.stepper
        assert stepper is not None
        step = stepper.current
        ran = stepper.steps.kept(stepper.position)
        unchecked = step.done and (ran is None or self._checked is not ran)
        checking = unchecked and not check
        if unchecked and check:
            self._agreement = stepper.verify()
            self._answer = answer_text(stepper.handle_answer()[1])
            self._checked = ran
            self._runs += 1
        if self._ids[0] is not self.held:
            self._ids = self.held, [job for job, _ in self.held]
        ids = self._ids[1]
        current = min(max(step.index - 1, 0), max(len(ids) - 1, 0))
        view = store_view.read(self.store.client, self.store.queue, ids, current, step.changed, rescored_ids(step),
                               self.store)
        done = step.done and not checking
        return self._played(Frame(step=step, wire=self.wire, held=self.held, fates=self.fates, view=view,
                                  agreement=self._agreement if done else None, answer=self._answer if done else "",
                                  run=self._runs if done else 0, checking=checking))

    def switch(self, wire: int) -> tuple[WireCompare, Frame]:
        """Compare both wires from the batch's start, then re-run the batch on ``wire`` to the same step."""
        stepper = self.stepper
        assert stepper is not None
        position = stepper.position
        stepper.home()
        from ..engine.fates.wire_compare import compare

        compared = compare(self.store, self.held, self.lesson.lease_ms)
        if wire == 6 and not self.store.native:
            return compared, self.goto(position)
        self._new_stepper(wire)
        return compared, self.goto(position)

    def run_fate(self, key: str) -> tuple[FateRun, Frame]:
        """Run the four verbs on one fate, then set the lesson batch up again and step it back to where it was."""
        position = self.stepper.position if self.stepper else 0
        from ..engine.fates.runs import run_fate

        ran = run_fate(self.store, key, self.lesson.lease_ms, self.lesson.claim_lease_ms)
        return ran, self.open(position)

    def apply(self, index: int, key: str) -> Frame:
        """Give member ``index`` the fate ``key`` and re-run the batch from the handle."""
        fate(key)  # KeyError for a fate there is not
        changed = list(self.fates)
        changed[index] = key
        self.fates = tuple(changed)
        return self.open(0)

    # -- the learner's moves: run mode, guard off, the reaper, predictions ------------------------------------

    def _mode_on(self, wire: int) -> str:
        """The stepper mode for the run mode and guard on ``wire``; a what-if refused there puts the guard back."""
        try:
            return choose(self.run_mode, self.guard_off, wire)
        except ModeRefused:
            self.guard_off = False
            return choose(self.run_mode, False, wire)

    def set_mode(self, run_mode: str, guard_off: bool) -> Frame:
        """Re-run the batch from its start in ``run_mode`` with the guard on or off, to the same step; raises
        ModeRefused (and changes nothing) where that mode does not run."""
        choose(run_mode, guard_off, self.wire)
        stepper = self.stepper
        assert stepper is not None
        position = stepper.position
        stepper.home()
        self.run_mode, self.guard_off = run_mode, guard_off
        self._new_stepper(self.wire)
        return self.goto(position)

    def reap(self) -> tuple[Event, Frame]:
        """Ask the reaper to reap the next member not yet checked (NothingToReap says why it cannot)."""
        stepper = self.stepper
        assert stepper is not None
        return stepper.reap_next(), self.frame()

    def predict(self, on: bool) -> Frame:
        """Turn predict mode on or off; the guesses made stay with their run."""
        self.predicting = on
        return self.frame()

    def guess(self, index: int, check: Check, target: int) -> Frame:
        """Record the guess for member ``index`` (a guess made stands), then step to ``target``."""
        stepper = self.stepper
        assert stepper is not None
        self.predictions.guess(stepper.run_id, stepper.current.members[index], check, stepper.position)
        return self.goto(target)

    def _played(self, frame: Frame) -> Frame:
        stepper = self.stepper
        assert stepper is not None
        step, run = frame.step, stepper.run_id
        asks = step.index if self.predicting and not step.done and step.index < len(step.members) else None
        if asks is not None and self.predictions.of(run, asks) is not None:
            asks = None
        played = Played(mode=stepper.mode, label=MODES[self.run_mode].label(len(self.held)),
                        race=stepper.race_events(), predicting=self.predicting, asks=asks,
                        judged=self.predictions.judge(run, step.members),
                        score=self.predictions.score(run, step.members), choices=choices(self.wire))
        return replace(frame, played=played)


def with_seq(frame: Frame, seq: int) -> Frame:
    """The frame tagged with the request it answers."""
    return replace(frame, seq=seq)
