"""What the screen showed, in order, for a transcript; light enough to load with the dive's first frame."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ...present.session import Frame, Session

if TYPE_CHECKING:  # the fates', the console's and the Markdown writer's modules load when they are first used
    from ...engine.fates import FateRun, WireCompare
    from ...present.console import Outcome
    from .transcript import Entry


class Recorder:
    """Collects what the screen shows, in order, so ``x`` can write the run so far; reads no store."""

    def __init__(self, title: str, backend: str | Callable[[], str]) -> None:
        self.title = title
        self._backend = backend
        self._entries: list[Entry] = []
        self._shown: Entry | None = None
        """The newest entry that is not a console reply: a step shown twice in a row is kept once."""

    @property
    def backend(self) -> str:
        """The store's description as it reads now (a store starting behind the app names its server once up)."""
        return self._backend if isinstance(self._backend, str) else self._backend()

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Everything recorded so far, oldest first."""
        return tuple(self._entries)

    def frame(self, frame: Frame) -> None:
        """Record a frame the screen shows; the same step shown twice in a row is kept once (a finished run's
        frame shown before its check gives way to the checked one)."""
        last = self._shown
        if isinstance(last, Frame) and last.run_key == frame.run_key and last.step.index == frame.step.index \
                and last.step.calls == frame.step.calls:
            if last.checking and not frame.checking:
                self._entries[-1] = self._shown = frame
                return
            if frame.checking or (last.agreement is None) == (frame.agreement is None):
                return
        self._entries.append(frame)  # its members and failed are views; a rewind has them copy what they show
        self._shown = frame

    def compared(self, compared: WireCompare) -> None:
        """Record a wire switch's comparison of both twins."""
        self._entries.append(compared)
        self._shown = compared

    def fate_ran(self, run: FateRun) -> None:
        """Record a fate's four verbs."""
        self._entries.append(run)
        self._shown = run

    def console(self, outcome: Outcome) -> None:
        """Record a console line the store answered (a refusal or a queued line sent nothing, so is not kept)."""
        from ...present.console import Replied
        from ...present.console_block import Executed

        if isinstance(outcome, (Replied, Executed)):
            self._entries.append(outcome)

    def markdown(self) -> str:
        """The run so far as Markdown."""
        from .transcript import markdown

        return markdown(self._entries, self.title, self.backend)

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the run so far to ``path``; return where it went."""
        from .transcript import write

        return write(self._entries, path, self.title, self.backend)


def record_run(session: Session, recorder: Recorder, start: int = 0) -> Frame:
    """Set the session's batch up, step it from ``start`` to the end (its agreement check too), recording each frame."""
    with session.store.io():
        frame = session.open(start)
        recorder.frame(frame)
        while not frame.step.done:
            frame = session.goto(frame.step.index + 1)
            recorder.frame(frame)
    return frame
