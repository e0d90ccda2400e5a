"""The stepping column: the notes, the batch and the panes below them, which scrolls where the notes grow past
the screen's height."""

from __future__ import annotations

from typing import ClassVar

from textual.containers import VerticalScroll

from .pushed_away import PushedAway

PANE_NAMES = {"RaceTimeline": "race", "BatchTable": "batch", "CodePane": "code", "LocalsPane": "locals",
              "WirePane": "wire", "StorePane": "store"}
"""The panes the column names when they are out of sight, by their widget's class."""


class StepColumn(VerticalScroll, can_focus=False):
    """Holds the stepping panes; when the notes above push panes out of sight, its PushedAway says which."""

    DEFAULT_CSS: ClassVar[str] = """
    StepColumn { scrollbar-size-vertical: 1; }
    """

    def out_of_sight(self) -> list[str]:
        """The names of the panes whose bottom border is below the column's window."""
        bottom = self.scrollable_content_region.bottom
        names = []
        for widget in self.query("*"):
            name = PANE_NAMES.get(type(widget).__name__)
            if name and widget.display and widget.region and widget.region.bottom > bottom:
                names.append(name)
        return names

    def tell(self) -> None:
        """Update the line that names the panes out of sight."""
        for line in self.query(PushedAway):
            line.say(self.out_of_sight())

    def on_resize(self) -> None:
        self.call_after_refresh(self.tell)

    def watch_virtual_size(self) -> None:  # the notes grew or shrank: the panes below moved
        self.call_after_refresh(self.tell)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.call_after_refresh(self.tell)
