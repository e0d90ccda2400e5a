"""The missions list (M): each mission with its tick, or why this store skips it; choosing one dismisses with it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....present.missions import Entry


class MissionList(ModalScreen[int | None]):
    """Lists the lesson's missions; Enter on one that runs here dismisses with its number (from 1)."""

    DEFAULT_CSS: ClassVar[str] = """
    MissionList { align: center middle; }
    MissionList > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    MissionList #missions-intro { color: $text-muted; margin-bottom: 1; }
    MissionList OptionList { height: auto; max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,M", "dismiss(None)", "close")]

    def __init__(self, entries: tuple[Entry, ...], done: int, counted: int) -> None:
        super().__init__()
        self.entries = entries
        self.done = done
        self.counted = counted

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Missions · {self.done}/{self.counted} done here. Each is a goal the live store checks "
                         "after every move; Enter starts one from its own start state.", id="missions-intro")
            yield OptionList(*(self._option(e) for e in self.entries), id="missions")

    def _option(self, entry: Entry) -> Option:
        mission = entry.mission
        text = Text()
        text.append(f"{entry.number:>2} {'✓' if entry.done else '·'} ", style="bold green" if entry.done else "bold")
        text.append(mission.title, style="bold")
        text.append(f"  ({mission.route.value})", style="dim")
        if entry.skipped:
            text.append(f"\n   skipped here: {entry.skipped}", style="dim italic")
        text.append(f"\n   {mission.goal}")
        return Option(text, id=str(entry.number), disabled=bool(entry.skipped))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = next((i for i, e in enumerate(self.entries) if not e.skipped), None)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0) or None)
