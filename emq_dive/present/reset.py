"""Reset: put the lesson's batch back from any state, and say first what that would lose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..course.lessons import Lesson
from ..engine.stepper.modes import RUN_MODES
from .session import Frame, Session

if TYPE_CHECKING:
    from .console import Console


@dataclass(frozen=True)
class Baseline:
    """The lesson's batch as the dive opened it: the lesson (before any sandbox edit) and its fates."""

    lesson: Lesson
    fates: tuple[str, ...]

    @classmethod
    def of(cls, session: Session) -> Baseline:
        """The batch ``session`` opens with (take it before any move)."""
        return cls(session.lesson, session.fates)


def losses(session: Session, baseline: Baseline, console: Console | None = None) -> tuple[str, ...]:
    """What a reset would lose, one phrase each; empty on a pristine batch (nothing to confirm)."""
    lost: list[str] = []
    if session.lesson != baseline.lesson:
        lost.append("the sandbox's edited batch")
    elif session.fates != baseline.fates:
        lost.append("the fates given to members")
    if session.run_mode != RUN_MODES[0]:
        lost.append(f"the {session.run_mode} run mode")
    if session.guard_off:
        lost.append("the guard-off what-if")
    stepper = session.stepper
    if stepper is not None and stepper.position > 0:
        lost.append(f"the run so far (step {stepper.position})")
    if stepper is not None and any(event.actor == "reaper" for event in stepper.race_events()):
        lost.append("the reaper's race")
    if console is not None and console.dirty:
        lost.append("the console's writes")
    return tuple(lost)


def question(lost: tuple[str, ...]) -> str:
    """What the confirmation asks, naming what would be lost."""
    return f"Reset to the lesson's batch? This drops {', '.join(lost)}."


def prepare(session: Session, baseline: Baseline) -> None:
    """Put the session's lesson, fates, run mode and guard back (no I/O); ``session.open(0)`` then sets it up."""
    session.lesson = baseline.lesson
    session.fates = baseline.fates
    session.run_mode = RUN_MODES[0]
    session.guard_off = False


def reset(session: Session, baseline: Baseline) -> Frame:
    """Set the lesson's batch up afresh at step 0, from any state. Call it inside ``store.io()``."""
    prepare(session, baseline)
    return session.open(0)
