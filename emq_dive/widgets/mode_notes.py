"""The mode notes: what this run mode lets the learner see that a plain batch does not."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..render import listed
from ..session import Frame


def notes(frame: Frame) -> list[tuple[str, str]]:
    """Each line and its role (``clock``, ``bad`` or ``warn``): singles' clock reads and raised errors, the step's
    own notes (such as the guard-off resurrection); a plain batch has none."""
    step, played = frame.step, frame.played
    if played is None or played.mode == "batch":
        return []
    lines: list[tuple[str, str]] = []
    if played.mode == "singles":
        reads = step.clock_reads
        if reads:
            lines.append((f"clock reads, one per call: {listed([str(r) for r in reads])} · {len(reads)} reads, "
                          f"spread {step.spread} ms (a batch reads TIME once)", "clock"))
        lines += [(f"{m.id}: extend_lock raised {m.raised} ({m.error})", "bad")
                  for m in step.members if m.outcome == "raised"]
    lines += [(note, "warn") for note in step.notes]
    return lines


class Shown(Widget):
    """A widget that appears only when it has something to say, and lays the screen out again only when what it
    says changes (a step in plain batch mode lays nothing out)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._drawn = ""

    def wanted(self) -> bool:
        """Whether the widget shows at all, for the frame it holds."""
        raise NotImplementedError

    def text(self) -> Text:
        """What the widget says for the frame it holds."""
        raise NotImplementedError

    def render(self) -> Text:
        return self.text()

    def redraw(self) -> None:
        """Show or hide, and lay out again only when the drawn text changed."""
        self.display = self.wanted()
        drawn = self.text().plain if self.display else ""
        if drawn != self._drawn:
            self._drawn = drawn
            self.refresh(layout=True)


class ModeNotes(Shown):
    """Shown when the run mode has something to say about the step: per-call clocks, raises, a resurrection."""

    DEFAULT_CSS: ClassVar[str] = """
    ModeNotes { height: auto; max-height: 6; padding: 0 1; background: $boost; display: none; }
    ModeNotes > .mode-notes--clock { color: $text-accent; }
    ModeNotes > .mode-notes--bad { color: $text-error; }
    ModeNotes > .mode-notes--warn { color: $text-warning; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"mode-notes--clock", "mode-notes--bad", "mode-notes--warn"}

    frame: reactive[Frame | None] = reactive(None, always_update=True)
    """The frame whose step is noted."""

    def wanted(self) -> bool:
        return self.frame is not None and bool(notes(self.frame))

    def watch_frame(self) -> None:
        self.redraw()

    def text(self) -> Text:
        out = Text()
        for n, (line, role) in enumerate(notes(self.frame) if self.frame is not None else ()):
            out.append(("\n" if n else "") + line, style=self.get_component_rich_style(f"mode-notes--{role}"))
        return out
