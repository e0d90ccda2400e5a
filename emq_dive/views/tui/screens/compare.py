"""The compare view: one batch on both wires from the same start, replies side by side, differences named."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ....engine.echo_mq.render import MAX_ARGS, MAX_ITEMS, wire_text
from ....engine.echo_mq.wires import NATIVE
from ....engine.fates import WireCompare
from ..widgets.answer_card import AnswerCard
from ..widgets.key_bindings import app_keys


def fates_text(fates: tuple[str, ...]) -> str:
    """The batch's fates in order, or for a big batch how many members have each."""
    if len(fates) <= MAX_ITEMS:
        return f"fates: {', '.join(fates)}"
    counts = {fate: fates.count(fate) for fate in dict.fromkeys(fates)}
    tally = ", ".join(f"{fate} ×{n:,}" for fate, n in counts.items())
    return f"fates of {len(fates):,} members: {tally}"


class CompareView(ModalScreen[None]):
    """Shows a WireCompare: the scripted twin, the native twin, and what differs."""

    DEFAULT_CSS: ClassVar[str] = """
    CompareView { align: center middle; }
    CompareView > VerticalScroll {
        width: 118; max-width: 100%; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    CompareView .compare-heading { text-style: bold; color: $text-accent; }
    CompareView .compare-muted { color: $text-muted; }
    CompareView Horizontal { height: auto; }
    CompareView AnswerCard { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,w,enter", "dismiss(None)", "close"), *app_keys("whole")]

    def __init__(self, compared: WireCompare, fates: tuple[str, ...], now_wire: int) -> None:
        super().__init__()
        self.compared = compared
        self.fates = fates
        self.now_wire = now_wire

    def compose(self) -> ComposeResult:
        compared = self.compared
        with VerticalScroll():
            yield Static("the same batch on both wires, each from the same starting state", classes="compare-heading")
            yield Static(fates_text(self.fates), classes="compare-muted")
            yield Static("what differs", classes="compare-heading")
            yield Static("\n".join(f"• {d}" for d in compared.differences) or "• nothing")
            with Horizontal():
                yield AnswerCard(compared.scripted)
                yield AnswerCard(compared.native)
            command = compared.native.exchanges[-1].sent if compared.native.exchanges else ()
            if command:
                yield Static(f"wire {NATIVE.number} sent: {wire_text(command, MAX_ARGS)}", classes="compare-muted")
            yield Static(f"now stepping on wire {self.now_wire} · escape closes", classes="compare-muted")
