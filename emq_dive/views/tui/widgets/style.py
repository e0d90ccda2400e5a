"""Style pieces the panes combine with their own colours, and the one table of the dive's faint text."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style


def foreground(style: str | Style) -> Style:
    """Only the colour and emphasis of ``style``, so the pane's or row's background shows through."""
    parsed = Style.parse(style) if isinstance(style, str) else style
    return Style(color=parsed.color, bold=parsed.bold, italic=parsed.italic, underline=parsed.underline)


def background(style: Style) -> Style:
    """Only the background and weight of ``style``, so the syntax colours stay."""
    return Style(bgcolor=style.bgcolor, bold=style.bold)


FAINT_COLOR = "$text-muted"
"""The colour of all faint text: the theme's muted text, which meets WCAG AA (4.5:1) on the dive's panes."""
SUBTITLE = "border-subtitle"
"""The part name of a pane's border subtitle (its scroll hint, ``> the line this step ran``, ``[ ] browse``)."""


@dataclass(frozen=True)
class Faint:
    """One faint part of a widget: a component class (or its border subtitle), maybe drawn over another part."""

    widget: str
    """The widget's class name, ``StorePane``."""
    part: str
    """A component class, ``store-pane--muted``, or SUBTITLE."""
    over: str | None = None
    """A component class whose background the part is also drawn on (the current row), or None."""

    def css(self) -> str:
        """The rule that gives the part the faint colour."""
        if self.part == SUBTITLE:
            return f"{self.widget} {{ border-subtitle-color: {FAINT_COLOR}; }}"
        return f"{self.widget} > .{self.part} {{ color: {FAINT_COLOR}; }}"


FAINT: tuple[Faint, ...] = (
    Faint("BatchTable", "batch-table--dim"),
    Faint("BatchTable", "batch-table--dim", over="batch-table--current"),
    Faint("BatchTable", SUBTITLE),
    Faint("CodePane", "code-pane--gutter"),
    Faint("CodePane", "code-pane--gutter", over="code-pane--focus"),
    Faint("CodePane", SUBTITLE),
    Faint("StepBar", "step-bar--muted"),
    Faint("ModeNotes", "mode-notes--note"),
    Faint("WirePane", "wire-pane--muted"),
    Faint("WirePane", "wire-pane--stand-in"),
    Faint("WirePane", SUBTITLE),
    Faint("StorePane", "store-pane--muted"),
    Faint("StorePane", SUBTITLE),
    Faint("LessonPane", SUBTITLE),
    Faint("DiveHeader", "dive-header--muted"),
    Faint("AnswerCard", "answer-card--faint"),
    Faint("CostChart", "cost-chart--faint"),
    Faint("LocalsPane", "locals-pane--muted"),
)
"""Every faint part of the dive's widgets; the app's CSS gives each the faint colour and a test checks its contrast."""

QUIET_HIGHLIGHTS = """
BatchTable > .batch-table--current { background: $accent 15%; }
CodePane > .code-pane--focus { background: $accent 20%; }
"""
"""The current row's and line's tints, light enough that faint and error text on them keep AA contrast."""


def faint_css() -> str:
    """The app's CSS for the faint table and the highlights it is read on."""
    return "\n".join(dict.fromkeys(f.css() for f in FAINT)) + QUIET_HIGHLIGHTS
