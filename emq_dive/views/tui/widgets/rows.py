"""Panes drawn as one Text per row, which repaint only the rows a step changed."""

from __future__ import annotations

from typing import Self

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


def text_strip(text: Text, width: int, base: Style, console: Console) -> Strip:
    """One row of ``text`` as a Strip of ``width`` cells: its own style over the widget's ``base`` style, cut or
    padded to fit (the padding in ``base``).

    Rich renders the row's spans straight to segments: a row the panes draw is plain styled text, so the
    general path through Textual's Content (markup, links, alignment) would cost several times as much.
    """
    own = text.style
    style = base + (console.get_style(own) if isinstance(own, str) else own) if own else base
    return Strip(list(Segment.apply_style(text.render(console, end=""), style))).crop_extend(0, width, base)


def same(a: Text, b: Text) -> bool:
    """Whether two rows draw the same cells: the same words, base style and styled spans."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


class Rows(Widget):
    """A widget whose content is ``rows``, one Text per row; ``paint_rows`` repaints only the rows that changed.

    Each row is drawn on its own (the Line API), so a step that changes two rows of a pane costs two rows'
    drawing and composing, not the pane's; a new number of rows or a new size repaints it all.
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._rows: list[Text] | None = None
        self._rows_at = Size(0, 0)
        self._role_styles: dict[str, Style] = {}
        self._border_only = False

    def role_style(self, name: str) -> Style:
        """A component class's Rich style, looked up once until the widget's styles change (a theme, focus)."""
        style = self._role_styles.get(name)
        if style is None:
            style = self._role_styles[name] = self.get_component_rich_style(name)
        return style

    def paint_rows(self, rows: list[Text]) -> None:
        """Show ``rows``, repainting those that differ from the rows on show."""
        old, self._rows = self._rows, rows
        size, old_size, self._rows_at = self.content_size, self._rows_at, self.content_size
        if old is None or len(old) != len(rows) or size != old_size or not size:
            self.refresh()
            return
        changed = [Region(0, y, size.width, 1) for y, (a, b) in enumerate(zip(old, rows, strict=True))
                   if not same(a, b)]
        if changed:
            self.refresh(*changed)

    def set_border(self, *, title: str | None = None, subtitle: str | None = None) -> None:
        """Change the border's title or subtitle, repainting only the border row it is drawn on (Textual's own
        setter repaints the whole pane, which on a step would send every row of it to the terminal again)."""
        rows = []
        self._border_only = True
        try:
            if title is not None and title != self.border_title:
                self.border_title = title
                rows.append(0)
            if subtitle is not None and subtitle != self.border_subtitle:
                self.border_subtitle = subtitle
                rows.append(self.outer_size.height - 1)
        finally:
            self._border_only = False
        offset, width = self.content_offset, self.outer_size.width
        for y in rows:
            super().refresh(Region(-offset.x, y - offset.y, width, 1))

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

    def render_line(self, y: int) -> Strip:
        rows = self._rows
        if rows is None or self.text_selection is not None:
            return super().render_line(y)  # drawn from render(), which selection needs
        width = self.content_size.width
        if y >= len(rows):
            return Strip.blank(width, self.visual_style.rich_style)
        return text_strip(rows[y], width, self.visual_style.rich_style, self.app.console)
