"""The dive's breakpoints: ``b`` marks the code pane's highlighted line, and playing forward stops where the
present layer says (a breakpoint, a failing member, the end)."""

from __future__ import annotations

from typing import Protocol

from textual.notifications import SeverityLevel

from ....engine.stepper import Step
from ....present.play_to import Stop, stop_at, stop_words
from ....present.session import Frame, Session
from ..widgets.code_pane import CodePane


class DiveScreen(Protocol):
    """What these need of the dive screen (named so, not imported: the screen imports this module)."""

    session: Session

    @property
    def step(self) -> Step | None: ...

    def query_one(self, selector: type[CodePane]) -> CodePane: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


def toggle(screen: DiveScreen) -> None:
    """Put a breakpoint on the highlighted line of the code on show, or take the one there away."""
    step = screen.step
    if step is None or step.focus is None:
        screen.notify("no line is highlighted yet", severity="warning", timeout=3)
        return
    session = screen.session
    session.breakpoints = session.breakpoints.toggled(step.code, step.focus)
    screen.query_one(CodePane).breakpoints = session.breakpoints.lines
    if (step.code, step.focus) in session.breakpoints.lines:
        screen.notify(f"breakpoint on line {step.focus} of {step.code}: space plays to the next step that runs it",
                      title="breakpoint", timeout=4)
    else:
        screen.notify(f"breakpoint on line {step.focus} of {step.code} taken away", title="breakpoint", timeout=3)


def stops(screen: DiveScreen, frame: Frame) -> bool:
    """True when playing forward stops at ``frame``'s step; the learner is told why (the end says so itself)."""
    stop = stop_at(frame.step, screen.session.breakpoints)
    if stop is not None and stop is not Stop.END:
        screen.notify(stop_words(frame.step, stop, screen.session.breakpoints), title="paused", timeout=4)
    return stop is not None
