"""Style pieces the panes combine with their own colours."""

from __future__ import annotations

from rich.style import Style


def foreground(style: str | Style) -> Style:
    """Only the colour and emphasis of ``style``, so the pane's or row's background shows through."""
    parsed = Style.parse(style) if isinstance(style, str) else style
    return Style(color=parsed.color, bold=parsed.bold, italic=parsed.italic, underline=parsed.underline)


def background(style: Style) -> Style:
    """Only the background and weight of ``style``, so the syntax colours stay."""
    return Style(bgcolor=style.bgcolor, bold=style.bold)
