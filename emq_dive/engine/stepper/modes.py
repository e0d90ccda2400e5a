"""The run modes: how the held list is sent (one batch, N singles, or the batch with its guard removed)."""

from __future__ import annotations

from dataclasses import dataclass

from .driver import DRIVERS, Batch, Driver, ModeRefused


@dataclass(frozen=True)
class Mode:
    """One way of running the held list, as the header names it."""

    key: str
    header: str
    """The header text; ``{n}`` stands for the number of calls."""
    what_if: bool = False
    """True for a mode that runs a script the protocol does not ship (shown in a warning style)."""

    def label(self, count: int) -> str:
        """The header text for a held list of ``count`` members."""
        return self.header.format(n=count)


MODES: dict[str, Mode] = {
    "batch": Mode("batch", "batch · extend_locks"),
    "singles": Mode("singles", "singles · extend_lock ×{n}"),
    "guard-off": Mode("guard-off", "guard off (what-if)", what_if=True),
}
"""Every mode by key, in the order ``m`` cycles the run modes (``guard-off`` is its own toggle)."""

WHAT_IF_REFUSAL = "the what-if is for the batch script: guard off runs extend_locks.lua on wire 4 only"


def refusal(mode: str, wire: int) -> str:
    """Why ``mode`` does not run on ``wire``, in words the screen can show."""
    if MODES.get(mode, Mode(mode, mode)).what_if:
        return WHAT_IF_REFUSAL
    return f"the {mode} mode does not run on wire {wire}"


def choose(run_mode: str, guard_off: bool, wire: int) -> str:
    """The mode for the screen's run mode (``batch`` or ``singles``) and guard toggle on ``wire``, or ModeRefused."""
    if run_mode not in MODES or MODES[run_mode].what_if:
        raise ValueError(f"run mode must be one of batch, singles; not {run_mode!r}")
    if not guard_off:
        mode = run_mode
    elif run_mode != "batch":
        raise ModeRefused(WHAT_IF_REFUSAL)
    else:
        mode = "guard-off"
    if (mode, wire) not in DRIVERS:
        raise ModeRefused(refusal(mode, wire))
    return mode


def available(wire: int) -> tuple[str, ...]:
    """The modes a driver runs on ``wire``, in MODES order."""
    return tuple(key for key in MODES if (key, wire) in DRIVERS)


def driver_for(wire: int, batch: Batch, mode: str = "batch") -> Driver:
    """The registered driver for ``mode`` on ``wire``, set up for ``batch``."""
    try:
        factory = DRIVERS[(mode, wire)]
    except KeyError:
        if any(w == wire for _, w in DRIVERS) and any(m == mode for m, _ in DRIVERS):
            raise ModeRefused(refusal(mode, wire)) from None
        known = sorted({w for m, w in DRIVERS if m == "batch"})
        raise ValueError(f"no driver runs wire {wire} in {mode} mode; known wires: {known}") from None
    return factory(batch)


RUN_MODES = tuple(key for key, mode in MODES.items() if not mode.what_if)
"""The run modes ``m`` cycles, in order; the first is the one a dive starts in."""


def run_mode_of(mode: str) -> str:
    """The run mode ``mode`` belongs to: itself, or for the what-if the batch whose script it changes."""
    return RUN_MODES[0] if MODES[mode].what_if else mode


def cycled(mode: str) -> str:
    """The run mode ``m`` moves to from ``mode``."""
    at = RUN_MODES.index(run_mode_of(mode))
    return RUN_MODES[(at + 1) % len(RUN_MODES)]
