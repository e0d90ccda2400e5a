"""The dive screen: step the batch, switch the wire, pick fates; every value comes from a worker's real run."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from ....course.sandbox import SandboxBatch
from ....engine.echo_mq.wires import wire
from ....engine.stepper import Step
from ....present.keymap import PACE, Where
from ....present.session import Frame, Played, Session
from ...text.recorder import Recorder
from ..widgets.code_pane import CodePane
from ..widgets.key_bindings import bindings
from ..widgets.lesson_caption import LessonCaption
from ..widgets.lesson_follow import SectionShown
from ..widgets.lesson_pane import LessonPane
from . import dive_tools as tools
from .after_paint import AfterPaint
from .dive_layout import HEIGHTS, WIDTHS, panes, play_stops, set_size_classes
from .dive_messages import Compared, FateRan, FrameReady, Reaped, Refused
from .guard_offer import offer_wire, what_if_elsewhere
from .learner_moves import Remode, next_mode, toggled_guard
from .store_moves import BIG_MOVE, StoreMoves
from .too_small import cover_if_too_small


class DiveScreen(Screen[None]):
    """The main screen: turns key presses into the session's store moves and shows the frames they post back."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(Where.DIVE)
    HORIZONTAL_BREAKPOINTS = WIDTHS
    VERTICAL_BREAKPOINTS = HEIGHTS

    AUTO_FOCUS = ""  # no pane: the arrows scroll the lesson and Home/End step, until tab moves them to a pane

    # var, not reactive: the screen draws nothing itself, and a reactive would repaint every widget on it (the
    # footer's keys and every lesson block too) each time a step lands; the panes repaint themselves.
    frame: var[Frame | None] = var(None, always_update=True)
    """The engine's latest frame, from the worker that made it."""
    playing: var[bool] = var(False)
    """True while the run steps itself every PACE seconds."""
    busy: var[str] = var("")
    """What the store is doing for a batch-wide move, or empty."""
    asking: var[bool] = var(False)
    """True while predict mode waits for a digit before it runs the next step."""
    lesson_toggled: var[bool] = var(False)
    """True when the learner pressed l: the lesson hides on a wide screen, and opens over the batch on a small one."""

    def __init__(self, session: Session, start_step: int = 0) -> None:
        super().__init__()
        self.session = session
        self.moves = StoreMoves(session, self)
        """The store moves, each on a worker that posts its result back here."""
        self.start_step = start_step
        self.target = start_step
        self._timer: Timer | None = None
        self.after_paint = AfterPaint(self)
        self.recorder = Recorder(session.lesson.heading, lambda: session.store.description)
        """What the screen showed, in order, for the transcript ``x`` writes."""

    def compose(self) -> ComposeResult:
        yield from panes(self.session, DiveScreen.frame, DiveScreen.playing, DiveScreen.busy, DiveScreen.asking)

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
        return self.is_mounted and (self.query_one(CodePane).deferred or self.query_one(LessonPane).deferred)

    def on_mount(self) -> None:
        set_size_classes(self, *self.app.size)  # the layout for this size before the first paint
        self.on_resize()
        self._timer = self.set_interval(PACE, self._tick, pause=True)
        early = self.session.take_early()
        if early is None:
            self.open_batch(self.start_step)
        elif early.done() and early.exception() is None:
            self._show(self.moves.adopt(early.result()))  # in already: the first paint shows it
        else:
            self.busy = "setting up the batch…"
            self.moves.wait_early(early)

    def on_resize(self) -> None:
        cover_if_too_small(self.app, self.session.lesson.id)

    def on_section_shown(self, message: SectionShown) -> None:
        self.query_one(LessonCaption).show(message.title, message.at, message.count)

    def watch_playing(self, playing: bool) -> None:
        if self._timer is not None:
            self._timer.resume() if playing else self._timer.pause()

    def watch_lesson_toggled(self, toggled: bool) -> None:
        self.set_class(toggled, "-toggled")

    def open_batch(self, target: int = 0) -> None:
        """Set the batch up afresh from its fates, then step to ``target``."""
        self._start("setting up the batch…")
        self.moves.open(target)

    def _start(self, doing: str) -> None:
        """A batch-wide store move begins: the run stops and the screen says what the store is doing."""
        self.playing = self.asking = False
        self.busy = doing

    def _show(self, frame: Frame) -> None:
        if frame.seq == self.moves.seq:
            self.target = frame.step.index
            self.busy = ""
        self.recorder.frame(frame)
        self.frame = frame
        self.after_paint.frame_shown()  # the collector's pass after the paint, not inside the next step
        if frame.step.done or (self.playing and play_stops(self, frame)):
            self.playing = False

    def on_frame_ready(self, message: FrameReady) -> None:
        self._show(message.frame)

    def on_compared(self, message: Compared) -> None:
        self.recorder.compared(message.compared)
        self._show(message.frame)
        tools.show_compared(self.app, message.compared, message.frame)

    def on_fate_ran(self, message: FateRan) -> None:
        self.recorder.fate_ran(message.run)
        self._show(message.frame)
        tools.show_fate(self.app, self.session, message.run, message.frame, self._apply)

    def _apply(self, index: int, key: str) -> None:
        self._start(f"giving {key} to member {index + 1} and setting the batch up again…")
        self.moves.apply(index, key)

    def on_refused(self, message: Refused) -> None:
        self.busy = ""
        self.notify(message.reason, title="not here", timeout=6)

    def on_reaped(self, message: Reaped) -> None:
        self._show(message.frame)
        self.notify(message.asked.text, title="the reaper", timeout=6)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a worker's error is handled: the store moves stop, and the error view says what went wrong."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self._start("")
            self.query_one(LessonPane).start()
            from .error import show_error  # loaded by the first error, not at start-up

            show_error(self.app, event.worker.error, self.session.store, lambda: self.open_batch(self.target))

    def _idle(self, settled: bool = True) -> Played | None:
        """The run on screen if the store is free (and, if ``settled``, no step is in flight); else None, said."""
        frame = self.frame
        if self.busy or frame is None or frame.played is None or (settled and frame.step.index != self.target):
            self.notify("the store is busy; one moment", severity="warning", timeout=2)
            return None
        return frame.played

    def _step_to(self, target: int) -> None:
        if self.frame is not None and not self.busy:  # a long run says what it does until its frame lands
            self.busy = f"running to step {target:,}…" if abs(target - self.target) > BIG_MOVE else ""
            self.target = target
            self.moves.goto(target)

    def action_forward(self) -> None:
        frame = self.frame
        if frame is not None and frame.played is not None and frame.played.asks is not None \
                and self.target == frame.step.index:
            self.asking, self.playing = True, False
        elif frame is not None and self.target < frame.step.count:
            self._step_to(self.target + 1)

    def action_back(self) -> None:
        if not tools.console_back(self) and self.target > 0:  # a console write at this step is undone first
            self._step_to(self.target - 1)

    def action_home(self) -> None:
        self._step_to(0)

    def action_end(self) -> None:
        if self.frame is not None:
            self._step_to(self.frame.step.count)

    def action_play(self) -> None:
        if self.frame is not None and not self.playing and self.frame.step.done:
            self._step_to(0)
        self.playing = not self.playing

    def _tick(self) -> None:
        if self.frame is not None and self.frame.step.done:
            self.playing = False
        else:
            self.action_forward()

    def action_wire(self) -> None:
        if self._idle(settled=False) is None:
            return
        other = wire(self.wire).other
        if not other.supports(self.session.store):
            self.notify(other.refusal(self.session.store), timeout=6)
        self._start("running the batch on both wires…")
        self.moves.switch(other.number)

    def action_fates(self) -> None:
        if self._idle(settled=False) is not None:
            tools.pick_fate(self.app, self.session, self._fate)

    def _fate(self, key: str) -> None:
        self._start(f"running the four verbs on {key}…")
        self.moves.fate(key)

    def _remode(self, move: Remode) -> None:
        if move.notice:
            self.notify(move.notice, timeout=5)
        self._start(move.doing)
        self.moves.set_mode(move.run_mode, move.guard_off)

    def action_mode(self) -> None:
        if (played := self._idle()) is not None:
            self._remode(next_mode(played, len(self.session.held)))

    def action_guard(self) -> None:
        if (played := self._idle()) is None:
            return
        elsewhere = what_if_elsewhere(played, self.wire)
        if elsewhere is None:
            self._remode(toggled_guard(played))
        else:
            offer_wire(self.app, self.wire, elsewhere, lambda: self._what_if_on(elsewhere))

    def _what_if_on(self, wire: int) -> None:
        self._start(f"moving to wire {wire} and running the what-if without the guard…")
        self.moves.what_if_on(wire)

    def action_reap(self) -> None:
        if self._idle() is not None:
            self.playing = False
            self.moves.reap()

    def action_predict(self) -> None:
        if (played := self._idle()) is not None:
            self.asking = False
            self.moves.predict(not played.predicting)

    def action_guess(self, key: int) -> None:
        played = self.frame.played if self.frame is not None and self.asking else None
        if played is None or played.asks is None or self.frame is None:
            return
        if not 1 <= key <= len(played.choices):
            self.notify(f"choose 1 to {len(played.choices)}", severity="warning", timeout=2)
            return
        self.asking = False
        self.target = self.frame.step.index + 1
        self.moves.guess(played.asks, played.choices[key - 1], self.target)

    def action_section(self, delta: int) -> None:
        self.query_one(LessonPane).browse(delta)

    def action_scroll(self, by: int | float) -> None:
        """Scroll the lesson (the arrows and pages, while no pane has the focus)."""
        self.query_one(LessonPane).action_scroll(by)

    def action_lesson(self) -> None:
        self.lesson_toggled = not self.lesson_toggled

    def action_help(self) -> None:
        tools.open_help(self.app)

    def action_sandbox(self) -> None:
        if self._idle(settled=False) is not None:
            self.playing = False
            tools.open_sandbox(self.app, self.session, self._restart)

    def _restart(self, batch: SandboxBatch) -> None:
        self._start(f"setting up the edited batch of {len(batch.members):,} members…")
        self.moves.restart(batch)

    def action_cost(self) -> None:
        if self._idle(settled=False) is not None:
            self.playing = False
            tools.open_cost(self.app, self.session)

    def action_transcript(self) -> None:
        tools.write_transcript(self.app, self.session, self.recorder)
