"""The mission's goal view (G): what the store pane or the replies must show once the goal is met."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class MissionGoal(ModalScreen[None]):
    """The goal's lines, drawn as the store pane draws keys; any of esc, G or Enter closes it."""

    DEFAULT_CSS: ClassVar[str] = """
    MissionGoal { align: center middle; }
    MissionGoal > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        border: thick $success; background: $surface; padding: 0 1;
    }
    MissionGoal #goal-title { text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,G,enter", "dismiss(None)", "close")]

    def __init__(self, title: str, lines: tuple[str, ...]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"the goal · {self.title_text}", id="goal-title")
            yield Static("\n".join(self.lines), id="goal-lines", markup=False)
