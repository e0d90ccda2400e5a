"""A pane of laid-out lines that scrolls itself: a thumb in its last column, the keys once focused, the wheel."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.strip import Strip

from ....present.keymap import Where
from .key_bindings import bindings
from .rows import Rows
from .word_wrap import word_wrap


def hanging(text: Text, width: int, console: Console, indent: int = 2) -> list[Text]:
    """``text`` wrapped at word boundaries to ``width`` cells, each line after the first indented by ``indent``."""
    width = max(indent + 4, width)
    if text.cell_len <= width:
        return [text]
    lines = word_wrap(text, width)
    first = lines[0]
    rest = text[len(first.plain):]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip(" ")):]
    out = [first]
    for line in word_wrap(rest, width - indent):
        out.append(Text(" " * indent) + line)
    return out

def thumb(top: int, height: int, total: int) -> tuple[int, int]:
    """The rows ``[first, last)`` a scroll thumb covers in a ``height``-row window from line ``top`` of ``total``
    lines; ``(0, 0)`` when everything fits, so there is no thumb."""
    if total <= height or height <= 0:
        return 0, 0
    size = max(1, height * height // total)
    first = min(height - size, round(top * (height - size) / (total - height)))
    return first, first + size


SCROLL_KEYS: list[BindingType] = bindings(Where.PANE)
"""The keys of a pane that scrolls itself: a line, or most of a page, at a time."""


class ScrolledLines(Rows, can_focus=True):
    """Shows ``lines`` from ``top``; the content fits ``text_width`` cells and the last column holds the thumb."""

    DEFAULT_CSS: ClassVar[str] = """
    ScrolledLines { padding: 0 0 0 1; }
    ScrolledLines:focus { border: round $accent; }
    ScrolledLines > .scrolled-lines--thumb { background: $scrollbar; }
    ScrolledLines > .scrolled-lines--track { background: $scrollbar-background; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"scrolled-lines--thumb", "scrolled-lines--track"}
    BINDINGS: ClassVar[list[BindingType]] = SCROLL_KEYS
    GAP = 1
    """Columns between the text and the thumb."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.lines: list[Text] = []
        self.top = 0
        self._hint = ""
        self._laid_at: Size | None = None
        self._made: dict[tuple[object, ...], tuple[Text | None, Text]] = {}
        """The rows ``window_rows`` made last, by their line, width and thumb cell: a step that keeps a line keeps
        its row (the same object, which ``paint_rows`` passes over at once)."""

    @property
    def text_width(self) -> int:
        """Cells per line of text: the content width less the gap and the thumb."""
        return max(8, self.content_size.width - self.GAP - 1) if self.content_size.width else 40

    @property
    def hidden_above(self) -> int:
        """Lines above the window."""
        return self.top

    @property
    def hidden_below(self) -> int:
        """Lines below the window."""
        return max(0, len(self.lines) - self.top - self.content_size.height)

    def full_text(self) -> str:
        """Everything the pane holds, scrolled out of sight or not, as plain text."""
        return "\n".join(line.plain for line in self.lines)

    def show_lines(self, lines: list[Text], *, to_end: bool) -> None:
        """Show ``lines``, scrolled to their end (the newest line at the bottom edge) or kept where they were."""
        self.lines = lines
        self.top = self._valid(len(lines) if to_end else self.top)
        self._scrolled()

    def _valid(self, top: int) -> int:
        return max(0, min(top, len(self.lines) - max(1, self.content_size.height)))

    def scroll_hint(self) -> str:
        """What the border says while lines are out of sight: how many, and how to reach them."""
        above, below = self.hidden_above, self.hidden_below
        if not above and not below:
            return ""
        more = " ".join(part for part in (f"↑{above}" if above else "", f"↓{below}" if below else "") if part)
        return f"{more} more · {'↑↓ scroll' if self.has_focus else 'tab, ↑↓'}"

    def _scrolled(self) -> None:
        hint = self.scroll_hint()
        if hint != self._hint:  # a border title repaints the whole pane: set it only on a change
            self._hint = hint
            self.hint_changed(hint)
        self.paint_rows(self.window_rows())

    def hint_changed(self, hint: str) -> None:
        """Show ``hint`` (the pane's border subtitle unless a subclass puts it elsewhere)."""
        self.set_border(subtitle=hint)

    def on_focus(self) -> None:
        self._hint = ""
        self._scrolled()

    def on_blur(self) -> None:
        self._hint = ""
        self._scrolled()

    def lay_out(self) -> None:
        """Fit the lines to the pane's size; the panes that wrap or size their columns to it do more."""
        self.top = self._valid(self.top)

    def on_resize(self) -> None:
        self._fit()

    def render_lines(self, crop: Region) -> list[Strip]:
        # a frame shown before the first layout was laid out at no size: the first paint lays it out at its own
        self._fit()
        return super().render_lines(crop)

    def _fit(self) -> None:
        if self.content_size != self._laid_at:
            self._laid_at = self.content_size
            self.lay_out()

    def action_scroll(self, by: float) -> None:
        """Scroll by ``by`` lines, or by that share of a page when it is a fraction."""
        step = int(by * self.content_size.height) if isinstance(by, float) else int(by)
        self.top = self._valid(self.top + step)
        self._scrolled()

    def action_scroll_home(self) -> None:
        """Scroll to the first line (Home, while the pane has the focus)."""
        self.action_scroll(-len(self.lines))

    def action_scroll_end(self) -> None:
        """Scroll to the last line (End, while the pane has the focus)."""
        self.action_scroll(len(self.lines))

    def action_leave(self) -> None:
        """Give the focus back to the screen: the arrows scroll the lesson again, Home and End step the run."""
        self.screen.set_focus(None)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.action_scroll(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.action_scroll(-3)

    def _thumb(self) -> tuple[int, int]:
        return thumb(self.top, self.content_size.height, len(self.lines))

    def window_rows(self) -> list[Text]:
        """The rows on show, each a line padded to the text width, with the thumb in the last column."""
        width, height = self.text_width, max(1, self.content_size.height)
        first, last = self._thumb()
        thumb = self.role_style("scrolled-lines--thumb")
        track = self.role_style("scrolled-lines--track")
        rows = []
        made, self._made = self._made, {}
        for y in range(height):
            index = self.top + y
            source = self.lines[index] if index < len(self.lines) else None
            bar = (thumb if first <= y < last else track) if last else None
            key = (id(source), width, bar)
            kept = made.get(key)
            if kept is not None and kept[0] is source:  # the same line in the same cells: the row drawn before
                line = kept[1]
            else:
                line = source.copy() if source is not None else Text()
                line.no_wrap, line.overflow, line.end = True, "crop", ""
                line.truncate(width + self.GAP, pad=True)
                if bar is not None:
                    line.append(" ", style=bar)
            self._made[key] = (source, line)
            rows.append(line)
        return rows

    def render(self) -> Text:
        return Text("\n", no_wrap=True, overflow="crop", end="").join(self.window_rows())
