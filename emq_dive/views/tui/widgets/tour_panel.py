"""The tour's panel: one slide's heading, its text read from the run on screen, and the keys that move on."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Static


class TourPanel(Static):
    """Docked at the bottom of the screen, or at its top (``-top``) when the pane a slide marks is down there."""

    DEFAULT_CSS: ClassVar[str] = """
    TourPanel {
        dock: bottom;
        width: 100%;
        height: auto;
        max-height: 9;
        border: round $accent;
        border-title-color: $accent;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    TourPanel.-top { dock: top; }
    """

    def show(self, heading: str, text: str, hint: str) -> None:
        """Show one slide: ``heading`` in the border, ``text`` inside, the keys (``hint``) under it."""
        self.border_title = heading
        self.border_subtitle = hint
        self.update(text)

    @property
    def text(self) -> str:
        """The slide text on show."""
        return str(self.content)
