"""The fate picker: every fate of the engine's table, described in the lesson's words, marked where it cannot run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....engine.fates import FATES, Fate
from ....engine.fates.availability import unavailable_reason
from ....engine.stores.protocol import StoreLike


class FatePicker(ModalScreen[str | None]):
    """Lists FATES, each that cannot run on ``store`` with the reason; choosing one dismisses with its key."""

    DEFAULT_CSS: ClassVar[str] = """
    FatePicker { align: center middle; }
    FatePicker > Vertical {
        width: 96; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    FatePicker #fate-intro { color: $text-muted; margin-bottom: 1; }
    FatePicker OptionList { height: auto; max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f", "dismiss(None)", "close")]

    def __init__(self, descriptions: Mapping[str, str], store: StoreLike) -> None:
        super().__init__()
        self.descriptions = descriptions
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("A job's fate · run the single verb, the batch verb and both native commands on it, "
                         "each from the same starting state. Enter runs it.", id="fate-intro")
            yield OptionList(*(self._option(f) for f in FATES), id="fates")

    def _option(self, fate: Fate) -> Option:
        text = Text()
        text.append(f"{fate.key:<11}", style="bold")
        text.append(f"{fate.title}", style="italic")
        text.append(" · a member fate" if fate.member else " · a whole-call fate", style="dim")
        reason = unavailable_reason(self.store, fate)
        if reason:
            text.append(f" (unavailable here: {reason})", style="dim")
        text.append(f"\n  {self.descriptions.get(fate.key, '')}")
        return Option(text, id=fate.key)

    def on_resize(self, event: events.Resize) -> None:
        # the list scrolls inside the box rather than push the box's bottom border off a short screen
        intro = self.query_one("#fate-intro").outer_size.height or 3
        self.query_one(OptionList).styles.max_height = max(3, min(30, event.size.height * 9 // 10 - 2 - intro))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
