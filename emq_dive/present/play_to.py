"""Breakpoints on the stepped code's lines, and where a run played forward stops: a breakpoint, a failing member,
or the end; the TUI's space and the plain mode's play both ask this."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..engine.stepper import Step, Verdict

FAILING = frozenset({Verdict.FAILED, Verdict.RAISED, Verdict.STOPPED})
"""The verdicts of a failing member: it joined failed, its own call raised, or its check stopped the run."""


class Stop(Enum):
    """Why playing forward stopped at a step."""

    BREAKPOINT = "breakpoint"
    FAILING = "failing member"
    END = "end"


@dataclass(frozen=True)
class Breakpoints:
    """The lines a learner marked, each as (the code's file, its line): ``("extend_locks.lua", 22)``."""

    lines: frozenset[tuple[str, int]] = frozenset()

    def toggled(self, code: str, line: int) -> Breakpoints:
        """These breakpoints with the one on ``line`` of ``code`` added, or taken away when it was there."""
        return Breakpoints(self.lines ^ {(code, line)})

    def on(self, code: str) -> frozenset[int]:
        """The lines of ``code`` that carry a breakpoint."""
        return frozenset(line for file, line in self.lines if file == code)

    def hit(self, step: Step) -> int | None:
        """The first line ``step`` ran that carries a breakpoint, or None."""
        return next((line for line in step.lines if (step.code, line) in self.lines), None)


def failing(step: Step) -> bool:
    """True when the member this step checked failed: joined failed, raised, or stopped the run."""
    if not 1 <= step.index <= len(step.members):
        return False
    return step.members[step.index - 1].verdict in FAILING


def stop_at(step: Step, breakpoints: Breakpoints) -> Stop | None:
    """Why playing forward stops at ``step``, or None when it plays on past it."""
    if breakpoints.hit(step) is not None:
        return Stop.BREAKPOINT
    if failing(step):
        return Stop.FAILING
    return Stop.END if step.done else None


def stop_words(step: Step, stop: Stop, breakpoints: Breakpoints) -> str:
    """What the learner is told where playing stopped: ``stopped at the breakpoint on line 22 of extend_locks.lua``."""
    if stop is Stop.BREAKPOINT:
        return f"stopped at the breakpoint on line {breakpoints.hit(step)} of {step.code}"
    if stop is Stop.FAILING:
        member = step.members[step.index - 1]
        return f"stopped at a failing member: {member.id} ({member.verdict.value if member.verdict else ''})"
    return "played to the end of the run"
