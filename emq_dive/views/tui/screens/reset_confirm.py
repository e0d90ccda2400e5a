"""R with something to lose: ask once, naming what the reset drops, before the lesson's batch is set up again."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static


class ResetConfirm(ModalScreen[bool]):
    """Asks whether to reset; dismisses with the answer (y or enter: reset, n or escape: keep)."""

    DEFAULT_CSS: ClassVar[str] = """
    ResetConfirm { align: center middle; }
    ResetConfirm > Static {
        width: 64; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("y,enter", "dismiss(True)", "reset"),
                                             Binding("n,escape", "dismiss(False)", "keep")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(f"{self.question}\n\ny or enter: reset · n or escape: keep it", id="reset-question")
