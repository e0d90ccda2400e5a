"""What the learner's run-mode keys ask of the store: m cycles the run mode, g the guard, from the modes registry."""

from __future__ import annotations

from dataclasses import dataclass

from ....engine.stepper import MODES
from ....engine.stepper.modes import WHAT_IF_REFUSAL, cycled, run_mode_of
from ....present.session import Played


@dataclass(frozen=True)
class Remode:
    """A re-run in another mode: the run mode, the guard, what the store is doing meanwhile, and a word first."""

    run_mode: str
    guard_off: bool
    doing: str
    notice: str = ""


def next_mode(played: Played, members: int) -> Remode:
    """``m``: the next run mode, with the guard back on (saying so when it was off)."""
    run_mode = cycled(played.mode)
    notice = f"guard back on: {WHAT_IF_REFUSAL}" if played.what_if else ""
    return Remode(run_mode, False, f"re-running the batch as {MODES[run_mode].label(members)}…", notice)


def toggled_guard(played: Played) -> Remode:
    """``g``: the same run mode with the ZSCORE guard off (the what-if), or back on."""
    off = not played.what_if
    return Remode(run_mode_of(played.mode), off,
                  "running the what-if without the guard…" if off else "putting the guard back…")
