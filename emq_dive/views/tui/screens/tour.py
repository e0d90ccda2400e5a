"""The tour over the dive (``t``): each slide moves the dive screen, marks the pane it means, and reads its values."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widget import Widget

from ....course.lesson_file import LessonError
from ....course.tour_file import Move, Opens, Pane, Slide, load_tour
from ....course.user_state import StateProblem, UserState
from ....present.tour import heading, slide_text
from ..widgets.key_bindings import app_keys
from ..widgets.lesson_pane import LessonPane
from ..widgets.tour_panel import TourPanel
from ..widgets.try_row import TryRow

if TYPE_CHECKING:
    from .dive import DiveScreen

SEEN = "tour-seen"
"""The flag the learner's state keeps once the tour was finished or skipped, so it is not offered again."""
MARK = "-toured"
"""The class of the pane a slide talks about (app.tcss styles it)."""
PANES: dict[Pane, str] = {
    Pane.HEADER: "DiveHeader", Pane.STEP: "StepBar", Pane.BATCH: "BatchTable", Pane.CODE: "CodePane",
    Pane.WIRE: "WirePane", Pane.STORE: "StorePane", Pane.LESSON: "LessonPane, LessonCaption", Pane.TRY: "TryRow",
    Pane.FOOTER: "Footer",
}
"""The dive screen's widgets for each pane a slide may mark (the lesson, or its caption where it is folded)."""
class TourScreen(ModalScreen[None]):
    """The slides over the dive screen, which stays in view: → or n the next slide, ← or p the previous, esc leaves."""

    DEFAULT_CSS: ClassVar[str] = "TourScreen { background: transparent; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "next", "next slide"), Binding("left,p", "previous", "previous slide"),
        Binding("escape", "leave", "leave the tour"), *app_keys("quit", "whole", "help"),
    ]

    def __init__(self, slides: tuple[Slide, ...], dive: DiveScreen, remember: Callable[[], None]) -> None:
        super().__init__()
        self.slides = slides
        self.dive = dive
        self.remember = remember
        self.at = 0
        """The slide on show."""
        self.pending: list[Callable[[], None]] = []
        """The slide's moves not made yet: each waits until the store is done with the one before."""

    def compose(self) -> ComposeResult:
        yield TourPanel()

    def on_mount(self) -> None:
        self.watch(self.dive, "frame", lambda _frame: self._landed(), init=False)
        # the dive says it is free before it takes the frame that freed it: the next move waits for that frame
        self.watch(self.dive, "busy", lambda _busy: self.call_next(self._pump), init=False)
        self._enter(0)

    @property
    def slide(self) -> Slide:
        """The slide on show."""
        return self.slides[self.at]

    def marked(self) -> list[Widget]:
        """The dive's widgets the slide on show marks."""
        return list(self.dive.query(PANES[self.slide.pane]))

    def _enter(self, at: int) -> None:
        self.at = at
        for widget in self.dive.query(f".{MARK}"):
            widget.remove_class(MARK)
        for widget in self.marked():
            widget.add_class(MARK)
        for widget in self.marked()[:1]:  # a pane the stepping column pushed out of sight comes into it
            widget.scroll_visible(animate=False)
        self._place()
        self.call_after_refresh(self._place)
        self.pending = self._moves(self.slide.move)
        self._pump()
        self._say()

    def _place(self) -> None:
        """Dock the panel at the top when the marked pane sits in the lower half: never over the pane it means."""
        shown = [w.region for w in self.marked() if w.region.height]
        lower = bool(shown) and shown[0].y + shown[0].height / 2 > self.dive.size.height / 2
        self.query_one(TourPanel).set_class(lower, "-top")

    def _moves(self, move: Move) -> list[Callable[[], None]]:
        """The slide's move as the dive's own actions, in order."""
        dive = self.dive
        out: list[Callable[[], None]] = []
        if move.wire is not None:
            out.append(lambda: dive.action_wire() if dive.wire != move.wire else None)
        if move.to_end:
            out.append(dive.action_end)
        elif move.step is not None:
            out.append(lambda: self._step(move.step or 0))
        if move.section is not None:
            out.append(lambda: setattr(dive.query_one(LessonPane), "section", move.section))
        if move.opens is Opens.FATES:
            out.append(dive.action_fates)
        return out

    def _step(self, target: int) -> None:
        """Step the dive to ``target`` as the arrows do, one key's move at a time (a newer one supersedes)."""
        dive = self.dive
        if target == 0:
            dive.action_home()
        for _ in range(max(0, target - dive.target)):
            dive.action_forward()
        for _ in range(max(0, dive.target - target)):
            dive.action_back()

    def _pump(self) -> None:
        """Make the slide's next moves while the store is free."""
        while self.pending and not self.dive.busy and self.dive.frame is not None:
            self.pending.pop(0)()

    def _landed(self) -> None:
        self._pump()
        self._say()

    def _say(self) -> None:
        frame = self.dive.frame
        section = self.dive.query_one(LessonPane).section
        text = slide_text(self.slide, frame, self.dive.session.lesson, section) if frame is not None \
            else "The batch is being set up; the slide reads it once it is on screen."
        last = self.at == len(self.slides) - 1
        hint = f"{'→/n finish' if last else '→/n next'} · ←/p back · esc leave"
        self.query_one(TourPanel).show(heading(self.slide, self.at, len(self.slides)), text, hint)

    def action_next(self) -> None:
        if self.at + 1 < len(self.slides):
            self._enter(self.at + 1)
        else:
            self.action_leave()

    def action_previous(self) -> None:
        if self.at > 0:
            self._enter(self.at - 1)

    def action_leave(self) -> None:
        """Leave the tour (finished or skipped): the marks go, and it is not offered again."""
        for widget in self.dive.query(f".{MARK}"):
            widget.remove_class(MARK)
        self.pending.clear()
        self.remember()
        self.dismiss(None)


def _remember(app: App[Any], state: UserState) -> None:
    """Keep the flag that the tour was seen (a thread worker's work); a state that cannot be saved says why."""
    try:
        state.set_flag(SEEN)
    except StateProblem as err:
        app.call_from_thread(app.notify, f"The tour will be offered again: {err}", title="tour", timeout=8)


async def open_tour(app: App[Any], dive: DiveScreen, state: UserState) -> None:
    """Read the lesson's slides off the UI thread, then open the tour over ``dive`` (or say why there is none)."""
    import asyncio

    try:
        slides = await asyncio.to_thread(load_tour, dive.session.lesson)
    except LessonError as err:
        app.notify(str(err), title="no tour", severity="error", timeout=10)
        return
    if not slides:
        app.notify(f"{dive.session.lesson.id} has no tour.", title="no tour", timeout=5)
        return

    def remember() -> None:
        app.run_worker(lambda: _remember(app, state), thread=True, group="state", exit_on_error=False)

    dive.query_one(TryRow).newcomer = False  # taken: the row no longer leads with it
    await app.push_screen(TourScreen(slides, dive, remember))


def offer(app: App[Any], dive: DiveScreen, state: UserState) -> None:
    """Offer the tour, first in the Try it row, when the lesson has one and the learner's state has no flag that
    it was seen (a thread worker's work); a row, not a notice, so no pane is covered at any size."""
    try:
        slides = load_tour(dive.session.lesson)
    except LessonError:
        return  # t says why
    if slides and SEEN not in state.progress().flags:
        app.call_from_thread(setattr, dive.query_one(TryRow), "newcomer", True)
