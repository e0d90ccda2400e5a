"""A note above the batch that shows only while it has lines to say, and lays the screen out only when it must."""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from rich.text import Text
from textual.geometry import Size

from .rows import Rows
from .word_wrap import word_wrap


class Shown(Rows):
    """Draws the ``(line, role)`` pairs ``lines`` gives, each role a component class; hidden while there are none.

    A step that changes only the words repaints the rows that changed. The widget's height only grows while
    ``shape`` stays the same (a shorter note leaves a blank row), so the screen is laid out again only when the
    widget appears, hides, grows, or changes shape: a layout pass costs more than the paint, and the panes below
    do not jump.
    """

    ROLES: ClassVar[str] = ""
    """The prefix of the component classes that style each role (``mode-notes`` → ``mode-notes--bad``)."""
    WRAP: ClassVar[bool] = True
    """True when long lines wrap (the height then follows the words); False cuts them with an ellipsis."""
    CUT: ClassVar[frozenset[str]] = frozenset()
    """Roles whose lines are cut to one row with an ellipsis even where the others wrap."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._lines: list[tuple[str, str]] = []
        self._height = 0
        self._width = 0
        self._shape: Hashable = None

    def lines(self) -> list[tuple[str, str]]:
        """What the widget says for the frame it holds, line by line, each with its role."""
        raise NotImplementedError

    def shape(self) -> Hashable:
        """What the widget's height is kept for: a new shape lets it shrink (the run mode, say)."""
        return None

    def laid_rows(self, lines: list[tuple[str, str]], width: int) -> list[Text]:
        """``lines`` as the rows they take ``width`` cells wide (none at no width)."""
        if width <= 0:
            return []
        rows: list[Text] = []
        for line, role in lines:
            text = Text(line, style=self.role_style(f"{self.ROLES}--{role}"), end="")
            if self.WRAP and role not in self.CUT:
                rows += word_wrap(text, width)
            else:
                text.truncate(width, overflow="ellipsis")
                rows.append(text)
        return rows

    def full_text(self) -> str:
        """Every line the widget says, unwrapped and uncut, as plain text."""
        return "\n".join(line for line, _ in self._lines)

    def render(self) -> Text:
        return Text("\n", end="").join(self.laid_rows(self._lines, self.content_region.width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(len(self.laid_rows(self._lines, width)), self._height)

    def on_resize(self) -> None:
        width = self.content_region.width
        if width != self._width:  # the kept height was for the old width
            self._width, self._height = width, 0
            self.forget_rows()
            self._paint(self._lines)

    def redraw(self) -> None:
        """Take the lines for the frame held now; repaint the rows that changed, lay out when the height must."""
        lines, shape = self.lines(), self.shape()
        if lines == self._lines and shape == self._shape:
            return
        if shape != self._shape:
            self._height = 0
        self._lines, self._shape = lines, shape
        self.display = bool(lines)
        self._paint(lines)

    def _paint(self, lines: list[tuple[str, str]]) -> None:
        rows = self.laid_rows(lines, self.content_region.width)
        height = max(self._height, len(rows))
        if height != self._height or not rows:
            self._height = height
            self.forget_rows()
            self.refresh(layout=True)  # hidden, or a new height: drawn whole after the layout
            return
        self.paint_rows(rows + [Text()] * (height - len(rows)))
