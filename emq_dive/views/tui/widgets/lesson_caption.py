"""The lesson's caption: one line naming the section on show, where the screen has no room for the lesson pane."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.widgets import Static


class LessonCaption(Static):
    """Says which lesson section follows the run while the lesson pane is folded away; l opens the pane."""

    DEFAULT_CSS: ClassVar[str] = """
    LessonCaption { height: auto; padding: 0 1; color: $text-secondary; display: none; }
    """

    def show(self, title: str, at: int, count: int) -> None:
        """Name section ``at`` of ``count``, titled ``title``."""
        content = Content(f"lesson {at}/{count} · {title} · l opens it")
        width = self.content_region.width
        # a new section is one repaint: the screen is laid out again only when the caption's height changes
        self.update(content, layout=bool(width) and len(content.wrap(width)) != self.content_region.height)
