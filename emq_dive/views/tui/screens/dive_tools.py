"""The dive's learner tools: the sandbox editor (e), the cost view (c), the transcript (x) and the help (?)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from ....course.sandbox import SandboxBatch
from ....present.paths import OutputProblem, transcript_target
from ....present.session import Frame, Session
from ...text.recorder import Recorder

if TYPE_CHECKING:  # the fates' modules load when a fate first runs
    from ....engine.fates import FateRun, WireCompare


def open_sandbox(app: App[Any], session: Session, run: Callable[[SandboxBatch], None]) -> None:
    """Open the sandbox on the batch the dive runs; running the edit restarts the dive from step 0 with it."""
    from ....course.sandbox import current_batch
    from .sandbox import SandboxEditor

    def edited(batch: SandboxBatch | None) -> None:
        if batch is not None:
            run(batch)

    batch = current_batch(session.lesson, session.held, session.fates)
    app.push_screen(SandboxEditor(batch, session.lesson), edited)


def open_help(app: App[Any]) -> None:
    """Open the help: every key and what each pane shows."""
    from .help import HelpScreen

    app.push_screen(HelpScreen())


def open_cost(app: App[Any], session: Session) -> None:
    """Open the cost view, which measures on the dive's store and leaves the dive's keys as they were."""
    from .cost import CostView

    app.push_screen(CostView(session.store, session.lesson.lease_ms))


def write_transcript(app: App[Any], session: Session, recorder: Recorder) -> Path | None:
    """Write what the screen showed so far to the working directory and say where, or why it could not."""
    from ...text.transcript import default_name

    try:
        path = transcript_target(None, default_name(session.lesson.id, session.store.queue))
    except OutputProblem as err:
        app.notify(f"cannot write the transcript: {err}", severity="error", timeout=8)
        return None
    try:
        written = recorder.write(path)
    except OSError as err:
        app.notify(f"cannot write the transcript to {path}: {err.strerror or err}", severity="error", timeout=8)
        return None
    app.notify(f"transcript written to {written}", timeout=8)
    return written


def show_compared(app: App[Any], compared: WireCompare, frame: Frame) -> None:
    """Show both wires' runs of the batch side by side."""
    from .compare import CompareView  # the modal screens load on first use, not before the first frame

    app.push_screen(CompareView(compared, frame.fates, frame.wire))


def show_fate(app: App[Any], session: Session, run: FateRun, frame: Frame, apply: Callable[[int, str], None]) -> None:
    """Show a fate's four verbs; ``apply`` gets the member the learner gives the fate to, if any."""
    from .fate_view import FateView

    members = [(job, fate) for (job, _), fate in zip(frame.held, frame.fates, strict=True)]

    def chosen(index: int | None) -> None:
        if index is not None:
            apply(index, run.fate.key)

    app.push_screen(FateView(run, session.lesson.fates.get(run.fate.key, ""), members), chosen)


def pick_fate(app: App[Any], session: Session, run: Callable[[str], None]) -> None:
    """Offer the fates; ``run`` gets the one the learner picks, to run the four verbs on it."""
    from ....engine.fates import BY_KEY
    from .fate_picker import FatePicker

    def picked(key: str | None) -> None:
        if key is not None and key in BY_KEY:
            run(key)

    app.push_screen(FatePicker(session.lesson.fates, session.store), picked)


def console_back(dive: Any) -> bool:
    """Undo the console write made at the step on screen, if one stands there; True when it does (the console's ``:``
    then back)."""
    from .console_moves import back

    return back(dive)
