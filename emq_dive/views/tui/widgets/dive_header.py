"""The dive's header: the lesson heading, the backend, and the wire in use."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive, var
from textual.widget import Widget

from ....engine.echo_mq.wires import WIRES
from ....engine.stepper import MODES
from ....engine.stepper.modes import RUN_MODES
from ....engine.stores.protocol import StoreLike
from ....present.session import Frame

MIN_HEADING = 12
"""The fewest cells the heading keeps when the header is too narrow for it and the store's name."""


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
    frame: var[Frame | None] = var(None)
    """The frame on screen, whose wire the stepped run uses; the header repaints only when what it says changes."""
    store: StoreLike | None = None
    """The store whose description is shown as it stands at each paint (a starting server's changes once it
    answers, which the first frame follows); ``backend`` is shown when there is none."""

    def watch_frame(self, old: Frame | None, new: Frame | None) -> None:
        if old is None or new is None or self._says(old) != self._says(new):
            self.refresh()

    @staticmethod
    def _says(frame: Frame) -> tuple[object, ...]:
        """What of a frame the header shows: its wire and the learner's mode, guess score included."""
        played = frame.played
        return (frame.wire, None if played is None else (played.mode, played.label, played.predicting, played.score))

    def render(self) -> Text:
        style = self.get_component_rich_style
        backend = self.store.description if self.store is not None else self.backend
        wire = self.frame.wire if self.frame is not None else self.wire
        wire_text = f" {WIRES[wire].label if wire in WIRES else wire} "
        played = self.frame.played if self.frame is not None else None
        mode = ""
        if played is not None and (played.mode != RUN_MODES[0] or played.predicting):
            mode = f" {MODES[played.mode].header} " if played.what_if else played.label
            if played.predicting:
                mode += f" · predicted {played.score[0]}/{played.score[1]}"
        # the heading gives way first, so a narrow header still names the store (its name comes first)
        rest = (len("│ wire ") + len(wire_text) + (len(" │ ") + len(mode) if mode else 0) + len(" │ ")
                + min(len(backend), len(backend.split(" · ")[0]) + 2))
        room = max(MIN_HEADING, (self.size.width or 120) - rest - 2)
        heading = self.heading if len(self.heading) <= room else self.heading[: room - 1].rstrip() + "…"
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f" {heading} ", style=style("dive-header--heading"))
        out.append("│ wire ", style=style("dive-header--muted"))
        out.append(wire_text, style=style("dive-header--wire"))
        if played is not None and mode:
            out.append(" │ ", style=style("dive-header--muted"))
            out.append(mode, style=style("dive-header--what-if" if played.what_if else "dive-header--muted"))
        out.append(" │ ", style=style("dive-header--muted"))
        out.append(backend)
        return out
