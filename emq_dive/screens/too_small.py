"""The too-small screen: below the smallest size the dive's layout serves, one clear line instead of a partial table."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_SIZE = (80, 24)
"""The smallest terminal, in columns and rows, that the dive's panes are laid out for."""


def too_small(width: int, height: int) -> bool:
    """True when a ``width`` × ``height`` terminal is below MIN_SIZE."""
    return width < MIN_SIZE[0] or height < MIN_SIZE[1]


def message(width: int, height: int) -> str:
    """What the screen says at ``width`` × ``height``."""
    return (f"make the terminal at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (now {width}×{height})\n\n"
            "the dive's table and panes need that room to show every check and verdict; "
            "this goes away when the terminal is big enough · q quits")


class TooSmall(ModalScreen[None]):
    """Covers every screen while the terminal is below MIN_SIZE; dismisses itself once it is not."""

    DEFAULT_CSS: ClassVar[str] = """
    TooSmall { align: center middle; background: $background; }
    TooSmall > Static { width: 100%; height: auto; padding: 0 1; text-align: center; color: $text-warning; }
    """

    def compose(self) -> ComposeResult:
        yield Static(message(*self.app.size), id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        width, height = event.size
        if too_small(width, height):
            self.query_one(Static).update(message(width, height))
        elif self.is_current:
            self.dismiss()
