"""The dive's store moves: each runs in a worker, one at a time inside ``store.io()``, and only posts what it made."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import get_current_worker

from ....course.sandbox import SandboxBatch
from ....engine.stepper import Check, ModeRefused, NothingToReap
from ....engine.stepper.modes import RUN_MODES
from ....present.session import Frame, Session, with_seq
from ..heap import collector_paused
from .dive_messages import Compared, FateRan, FrameReady, Reaped, Refused

BIG_MOVE = 64
"""Steps in one move past which the move runs with the collector paused (End on a big batch, say)."""
CHECK_AFTER = 1_000
"""Members from which a run that ends is shown before its agreement check, which reads the whole queue (about
45 µs a member); a smaller batch's check is quicker than a second paint."""


class StoreMoves:
    """Runs the session's moves off the UI thread on ``host``'s workers; each result comes back to it as a message.

    Each move is numbered; ``seq`` is the newest, so the host can tell the frame it asked for last from an older one.
    """

    def __init__(self, session: Session, host: DOMNode) -> None:
        self.session = session
        self.host = host
        self.seq = 0

    def adopt(self, frame: Frame) -> Frame:
        """``frame``, made before the host asked for it (the app's early set-up), numbered as the newest move."""
        self.seq += 1
        return with_seq(frame, self.seq)

    def _run(self, work: Callable[[int], Message | None], group: str, exclusive: bool = False) -> None:
        """Number the move, then run ``work`` on a thread and post the message it returns."""
        self.seq += 1
        seq = self.seq

        def run() -> None:
            message = work(seq)
            if message is not None:
                self.host.post_message(message)

        self.host.run_worker(run, thread=True, group=group, exclusive=exclusive, exit_on_error=False)

    def _held(self, move: Callable[[], Frame], pause: Callable[[], bool] = lambda: True
              ) -> Callable[[int], Message | None]:
        """A move that runs inside the store's lock (with the collector paused when ``pause`` says so there) and
        posts its frame; a move a newer one cancelled while it waited for the lock does nothing."""
        def work(seq: int) -> Message | None:
            with self.session.store.io():
                if get_current_worker().is_cancelled:
                    return None
                if pause():
                    with collector_paused():
                        return FrameReady(with_seq(move(), seq))
                return FrameReady(with_seq(move(), seq))
        return work

    def goto(self, target: int) -> None:
        """Step to ``target``, back or forward; on a batch of CHECK_AFTER members or more, a run that ends there is
        shown before its agreement check, whose frame follows."""
        def big() -> bool:
            stepper = self.session.stepper
            return stepper is not None and abs(min(target, stepper.count) - stepper.position) > BIG_MOVE

        def work(seq: int) -> Message | None:
            def move() -> Frame:
                frame = self.session.goto(target, check=len(self.session.held) < CHECK_AFTER)
                if frame.checking:
                    self.host.post_message(FrameReady(with_seq(frame, seq)))
                    return self.session.frame()
                return frame
            return self._held(move, big)(seq)
        self._run(work, "step", exclusive=True)

    def open(self, target: int) -> None:
        """Set the batch up afresh from its fates and step to ``target``."""
        self._run(self._held(lambda: self.session.open(target)), "store")

    def wait_early(self, early: Future[Frame]) -> None:
        """Wait for the set-up the app began before the screen mounted."""
        self._run(lambda seq: FrameReady(with_seq(early.result(), seq)), "store")  # raises what the set-up raised

    def switch(self, wire: int) -> None:
        """Run the batch on both wires, then carry on on ``wire``."""
        def work(seq: int) -> Message:
            with self.session.store.io(), collector_paused():
                compared, frame = self.session.switch(wire)
            return Compared(compared, with_seq(frame, seq))
        self._run(work, "store")

    def fate(self, key: str) -> None:
        """Run the four verbs on fate ``key``, then set the lesson batch up again."""
        def work(seq: int) -> Message:
            with self.session.store.io(), collector_paused():
                run, frame = self.session.run_fate(key)
            return FateRan(run, with_seq(frame, seq))
        self._run(work, "store")

    def apply(self, index: int, key: str) -> None:
        """Give member ``index`` the fate ``key`` and set the batch up again."""
        self._run(self._held(lambda: self.session.apply(index, key)), "store")

    def set_mode(self, run_mode: str, guard_off: bool) -> None:
        """Re-run the batch in ``run_mode``, its guard off or on, to the same step."""
        def work(seq: int) -> Message:
            try:
                with self.session.store.io(), collector_paused():
                    frame = self.session.set_mode(run_mode, guard_off)
            except ModeRefused as refused:
                return Refused(str(refused))
            return FrameReady(with_seq(frame, seq))
        self._run(work, "mode", exclusive=True)

    def what_if_on(self, wire: int) -> None:
        """Carry on on ``wire`` in the batch run mode with its guard off, to the same step: g's offer, confirmed on
        a wire the what-if does not run on."""
        def work(seq: int) -> Message:
            was = self.session.wire
            try:
                with self.session.store.io(), collector_paused():
                    self.session.wire = wire  # set_mode builds the new stepper on the session's wire
                    frame = self.session.set_mode(RUN_MODES[0], True)
            except ModeRefused as refused:
                self.session.wire = was  # refused before anything ran: the stepper is still on that wire
                return Refused(str(refused))
            return FrameReady(with_seq(frame, seq))
        self._run(work, "mode", exclusive=True)

    def reap(self) -> None:
        """Ask the reaper to race the holder for the next member not yet checked."""
        def work(seq: int) -> Message:
            try:
                with self.session.store.io():
                    asked, frame = self.session.reap()
            except NothingToReap as nothing:
                return Refused(str(nothing))
            return Reaped(asked, with_seq(frame, seq))
        self._run(work, "reap", exclusive=True)

    def predict(self, on: bool) -> None:
        """Turn predict mode on or off."""
        self._run(self._held(lambda: self.session.predict(on), lambda: False), "predict", exclusive=True)

    def guess(self, index: int, check: Check, target: int) -> None:
        """Record the guess ``check`` for member ``index``, then step to ``target``."""
        self._run(self._held(lambda: self.session.guess(index, check, target), lambda: False), "step", exclusive=True)

    def restart(self, batch: SandboxBatch) -> None:
        """Restart the dive from step 0 on the edited ``batch``."""
        self._run(self._held(lambda: self.session.restart(batch)), "store", exclusive=True)
