"""The dive's header: the lesson heading, the backend, and the wire in use."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive, var
from textual.widget import Widget

from ....engine.echo_mq.wires import WIRES
from ....engine.stepper import MODES
from ....engine.stepper.modes import RUN_MODES
from ....engine.stores.protocol import StoreLike
from ....present.session import Frame
from .word_wrap import word_wrap


class DiveHeader(Widget):
    """One line: what is being taught, against which store, over which wire."""

    DEFAULT_CSS: ClassVar[str] = """
    DiveHeader { dock: top; height: auto; background: $panel; color: $foreground; }
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
            self.refresh(layout=True)  # the header may take another row

    @staticmethod
    def _says(frame: Frame) -> tuple[object, ...]:
        """What of a frame the header shows: its wire and the learner's mode, guess score included."""
        played = frame.played
        return (frame.wire, None if played is None else (played.mode, played.label, played.predicting, played.score))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._rows(width))

    def render(self) -> Text:
        return Text("\n", end="").join(self._rows(self.size.width or 120))

    def _parts(self) -> list[tuple[list[str], str, str]]:
        """Each part of the header: its wordings (longest first), its style and the separator before it."""
        backend = self.store.description if self.store is not None else self.backend
        wire = self.frame.wire if self.frame is not None else self.wire
        played = self.frame.played if self.frame is not None else None
        parts = [(headings(self.heading), "dive-header--heading", " "),
                 ([f" {WIRES[wire].label if wire in WIRES else wire} "], "dive-header--wire", " │ wire ")]
        if played is not None and (played.mode != RUN_MODES[0] or played.predicting):
            mode = f" {MODES[played.mode].header} " if played.what_if else played.label
            if played.predicting:
                mode += f" · predicted {played.score[0]}/{played.score[1]}"
            parts.append(([mode], "dive-header--what-if" if played.what_if else "dive-header--muted", " │ "))
        parts.append(([backend], "", " │ "))
        return parts

    def _rows(self, width: int) -> list[Text]:
        """The header's rows at ``width`` cells: one where every part fits (the heading in its shortest words if
        it must), else the parts flow onto more rows, each part whole."""
        parts = self._parts()
        for choice in range(max(len(words) for words, _, _ in parts)):
            chosen = [(words[min(choice, len(words) - 1)], role, sep) for words, role, sep in parts]
            if sum(len(sep) + len(said) for said, _, sep in chosen) <= width:
                return [self._row(chosen)]
        chosen = [(words[-1], role, sep) for words, role, sep in parts]
        rows: list[list[tuple[str, str, str]]] = [[]]
        used = 0
        for said, role, sep in chosen:
            if rows[-1] and used + len(sep) + len(said) > width:
                rows.append([])
                used = 0
            rows[-1].append((said, role, sep if rows[-1] or sep == " " else " "))
            used += len(rows[-1][-1][2]) + len(said)
        out: list[Text] = []
        for row in rows:
            out += word_wrap(self._row(row), width)
        return out

    def _row(self, parts: list[tuple[str, str, str]]) -> Text:
        style = self.get_component_rich_style
        out = Text(end="")
        for said, role, sep in parts:
            out.append(sep, style=style("dive-header--muted"))
            out.append(said, style=style(role) if role else "")
        return out


def headings(heading: str) -> list[str]:
    """The lesson's heading in its words, longest first: whole, then without its title (``Batches · dive 03``)."""
    short = heading.split(" — ")[0]
    return [heading, short] if short != heading else [heading]
