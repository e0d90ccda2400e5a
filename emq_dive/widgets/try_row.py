"""The Try it row: the learn-by-doing keys that apply to the run on screen, in the keys table's words."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import var
from textual.widgets import Static

from ..echo_mq.wires import WIRES
from ..keymap import Key, Now, learn_offers
from ..session import Frame
from ..stepper import MODES
from ..stepper.modes import available

WHAT_IF = next(mode.key for mode in MODES.values() if mode.what_if)
"""The run mode that is a what-if (the guard off)."""
WHAT_IF_WIRE = next(number for number in WIRES if WHAT_IF in available(number))
"""The wire the what-if runs on."""


def now_of(frame: Frame | None) -> Now:
    """What the learn keys' rules ask, read from ``frame``."""
    if frame is None or frame.played is None:
        return Now(what_if_wire=WHAT_IF_WIRE)
    played = frame.played
    return Now(mode=played.mode, wire=frame.wire, what_if_wire=WHAT_IF_WIRE, predicting=played.predicting,
               done=frame.step.done)


class TryRow(Static):
    """One row (it wraps where the screen is narrow) of the learn keys that apply now, each with its words."""

    DEFAULT_CSS: ClassVar[str] = """
    TryRow { height: auto; padding: 0 1; background: $footer-background; color: $footer-description-foreground; }
    TryRow > .try-row--key { color: $footer-key-foreground; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"try-row--key"}

    frame: var[Frame | None] = var(None, always_update=True)
    """The frame on screen, whose mode, wire and progress say which keys apply."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.offers: tuple[tuple[Key, str], ...] = ()
        """The keys on show, each with its words."""

    def watch_frame(self, frame: Frame | None) -> None:
        offers = learn_offers(now_of(frame))
        if offers == self.offers:
            return  # the same keys: nothing to lay out again
        self.offers = offers
        style = self.get_component_rich_style("try-row--key", partial=True)
        text = Text("try:", end="")
        for key, words in offers:
            text.append("  ")
            text.append(key.display, style=style)
            text.append(f" {words}")
        self.update(text)

    def shown_keys(self) -> list[str]:
        """The offered keys as the row names them, ``m singles``."""
        return [f"{key.display} {words}" for key, words in self.offers]
