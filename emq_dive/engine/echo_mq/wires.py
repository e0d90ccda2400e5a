"""The two wires a batch can go over, as one registry every view asks: 4 sends the script by SHA, 6 the native verb."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Serves(Protocol):
    """What a wire asks of a store: whether it serves the native commands."""

    native: bool
    native_reason: str


@dataclass(frozen=True)
class WireSpec:
    """One wire: its number, how the screen names it, the commands it sends, and what the store must serve."""

    number: int
    label: str
    """How the header and the help name it, ``4 · EVALSHA``."""
    command: str
    """The batch command it sends."""
    single: str
    """The single verb's command."""
    other_number: int
    """The wire ``w`` switches to."""
    native: bool
    """True when the store must serve the EMQ module's commands."""

    @property
    def other(self) -> WireSpec:
        """The wire ``w`` switches to from this one."""
        return WIRES[self.other_number]

    def supports(self, store: Serves) -> bool:
        """True when ``store`` can run this wire."""
        return store.native or not self.native

    def refusal(self, store: Serves) -> str:
        """Why ``store`` cannot run this wire, in words, or an empty string when it can."""
        return "" if self.supports(store) else f"wire {self.number} is not on this backend: {store.native_reason}"

    def on(self, store: Serves) -> WireSpec:
        """This wire where ``store`` runs it, else the script wire every store runs."""
        return self if self.supports(store) else SCRIPT


WIRES: dict[int, WireSpec] = {
    4: WireSpec(4, "4 · EVALSHA", "EVALSHA", "EVALSHA", 6, native=False),
    6: WireSpec(6, "6 · EMQ.EXTENDS", "EMQ.EXTENDS", "EMQ.EXTEND", 4, native=True),
}
"""Every wire by number."""
SCRIPT = WIRES[4]
"""The wire every store runs: the Lua script by SHA."""
NATIVE = WIRES[6]
"""The native twin's wire: the EMQ module's commands."""


def wire(number: int) -> WireSpec:
    """The wire numbered ``number``, or ValueError naming the ones there are."""
    try:
        return WIRES[number]
    except (KeyError, TypeError):
        known = " or ".join(f"{w.number} ({w.command})" for w in WIRES.values())
        raise ValueError(f"wire must be {known}, not {number!r}") from None
