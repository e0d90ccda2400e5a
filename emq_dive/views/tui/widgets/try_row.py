"""The Try it row: the learn-by-doing keys that apply to the run on screen, in the keys table's words."""

from __future__ import annotations

from typing import ClassVar

from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from ....engine.echo_mq.wires import WIRES
from ....engine.stepper import MODES
from ....engine.stepper.modes import RUN_MODES, available, run_mode_of
from ....present.keymap import Key, Now, learn_offers
from ....present.session import Frame

WHAT_IF = next(mode.key for mode in MODES.values() if mode.what_if)
"""The run mode that is a what-if (the guard off)."""
WHAT_IF_WIRE = next(number for number in WIRES if WHAT_IF in available(number))
"""The wire the what-if runs on."""


def now_of(frame: Frame | None, newcomer: bool = False) -> Now:
    """What the learn keys' rules ask, read from ``frame`` (and whether the tour is on offer)."""
    if frame is None or frame.played is None:
        return Now(what_if_wire=WHAT_IF_WIRE, newcomer=newcomer)
    played = frame.played
    return Now(batch=run_mode_of(played.mode) == RUN_MODES[0], what_if=played.what_if, wire=frame.wire,
               what_if_wire=WHAT_IF_WIRE, predicting=played.predicting, done=frame.step.done, newcomer=newcomer)


class TryRow(Static):
    """One row (it wraps where the screen is narrow) of the learn keys that apply now, each with its words."""

    DEFAULT_CSS: ClassVar[str] = """
    TryRow { height: auto; padding: 0 1; background: $footer-background; color: $footer-description-foreground; }
    """

    frame: var[Frame | None] = var(None, always_update=True)
    """The frame on screen, whose mode, wire and progress say which keys apply."""
    newcomer: var[bool] = var(False)
    """True while the tour is on offer: the row leads with it (start-up sets it; taking the tour clears it)."""

    offers: tuple[tuple[Key, str], ...] = ()
    """The keys on show, each with its words."""

    def watch_newcomer(self) -> None:
        self.watch_frame(self.frame)

    def watch_frame(self, frame: Frame | None) -> None:
        offers = learn_offers(now_of(frame, self.newcomer))
        if offers == self.offers:
            return  # the same keys: nothing to lay out again
        self.offers = offers
        parts = [Content.assemble((key.display, "$footer-key-foreground bold"), f" {words}") for key, words in offers]
        content = Content("  ").join([Content("try:"), *parts])  # the theme's key colour, a new theme too
        width = self.content_region.width
        # a layout pass costs more than the paint: lay the screen out again only when the row's height changes
        self.update(content, layout=not width or len(content.wrap(width)) != self.content_region.height)

    def shown_keys(self) -> list[str]:
        """The offered keys as the row names them, ``m singles``."""
        return [f"{key.display} {words}" for key, words in self.offers]
