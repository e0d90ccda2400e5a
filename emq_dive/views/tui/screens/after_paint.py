"""Running the collector's young pass just after a shown frame is painted and written, while the learner reads it."""

from __future__ import annotations

from textual.message import Message
from textual.messages import Update
from textual.screen import Screen
from textual.timer import Timer

from .. import heap

WRITTEN_AFTER = 1 / 60
"""Seconds from a paint to its pass: Textual's writer thread sends the paint's bytes to the terminal meanwhile (a
pass at once held the interpreter, and so those bytes, for up to its whole length: 0.3 to 2 ms)."""


class AfterPaint:
    """Books ``heap.tidy`` for a moment after the paint of each frame a screen shows.

    Booked as the frame lands, it ran at once, before the paint: the screen is clean until its panes ask for one.
    """

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self.due = False
        """True from a shown frame until its first paint is asked for."""
        self.listening = False
        self.timer: Timer | None = None
        """The pass booked for after the last paint, until it runs."""

    def frame_shown(self) -> None:
        """The screen took a frame: ``heap.tidy`` runs a moment after the next paint its panes ask for."""
        if not self.listening:  # the screen is running by its first frame, as a subscription needs
            self.listening = True
            self.screen.message_signal.subscribe(self.screen, self._seen, immediate=True)
        self._cancel()  # the step before's pass waits for this frame's paint too
        self.due = True

    def _seen(self, message: Message) -> None:
        if self.due and isinstance(message, Update):
            self.due = False
            self.screen.call_after_refresh(self._painted)

    def _painted(self) -> None:
        self._cancel()  # one pass, after the latest paint
        self.timer = self.screen.set_timer(WRITTEN_AFTER, self._tidy, name="collector pass")

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def _tidy(self) -> None:
        self.timer = None
        heap.tidy()
