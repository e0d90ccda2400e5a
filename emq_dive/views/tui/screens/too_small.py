"""The too-small screen: below the smallest size the dive's layout serves, one clear line instead of a partial table."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_SIZE = (80, 24)
"""The smallest terminal, in columns and rows, that the dive's panes are laid out for."""


def too_small(width: int, height: int) -> bool:
    """True when a ``width`` × ``height`` terminal is below MIN_SIZE."""
    return width < MIN_SIZE[0] or height < MIN_SIZE[1]


def message(width: int, height: int, lesson: str = "LESSON") -> str:
    """What the screen says at ``width`` × ``height`` for the dive of ``lesson``."""
    return (f"make the terminal at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (now {width}×{height})\n\n"
            "the dive's table and panes need that room to show every check and verdict; "
            "this goes away when the terminal is big enough · q quits\n\n"
            f"or quit and run the dive as lines of text, which works at any size: emq-dive {lesson} --plain")


def cover_if_too_small(app: App[Any], lesson: str) -> None:
    """Cover every screen with the too-small screen while ``app``'s terminal is below MIN_SIZE (once)."""
    width, height = app.size
    if too_small(width, height) and not any(isinstance(screen, TooSmall) for screen in app.screen_stack):
        app.push_screen(TooSmall(lesson))


class TooSmall(ModalScreen[None]):
    """Covers every screen while the terminal is below MIN_SIZE; dismisses itself once it is not."""

    DEFAULT_CSS: ClassVar[str] = """
    TooSmall { align: center middle; background: $background; }
    TooSmall > Static { width: 100%; height: auto; padding: 0 1; text-align: center; color: $text-warning; }
    """

    def __init__(self, lesson: str) -> None:
        super().__init__()
        self.lesson = lesson
        """The id of the lesson the dive runs, for the --plain command line the screen names."""

    def compose(self) -> ComposeResult:
        yield Static(message(*self.app.size, self.lesson), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        width, height = event.size
        if too_small(width, height):
            self.query_one(Static).update(message(width, height, self.lesson))
        elif self.is_current:
            self.dismiss()
