"""Running the collector's young pass just after a shown frame is painted, while the learner reads it."""

from __future__ import annotations

from textual.message import Message
from textual.messages import Update
from textual.screen import Screen

from .. import heap


class AfterPaint:
    """Books ``heap.tidy`` for just after the paint of each frame a screen shows.

    Booked as the frame lands, it ran at once, before the paint: the screen is clean until its panes ask for one.
    """

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self.due = False
        """True from a shown frame until its first paint is asked for."""
        self.listening = False

    def frame_shown(self) -> None:
        """The screen took a frame: the next paint its panes ask for runs ``heap.tidy`` after it."""
        if not self.listening:  # the screen is running by its first frame, as a subscription needs
            self.listening = True
            self.screen.message_signal.subscribe(self.screen, self._seen, immediate=True)
        self.due = True

    def _seen(self, message: Message) -> None:
        if self.due and isinstance(message, Update):
            self.due = False
            self.screen.call_after_refresh(heap.tidy)
