"""The stepped script's locals in words, for the plain mode and the transcript: what the locals pane shows."""

from __future__ import annotations

from ...engine.stepper import Step
from ...engine.stepper.lua_locals import Local


def pairs_text(shown: tuple[Local, ...]) -> str:
    """``active = "emq:…", i = 4 (changed), …``: each local as the server's debugger prints it, changed ones said."""
    return ", ".join(f"{one.name} = {one.value}{' (changed)' if one.changed else ''}" for one in shown)


def step_locals(step: Step) -> str:
    """The locals at the step's last call line, changed since the step before said; or why there are none."""
    shown = step.script_locals
    if not shown:
        return step.no_locals[:1].upper() + step.no_locals[1:] + "."
    return f"Locals at line {step.locals[-1].line}: {pairs_text(shown)}."

