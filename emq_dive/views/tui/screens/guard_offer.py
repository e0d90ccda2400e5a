"""g on a wire the guard's what-if does not run on: offer the wire it runs on, in a small confirm."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from ....engine.stepper.modes import RUN_MODES, WHAT_IF_REFUSAL, available, run_mode_of
from ....present.session import Played
from ..widgets.try_row import WHAT_IF, WHAT_IF_WIRE


def what_if_elsewhere(played: Played, wire: int) -> int | None:
    """The wire to offer when ``g`` asks for the what-if on ``wire``, which does not run it; else None (it runs
    here, or it is refused for another reason, such as the singles run mode)."""
    if played.what_if or WHAT_IF in available(wire) or run_mode_of(played.mode) != RUN_MODES[0]:
        return None
    return WHAT_IF_WIRE


def question(wire: int, other: int) -> str:
    """What the confirm asks on ``wire``, offering ``other``."""
    return (f"{WHAT_IF_REFUSAL}.\n\nMove from wire {wire} to wire {other} and run the batch there without its guard?"
            f"\n\ny or enter: move to wire {other} · n or escape: stay on wire {wire}")


class SwitchWire(ModalScreen[bool]):
    """Asks whether to carry on on the wire the what-if runs on; dismisses with the answer."""

    DEFAULT_CSS: ClassVar[str] = """
    SwitchWire { align: center middle; }
    SwitchWire > Static {
        width: 64; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("y,enter", "dismiss(True)", "move"),
                                             Binding("n,escape", "dismiss(False)", "stay")]

    def __init__(self, wire: int, other: int) -> None:
        super().__init__()
        self.text = question(wire, other)

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="switch-wire")


def offer_wire(app: App[Any], wire: int, other: int, move: Callable[[], None]) -> None:
    """Ask whether to move from ``wire`` to ``other`` for the what-if; ``move`` runs on a yes."""
    def answered(yes: bool | None) -> None:
        if yes:
            move()

    app.push_screen(SwitchWire(wire, other), answered)
