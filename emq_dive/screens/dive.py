"""The dive screen: step the batch, switch the wire, pick fates; every value comes from a worker's real run."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from ..fates import BY_KEY
from ..session import Frame, Session, with_seq
from ..stepper import Step
from ..text_modes.transcript import Recorder
from ..widgets.batch_table import BatchTable
from ..widgets.code_pane import CodePane
from ..widgets.dive_header import DiveHeader
from ..widgets.lesson_pane import LessonPane
from ..widgets.mode_notes import ModeNotes
from ..widgets.predict_bar import PredictBar
from ..widgets.race_timeline import RaceTimeline
from ..widgets.step_bar import StepBar
from ..widgets.store_pane import StorePane
from ..widgets.wire_pane import WirePane
from . import dive_tools as tools
from .dive_keys import KEYS
from .learner_moves import LearnerMoves
from .store_moves import StoreMoves
from .too_small import TooSmall, too_small

PACE = 1.2
"""Seconds between steps while playing."""


class DiveScreen(LearnerMoves):
    """The main screen: turns key presses into the session's store moves and shows the frames they make."""

    BINDINGS: ClassVar[list[BindingType]] = KEYS

    AUTO_FOCUS = "#lesson"  # the arrows scroll the lesson until tab takes them to the wire or store pane

    # var, not reactive: the screen draws nothing itself, and a reactive would repaint every widget on it
    # (the footer's keys and every lesson block too) each time a step lands; the panes repaint themselves.
    frame: var[Frame | None] = var(None, always_update=True)
    """The engine's latest frame, from the worker that made it."""
    playing: var[bool] = var(False)
    """True while the run steps itself every PACE seconds."""
    busy: var[str] = var("")
    """What the store is doing for a batch-wide move, or empty."""
    lesson_toggled: var[bool] = var(False)
    """True when the learner pressed l: the lesson hides on a wide screen, and takes over a narrow one."""
    narrow: var[bool] = var(False)
    """True below 100 columns or 32 rows, where the secondary panes fold away."""

    def __init__(self, session: Session, start_step: int = 0) -> None:
        super().__init__(session)
        self.start_step = start_step
        self.target = start_step
        self._timer: Timer | None = None
        self.recorder = Recorder(session.lesson.heading, lambda: session.store.description)
        """What the screen showed, in order, for the transcript ``x`` writes."""

    def compose(self) -> ComposeResult:
        store, lesson = self.session.store, self.session.lesson
        header = DiveHeader().data_bind(DiveScreen.frame)
        header.heading, header.backend, header.wire = lesson.heading, store.description, self.session.wire
        header.store = store
        yield header
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield StepBar().data_bind(DiveScreen.frame, DiveScreen.playing, DiveScreen.busy)
                yield ModeNotes().data_bind(DiveScreen.frame)
                yield PredictBar().data_bind(DiveScreen.frame, DiveScreen.asking)
                yield RaceTimeline().data_bind(DiveScreen.frame)
                yield BatchTable().data_bind(DiveScreen.frame)
                code = CodePane().data_bind(DiveScreen.frame)
                code.server = store.kind != "fakeredis"
                yield code
                with Horizontal(id="bottom"):
                    wire = WirePane().data_bind(DiveScreen.frame)
                    wire.server = code.server
                    yield wire
                    yield StorePane().data_bind(DiveScreen.frame)
            yield LessonPane(lesson, id="lesson").data_bind(DiveScreen.frame)
        yield Footer()

    @property
    def step(self) -> Step | None:
        """The step on screen."""
        return self.frame.step if self.frame is not None else None

    @property
    def wire(self) -> int:
        """The wire the stepped run uses: the frame's, or the one asked for until the first frame."""
        return self.frame.wire if self.frame is not None else self.session.wire

    @property
    def deferred(self) -> bool:
        """True while a pane is still filling in what it leaves until after the first frame."""
        if not self.is_mounted:
            return False
        return self.query_one(CodePane).deferred or self.query_one(LessonPane).deferred

    def on_mount(self) -> None:
        self.on_resize()  # the layout for this size before the first paint, not after it
        self._timer = self.set_interval(PACE, self._tick, pause=True)
        early = self.session.take_early()
        if early is None:
            self.open_batch(self.start_step)
        elif early.done() and early.exception() is None:
            self._show(with_seq(early.result(), self._next_seq()))  # in already: the first paint shows it
        else:
            self.busy = "setting up the batch…"
            self._wait_early(early, self._next_seq())

    def on_resize(self) -> None:
        self.narrow = self.size.width < 100 or self.size.height < 32
        width, height = self.app.size
        if too_small(width, height) and not any(isinstance(s, TooSmall) for s in self.app.screen_stack):
            self.app.push_screen(TooSmall())

    def watch_narrow(self, narrow: bool) -> None:
        self.set_class(narrow, "-narrow")
        self.query_one(Footer).show_command_palette = not narrow  # ? help and q quit keep their room

    def watch_playing(self, playing: bool) -> None:
        if self._timer is not None:
            self._timer.resume() if playing else self._timer.pause()

    def open_batch(self, target: int = 0) -> None:
        """Set the batch up afresh from its fates, then step to ``target``."""
        self.playing = False
        self.busy = "setting up the batch…"
        self._open(target, self._next_seq())

    # -- results -------------------------------------------------------------

    def _show(self, frame: Frame) -> None:
        if frame.seq == self.seq:
            self.target = frame.step.index
            self.busy = ""
        self.recorder.frame(frame)
        self.frame = frame
        if frame.step.done:
            self.playing = False

    def on_store_moves_frame_ready(self, message: StoreMoves.FrameReady) -> None:
        self._show(message.frame)

    def on_store_moves_compared(self, message: StoreMoves.Compared) -> None:
        self.recorder.compared(message.compared)
        self._show(message.frame)
        from .compare import (
            CompareView,  # the modal screens load on first use, not before the first frame
        )

        self.app.push_screen(CompareView(message.compared, message.frame.fates, message.frame.wire))

    def on_store_moves_fate_ran(self, message: StoreMoves.FateRan) -> None:
        self.recorder.fate_ran(message.run)
        self._show(message.frame)
        run = message.run
        members = [(job, fate) for (job, _), fate in zip(message.frame.held, message.frame.fates, strict=True)]
        from .fate_view import FateView

        view = FateView(run, self.session.lesson.fates.get(run.fate.key, ""), members)
        self.app.push_screen(view, lambda index: self._applied(index, run.fate.key))

    def _applied(self, index: int | None, key: str) -> None:
        if index is not None:
            self.busy = f"giving {key} to member {index + 1} and setting the batch up again…"
            self._apply(index, key, self._next_seq())

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a worker's error is handled: it becomes the app's error view, never a traceback."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.app.show_error(event.worker.error)  # type: ignore[attr-defined]

    def failed(self) -> None:
        """A worker raised: the store moves stop until the batch is set up again."""
        self.busy = ""
        self.playing = False
        self.query_one(LessonPane).start()

    # -- actions ---------------------------------------------------------------

    def _ready(self) -> bool:
        if self.busy or self.frame is None:
            self.notify("the store is busy; one moment", severity="warning", timeout=2)
            return False
        return True

    def _step_to(self, target: int) -> None:
        if self.frame is None or self.busy:
            return
        self.target = target
        self._goto(target, self._next_seq())

    def action_forward(self) -> None:
        """Run the next step against the store (in predict mode, ask for a guess first)."""
        if self.frame is not None and self.frame.played is not None and self.frame.played.asks is not None \
                and self.target == self.frame.step.index:
            self.asking, self.playing = True, False
            return
        if self.frame is not None and self.target < self.frame.step.count:
            self._step_to(self.target + 1)

    def action_back(self) -> None:
        """Undo the last step in the store and show the one before."""
        if self.target > 0:
            self._step_to(self.target - 1)

    def action_home(self) -> None:
        """Back to the handle, before anything was sent."""
        self._step_to(0)

    def action_end(self) -> None:
        """Run every remaining step."""
        if self.frame is not None:
            self._step_to(self.frame.step.count)

    def action_play(self) -> None:
        """Play or pause the run at a readable pace."""
        if self.frame is not None and not self.playing and self.frame.step.done:
            self._step_to(0)
        self.playing = not self.playing

    def _tick(self) -> None:
        if self.frame is not None and self.frame.step.done:
            self.playing = False
        else:
            self.action_forward()

    def action_wire(self) -> None:
        """Re-run the batch on the other wire from the same start and compare both twins."""
        if not self._ready():
            return
        other = 6 if self.wire == 4 else 4
        if other == 6 and not self.session.store.native:
            self.notify(f"wire 6 is not on this backend: {self.session.store.native_reason}", timeout=6)
        self.playing = False
        self.busy = "running the batch on both wires…"
        self._switch(other, self._next_seq())

    def action_fates(self) -> None:
        """Pick a job's fate and run the four verbs on it."""
        if not self._ready():
            return
        store = self.session.store
        from .fate_picker import FatePicker

        picker = FatePicker(self.session.lesson.fates, store)
        self.app.push_screen(picker, self._picked)

    def _picked(self, key: str | None) -> None:
        if key is not None and key in BY_KEY:
            self.playing = False
            self.busy = f"running the four verbs on {key}…"
            self._fate(key, self._next_seq())

    def action_section(self, delta: int) -> None:
        """Browse the lesson's sections."""
        self.query_one(LessonPane).browse(delta)

    def action_lesson(self) -> None:
        """Show or hide the lesson pane (on a narrow screen, swap it with the stepping panes)."""
        self.lesson_toggled = not self.lesson_toggled

    def watch_lesson_toggled(self, toggled: bool) -> None:
        self.set_class(toggled, "-toggled")

    def action_help(self) -> None:
        """Show the keys and what each pane shows."""
        from .help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_sandbox(self) -> None:
        """Edit the batch in the sandbox; running it restarts the dive from step 0 with the new batch."""
        if self._ready():
            tools.open_sandbox(self)

    def action_cost(self) -> None:
        """Measure what one lease costs on this store: one batch, N singles, natively."""
        if self._ready():
            tools.open_cost(self)

    def action_transcript(self) -> None:
        """Write the run so far as Markdown to the working directory and say where it went."""
        tools.write_transcript(self)
