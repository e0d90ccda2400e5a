"""The step bar: step k of n, the shared now, the failed list so far, and at the end the atomic check."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive

from ....present import step_words
from ....present.session import Frame
from ....present.step_words import BEFORE_CHECK, CHECKING, agreement_text, now_text
from .rows import Rows
from .word_wrap import word_wrap


def failed_text(frame: Frame, width: int | None = None) -> str:
    """The failed list so far (for singles, the raised calls), in every view's words, fitted to ``width``."""
    return step_words.failed_text(frame.step, width)


class StepBar(Rows):
    """Says where the run stands, in the engine's own values; one line per fact, wrapped where a fact is long.

    The fourth line is kept even while it waits for the end, so a step never changes the screen's layout
    unless a fact grows past the bar's width; while a move runs, it says what the store is doing.
    """

    DEFAULT_CSS: ClassVar[str] = """
    StepBar {
        height: auto; min-height: 4; padding: 0 1; background: $boost;
    }
    StepBar > .step-bar--title { text-style: bold; color: $text-accent; }
    StepBar > .step-bar--ok { color: $text-success; }
    StepBar > .step-bar--bad { color: $text-error; text-style: bold; }
    StepBar > .step-bar--muted { color: $text-muted; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"step-bar--title", "step-bar--ok", "step-bar--bad", "step-bar--muted"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step is described (the watcher repaints only the rows that changed)."""
    playing: reactive[bool] = reactive(False, repaint=False)
    """True while the run steps itself."""
    busy: reactive[str] = reactive("", repaint=False)
    """What the store is doing right now, or empty."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._height = 4

    def _fit(self) -> None:
        """Repaint the rows that changed; lay the screen out again only when the wrapped text needs another
        number of lines."""
        width = self.content_size.width
        if not width:
            self.refresh()
            return
        rows = word_wrap(self.render(), width)
        height = max(4, len(rows))
        if height != self._height:
            self._height = height
            self.refresh(layout=True)
        self.paint_rows(rows + [Text()] * (height - len(rows)))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(4, len(word_wrap(self.render(), width)) if width else self._height)

    def watch_frame(self) -> None:
        self._fit()

    def watch_busy(self) -> None:
        self._fit()

    def watch_playing(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._height = -1
        self.forget_rows()
        self._fit()

    def render(self) -> Text:
        frame = self.frame
        style = self.role_style
        if frame is None:
            return Text(self.busy or "no batch yet: the store has not answered", style=style("step-bar--muted"))
        step = frame.step
        out = Text()
        out.append(f"step {step.index} of {step.count}", style=style("step-bar--title"))
        out.append(f" · {step.title}")
        if self.playing:
            out.append("  ▶ playing (space pauses)", style=style("step-bar--ok"))
        out.append("\n")
        out.append(now_text(step), style=style("step-bar--muted" if step.now is None else "step-bar--title"))
        out.append("\n")
        out.append(failed_text(frame, self.content_size.width or None))
        if step.error is not None:
            out.append("\n")
            out.append(f"the run stops with an error: {step.error}", style=style("step-bar--bad"))
        agreement = frame.agreement
        if self.busy or frame.checking or (agreement is None and step.error is None and not step.done):
            out.append("\n")  # done and unchecked: the check ran, or its note says why not
            out.append(self.busy or (CHECKING if frame.checking else BEFORE_CHECK),
                       style=style("step-bar--title" if self.busy else "step-bar--muted"))
        elif agreement is not None:
            out.append("\n")
            head = f"{'✓' if agreement.agree else '✗'} run {frame.run}: "
            width = self.content_size.width - len(head) if self.content_size.width else None
            out.append(head + agreement_text(agreement, width),
                       style=style("step-bar--ok" if agreement.agree else "step-bar--bad"))
        return out
