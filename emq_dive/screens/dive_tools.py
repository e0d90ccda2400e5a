"""The dive's learner tools: the sandbox editor (e), the cost view (c) and the transcript (x)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import OutputProblem, transcript_target
from ..text_modes.transcript import default_name

if TYPE_CHECKING:
    from ..sandbox import SandboxBatch
    from .dive import DiveScreen


def open_sandbox(screen: DiveScreen) -> None:
    """Open the sandbox on the batch the dive runs; running the edit restarts the dive from step 0 with it."""
    from .sandbox import SandboxEditor, current_batch

    screen.playing = False
    session = screen.session

    def edited(batch: SandboxBatch | None) -> None:
        if batch is not None:
            screen.busy = f"setting up the edited batch of {len(batch.members):,} members…"
            screen._restart(batch, screen._next_seq())

    batch = current_batch(session.lesson, session.held, session.fates)
    screen.app.push_screen(SandboxEditor(batch, session.lesson), edited)


def open_cost(screen: DiveScreen) -> None:
    """Open the cost view, which measures on the dive's store and leaves the dive's keys as they were."""
    from .cost import CostView

    screen.playing = False
    screen.app.push_screen(CostView(screen.session.store, screen.session.lesson.lease_ms))


def write_transcript(screen: DiveScreen) -> Path | None:
    """Write what the screen showed so far to the working directory and say where, or why it could not."""
    try:
        path = transcript_target(None, default_name(screen.session.lesson.id, screen.session.store.queue))
    except OutputProblem as err:
        screen.notify(f"cannot write the transcript: {err}", severity="error", timeout=8)
        return None
    try:
        written = screen.recorder.write(path)
    except OSError as err:
        screen.notify(f"cannot write the transcript to {path}: {err.strerror or err}", severity="error", timeout=8)
        return None
    screen.notify(f"transcript written to {written}", timeout=8)
    return written
