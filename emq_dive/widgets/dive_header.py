"""The dive's header: the lesson heading, the backend, and the wire in use."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..session import Frame
from ..stepper import MODES

WIRES = {4: "4 · EVALSHA", 6: "6 · EMQ.EXTENDS"}


class DiveHeader(Widget):
    """One line: what is being taught, against which store, over which wire."""

    DEFAULT_CSS: ClassVar[str] = """
    DiveHeader { dock: top; height: 1; background: $panel; color: $foreground; }
    DiveHeader > .dive-header--heading { text-style: bold; color: $text-accent; }
    DiveHeader > .dive-header--wire { text-style: bold reverse; color: $text-warning; }
    DiveHeader > .dive-header--muted { color: $text-muted; }
    DiveHeader > .dive-header--what-if { text-style: bold reverse; color: $text-error; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"dive-header--heading", "dive-header--wire", "dive-header--muted",
                                             "dive-header--what-if"}

    heading: reactive[str] = reactive("")
    """The lesson's heading."""
    backend: reactive[str] = reactive("")
    """The store's description."""
    wire: reactive[int] = reactive(4)
    """The wire asked for, shown until the first frame."""
    frame: reactive[Frame | None] = reactive(None)
    """The frame on screen, whose wire the stepped run uses."""

    def render(self) -> Text:
        style = self.get_component_rich_style
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f" {self.heading} ", style=style("dive-header--heading"))
        out.append("│ wire ", style=style("dive-header--muted"))
        wire = self.frame.wire if self.frame is not None else self.wire
        out.append(f" {WIRES.get(wire, wire)} ", style=style("dive-header--wire"))
        played = self.frame.played if self.frame is not None else None
        if played is not None and (played.mode != "batch" or played.predicting):
            out.append(" │ ", style=style("dive-header--muted"))
            what_if = played.what_if
            out.append(f" {MODES[played.mode].header} " if what_if else played.label,
                       style=style("dive-header--what-if" if what_if else "dive-header--muted"))
            if played.predicting:
                out.append(f" · predicted {played.score[0]}/{played.score[1]}")
        out.append(" │ ", style=style("dive-header--muted"))
        out.append(self.backend)
        return out
