"""The fate view: the four verbs' answers on one fate, side by side, and giving the fate to a batch member."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....engine.fates import FateRun, what_differs
from ..widgets.answer_card import AnswerCard
from ..widgets.key_bindings import app_keys


class FateView(ModalScreen[int | None]):
    """Shows a FateRun; choosing a member dismisses with its index, to give it this fate."""

    DEFAULT_CSS: ClassVar[str] = """
    FateView { align: center middle; }
    FateView > VerticalScroll {
        width: 118; max-width: 100%; height: 95%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    FateView .fate-heading { text-style: bold; color: $text-accent; }
    FateView .fate-muted { color: $text-muted; }
    FateView Grid { grid-size: 2; grid-gutter: 0 1; height: auto; }
    FateView OptionList { height: auto; max-height: 8; margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f", "dismiss(None)", "close"), *app_keys("whole")]

    def __init__(self, run: FateRun, description: str, members: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.run = run
        self.description = description
        self.members = list(members)

    def compose(self) -> ComposeResult:
        run = self.run
        with VerticalScroll():
            yield Static(f"fate: {run.fate.key} · {run.fate.title}", classes="fate-heading")
            yield Static(self.description, classes="fate-muted")
            if run.held:
                held = ", ".join(f"{job} token {token}" if token is not None else f"{job} (no token)"
                                 for job, token in run.held)
                yield Static(f"held: {held}", classes="fate-muted")
            if run.answers:
                yield Static("through the project's verbs: single on the left, batch on the right",
                             classes="fate-heading")
                with Grid():
                    for answer in run.answers:
                        yield AnswerCard(answer)
            if run.raw_answers:
                yield Static("as raw wire commands", classes="fate-heading")
                with Grid():
                    for answer in run.raw_answers:
                        yield AnswerCard(answer)
            if run.note:
                yield Static(f"note: {run.note}", classes="fate-muted")
            if run.fate.member:
                yield Static("give this fate to a member of the batch (↓ picks one, enter gives it), then the "
                             "batch re-runs from the handle:", classes="fate-heading")
                yield OptionList(*(Option(f"{job}  now {fate}", id=str(i))
                                   for i, (job, fate) in enumerate(self.members)), id="members")
            yield Static(what_differs(run), id="what-differs", classes="fate-heading")
            yield Static("escape closes", classes="fate-muted")

    def on_mount(self) -> None:
        # nothing is highlighted until a key moves the highlight, which brings the list into view
        for options in self.query(OptionList):
            options.highlighted = None
            options.focus(scroll_visible=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_list.highlighted is not None:
            self.query_one(VerticalScroll).scroll_to_widget(event.option_list, animate=False, immediate=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(int(event.option.id))
