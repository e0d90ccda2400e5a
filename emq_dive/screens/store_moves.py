"""The dive's store moves: each runs in a worker, one at a time inside ``store.io()``, and posts what it made."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from ..fates import FateRun, WireCompare
from ..heap import collector_paused
from ..sandbox import SandboxBatch
from ..session import Frame, Session, with_seq
from ..stepper import Check, Event, ModeRefused, NothingToReap

BIG_MOVE = 64
"""Steps in one move past which the move runs with the collector paused (End on a big batch, say)."""


class StoreMoves(Screen[None]):
    """A screen that owns the session and runs its moves off the UI thread; each result comes back as a message."""

    @dataclass
    class FrameReady(Message):
        """A worker finished a store move; ``frame`` is what the screen shows now."""

        frame: Frame

    @dataclass
    class Compared(Message):
        """The wire switch ran the batch on both wires."""

        compared: WireCompare
        frame: Frame

    @dataclass
    class FateRan(Message):
        """A fate's four verbs ran and the lesson batch was set up again."""

        run: FateRun
        frame: Frame

    @dataclass
    class Refused(Message):
        """A move the engine refused (a mode where it does not run, a reaper with nothing to reap): why, in words."""

        reason: str

    @dataclass
    class Reaped(Message):
        """The reaper was asked to race the holder; ``asked`` is its waiting move."""

        asked: Event
        frame: Frame

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.seq = 0

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    @work(thread=True, exclusive=True, group="step", exit_on_error=False)
    def _goto(self, target: int, seq: int) -> None:
        with self.session.store.io():
            if get_current_worker().is_cancelled:
                return
            stepper = self.session.stepper
            if stepper is not None and abs(min(target, stepper.count) - stepper.position) > BIG_MOVE:
                with collector_paused():
                    frame = self.session.goto(target)
            else:
                frame = self.session.goto(target)
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, group="store", exit_on_error=False)
    def _open(self, target: int, seq: int) -> None:
        with self.session.store.io(), collector_paused():
            frame = self.session.open(target)
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, group="store", exit_on_error=False)
    def _wait_early(self, early: Future[Frame], seq: int) -> None:
        frame = early.result()  # raises what the set-up raised, for the error view
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, group="store", exit_on_error=False)
    def _switch(self, wire: int, seq: int) -> None:
        with self.session.store.io(), collector_paused():
            compared, frame = self.session.switch(wire)
        self.post_message(self.Compared(compared, with_seq(frame, seq)))

    @work(thread=True, group="store", exit_on_error=False)
    def _fate(self, key: str, seq: int) -> None:
        with self.session.store.io(), collector_paused():
            run, frame = self.session.run_fate(key)
        self.post_message(self.FateRan(run, with_seq(frame, seq)))

    @work(thread=True, group="store", exit_on_error=False)
    def _apply(self, index: int, key: str, seq: int) -> None:
        with self.session.store.io(), collector_paused():
            frame = self.session.apply(index, key)
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, exclusive=True, group="mode", exit_on_error=False)
    def _set_mode(self, run_mode: str, guard_off: bool, seq: int) -> None:
        try:
            with self.session.store.io(), collector_paused():
                frame = self.session.set_mode(run_mode, guard_off)
        except ModeRefused as refused:
            self.post_message(self.Refused(str(refused)))
            return
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, exclusive=True, group="reap", exit_on_error=False)
    def _reap(self, seq: int) -> None:
        try:
            with self.session.store.io():
                asked, frame = self.session.reap()
        except NothingToReap as nothing:
            self.post_message(self.Refused(str(nothing)))
            return
        self.post_message(self.Reaped(asked, with_seq(frame, seq)))

    @work(thread=True, exclusive=True, group="predict", exit_on_error=False)
    def _predict(self, on: bool, seq: int) -> None:
        with self.session.store.io():
            frame = self.session.predict(on)
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, exclusive=True, group="step", exit_on_error=False)
    def _guess(self, index: int, check: Check, target: int, seq: int) -> None:
        with self.session.store.io():
            frame = self.session.guess(index, check, target)
        self.post_message(self.FrameReady(with_seq(frame, seq)))

    @work(thread=True, exclusive=True, group="store", exit_on_error=False)
    def _restart(self, batch: SandboxBatch, seq: int) -> None:
        with self.session.store.io(), collector_paused():
            frame = self.session.restart(batch)
        self.post_message(self.FrameReady(with_seq(frame, seq)))
