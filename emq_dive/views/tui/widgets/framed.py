"""Line API panes whose content rows are set between the side cells Textual draws for them, each finished row kept
until the pane repaints it: a step that changes a few rows pays for those rows' text, not for Textual's style pass
over each row of the pane (about 60 µs a row)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget


@dataclass(frozen=True)
class Sides:
    """What a pane draws around its content rows, as Textual drew it for one of them."""

    size: Size
    top: int
    """Rows above the content (border and padding), drawn by Textual."""
    bottom: int
    left: Strip
    """The cells left of a content row (border and padding), filtered as Textual filters the row."""
    right: Strip
    inner: RichStyle
    """The content's background, which a row narrower than the content is padded with."""
    filters: tuple[LineFilter, ...]
    background: Color


def plain_frame(widget: Widget) -> bool:
    """True when Textual's pass over a content row only adds the side cells and the app's filters: no tint,
    opacity, hatch or outline reaches into the content."""
    styles = widget.styles
    return (not styles.tint.a and styles.text_opacity == 1.0 and widget.opacity == 1.0
            and not (styles.has_rule("hatch") and styles.hatch != "none")
            and not any(edge for edge, _ in styles.outline))


class FramedLines:
    """Draws ``widget``'s lines, each kept until ``forget`` drops it: the border and padding rows by Textual, each
    content row as its side cells around the pane's own strip."""

    def __init__(self, widget: Widget, textual: Callable[[Region], list[Strip]]) -> None:
        self.widget = widget
        self.textual = textual
        """Textual's own ``render_lines`` for the widget (what draws the border, and everything when not plain)."""
        self.sides: Sides | None = None
        self.lines: dict[int, Strip] = {}
        """Each finished row, by its row in the widget."""

    def forget(self, *regions: Region) -> None:
        """Drop the rows ``regions`` (content coordinates) cover, or every row when none is given."""
        sides = self.sides
        if not regions or sides is None:
            self.lines.clear()
            return
        for region in regions:
            for y in region.line_range:
                self.lines.pop(y + sides.top, None)

    def restyle(self) -> None:
        """Drop every row and the side cells (the widget's styles changed)."""
        self.sides = None
        self.lines.clear()

    def render_lines(self, crop: Region, content: Callable[[int], Strip]) -> list[Strip]:
        """The lines of ``crop``; ``content(y)`` draws content row ``y`` (one narrower than the content is padded
        as Textual pads it)."""
        sides = self._sides()
        if sides is None:
            return self.textual(crop)
        width, height = sides.size
        first, last = sides.top, height - sides.bottom
        inner = width - sides.left.cell_length - sides.right.cell_length
        lines = self.lines
        strips: list[Strip] = []
        y, end = crop.y, crop.bottom
        while y < end:
            strip = lines.get(y)
            if strip is None and first <= y < last:
                strip = content(y - first)
                if strip.cell_length != inner:  # fitted as Textual fits it, in the content's background
                    strip = strip.adjust_cell_length(inner, sides.inner)
                for line_filter in sides.filters:
                    strip = strip.apply_filter(line_filter, sides.background)
                strip = lines[y] = Strip.join((sides.left, strip, sides.right))
            if strip is None:  # border or padding rows: Textual draws the run of them not kept
                stop = y + 1
                while stop < end and not first <= stop < last and stop not in lines:
                    stop += 1
                for row in self.textual(Region(0, y, width, stop - y)):
                    strips.append(row)
                    lines[y] = row
                    y += 1
                continue
            strips.append(strip)
            y += 1
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    def _sides(self) -> Sides | None:
        widget = self.widget
        size = widget.outer_size
        sides = self.sides
        if sides is not None and sides.size == size:
            return sides
        self.lines.clear()
        self.sides = None
        gutter = widget.styles.gutter
        if not size or gutter.top + gutter.bottom >= size.height or not plain_frame(widget):
            return None
        row = self.textual(Region(0, gutter.top, size.width, 1))[0]
        base, background = widget.background_colors
        self.sides = Sides(size, gutter.top, gutter.bottom, row.crop(0, gutter.left),
                           row.crop(size.width - gutter.right, size.width),
                           Style(background=base + background).rich_style, tuple(widget.get_line_filters()),
                           background)
        return self.sides


class Framed(Widget):
    """A Line API widget drawn through ``FramedLines``: its ``render_line`` rows between the side cells, and all
    of it by Textual while ``framed_line`` says so (a text selection, a widget with nothing to draw yet)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._framed = FramedLines(self, super().render_lines)

    def framed_line(self) -> Callable[[int], Strip] | None:
        """What draws content row ``y`` for this paint, or None for Textual to draw every row."""
        return self.render_line if self.text_selection is None else None

    def render_lines(self, crop: Region) -> list[Strip]:
        line = self.framed_line()
        if line is None:
            self._framed.forget()
            return super().render_lines(crop)
        return self._framed.render_lines(crop, line)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if repaint:
            self._framed.forget(*regions)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._framed.restyle()
