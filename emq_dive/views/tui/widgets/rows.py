"""Panes drawn as one Text per row, which repaint only the rows a step changed."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Self

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip

from .framed import Framed


def text_strip(text: Text, width: int, base: Style, console: Console) -> Strip:
    """One row of ``text`` as a Strip of ``width`` cells: its own style and its spans over the widget's ``base``
    style, cut or padded to fit (the padding in ``base``).

    The row is plain styled text, so its segments are cut straight from its spans: Rich's general render (a style
    stack per span edge) and Textual's Content (markup, links, alignment) would each cost several times as much.
    """
    plain = text.plain
    own = text.style
    root = base + _style(own, console) if own else base
    spans = text.spans
    segments: list[Segment] = []
    if not spans:
        if plain:
            segments.append(Segment(plain, root))
    else:
        end = len(plain)
        styles = [(span.start, span.end, _style(span.style, console)) for span in spans]
        cuts = sorted({0, end, *(min(s, end) for s, _, _ in styles), *(min(e, end) for _, e, _ in styles)})
        for a, b in itertools.pairwise(cuts):
            style = root
            for start, stop, over in styles:  # in the order they were added: a later span is drawn over
                if start <= a and b <= stop:
                    style = style + over
            segments.append(Segment(plain[a:b], style))
    length = cell_len(plain)
    if length < width:
        segments.append(Segment(" " * (width - length), base))
        return Strip(segments, width)
    strip = Strip(segments, length)
    return strip if length == width else strip.crop(0, width)


def _style(style: str | Style, console: Console) -> Style:
    return console.get_style(style, default=Style.null()) if isinstance(style, str) else style


def changed_cells(a: Text, b: Text, width: int) -> tuple[int, int] | None:
    """The columns ``[x1, x2)`` of a row ``width`` cells wide where ``a`` and ``b`` draw differently, or None when
    they draw the same cells; a terminal is sent only those columns, not the row."""
    if a is b:
        return None
    if a.style != b.style:
        return (0, width)
    pa, pb = a.plain, b.plain
    if pa == pb and a.spans == b.spans:  # the common case, a row a step left as it was: no sets built
        return None
    only_a, only_b = set(a.spans) - set(b.spans), set(b.spans) - set(a.spans)
    if pa == pb and not only_a and not only_b:
        return None
    x1, x2 = width, 0
    if pa != pb:
        lo, short = 0, min(len(pa), len(pb))
        while lo < short and pa[lo] == pb[lo]:
            lo += 1
        hi_a, hi_b = len(pa), len(pb)
        if hi_a == hi_b and cell_len(pa) == cell_len(pb):  # an unchanged tail stays in the same columns
            while hi_a > lo and pa[hi_a - 1] == pb[hi_a - 1]:
                hi_a -= 1
            hi_b = hi_a
        x1, x2 = cell_len(pb[:lo]), max(cell_len(pa[:hi_a]), cell_len(pb[:hi_b]))
    for spans, plain in ((only_a, pa), (only_b, pb)):
        for span in spans:
            x1, x2 = min(x1, cell_len(plain[:span.start])), max(x2, cell_len(plain[:span.end]))
    x2 = min(x2, width)
    return (x1, x2) if x1 < x2 else None


class Rows(Framed):
    """A widget whose content is ``rows``, one Text per row; ``paint_rows`` repaints only the rows that changed.

    Each row is drawn on its own (the Line API), so a step that changes two rows of a pane costs two rows'
    drawing and composing, not the pane's, and the terminal is sent only their changed columns; a new number of
    rows or a new size repaints it all.
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows: list[Text] | None = None
        self._rows_at = Size(0, 0)
        self._role_styles: dict[str, Style] = {}
        self._border_only = False
        self._border_set: tuple[str | None, str | None] | None = None
        """The border's title and subtitle as ``set_border`` last set them (None until its first call)."""

    def role_style(self, name: str) -> Style:
        """A component class's Rich style, looked up once until the widget's styles change (a theme, focus)."""
        style = self._role_styles.get(name)
        if style is None:
            style = self._role_styles[name] = self.get_component_rich_style(name)
        return style

    def paint_rows(self, rows: list[Text]) -> None:
        """Show ``rows``, repainting the columns of each that differ from the row on show."""
        old, self._rows = self._rows, rows
        size, old_size = self.content_size, self._rows_at
        self._rows_at = size
        if old is None or len(old) != len(rows) or size != old_size or not size:
            self.refresh()
            return
        changed = []
        for y, (a, b) in enumerate(zip(old, rows, strict=True)):
            if cells := changed_cells(a, b, size.width):
                changed.append(Region(cells[0], y, cells[1] - cells[0], 1))
        if changed:
            self.refresh(*changed)

    def set_border(self, *, title: str | None = None, subtitle: str | None = None) -> None:
        """Change the border's title or subtitle, repainting only the border row it is drawn on (Textual's own
        setter repaints the whole pane, which on a step would send every row of it to the terminal again)."""
        rows: list[tuple[int, int]] = []  # each border row to repaint, with the cells from its left that change
        width = self.outer_size.width
        if self._border_set is None:  # Textual's getters rebuild the markup on every read: read once, kept after
            self._border_set = (self.border_title, self.border_subtitle)
        old, old_subtitle = self._border_set
        if (title is None or title == old) and (subtitle is None or subtitle == old_subtitle):
            return
        self._border_only = True
        try:
            if title is not None and title != old:
                self.border_title = title
                # a title on the left changes only the cells up to its end ("╭─ title ─"), the old one's or its own
                left = self.styles.border_title_align == "left" and old is not None
                rows.append((0, min(width, cell_len(max(old or "", title, key=cell_len)) + 5) if left else width))
            if subtitle is not None and subtitle != old_subtitle:
                self.border_subtitle = subtitle
                rows.append((self.outer_size.height - 1, width))
        finally:
            self._border_only = False
            self._border_set = (old if title is None else title, old_subtitle if subtitle is None else subtitle)
        offset = self.content_offset
        for y, cells in rows:
            super().refresh(Region(-offset.x, y - offset.y, cells, 1))

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if self._border_only:  # set_border repaints the border's row itself
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._role_styles.clear()
        self.forget_rows()  # drawn from render() until the next rows come, in the new colours

    def forget_rows(self) -> None:
        """Drop the rows on show (a new size or theme), so the next ``paint_rows`` repaints everything."""
        self._rows = None

    def framed_line(self) -> Callable[[int], Strip] | None:
        rows = self._rows
        if rows is None or self.text_selection is not None:
            return None  # drawn from render(), which selection needs
        # the content's width from the widget's own size: ``content_size`` asks the screen for the region
        width = self.outer_size.width - self.styles.gutter.width
        base, console = self.visual_style.rich_style, self.app.console

        def line(y: int) -> Strip:
            return text_strip(rows[y], width, base, console) if y < len(rows) else Strip.blank(width, base)

        return line

    def render_line(self, y: int) -> Strip:
        line = self.framed_line()
        return super().render_line(y) if line is None else line(y)
