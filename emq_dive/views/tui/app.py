"""The dive's Textual app: the screens, the global keys and the command palette."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import BindingType
from textual.command import Provider
from textual.screen import Screen
from textual.worker import WorkerCancelled, WorkerFailed

from ...course.lessons import Lesson
from ...course.user_state import UserState
from ...engine.echo_mq import wires
from ...engine.stores.protocol import StoreLike
from ...present import reset
from ...present.keymap import Where
from ...present.session import Session
from . import heap
from .screens import breakpoints
from .screens.console_moves import ConsoleUndone, console_of, settled
from .screens.dive import DiveScreen
from .screens.dive_layout import set_size_classes
from .screens.dive_messages import Compared, FateRan
from .screens.mission_moves import MissionMoves
from .screens.shot_size import SCREENSHOT_SIZE
from .svg_runs import runs_start_with_text
from .widgets.key_bindings import bindings
from .widgets.style import faint_css

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from .screens.console_screen import ConsoleReplied  # imported when the console first opens, not at start-up

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holding the GIL runs before one waiting for it gets a turn, while the app runs (Python's
default is 5 ms): a store worker waiting on each reply would otherwise wait that long per round trip whenever
the UI thread is busy, which made the first frame's set-up on a real server ten times slower."""
SETTLE_HEAP_AFTER = 1.0
"""Seconds after the first frame when start-up is over; what it built is then frozen, out of the collector's
full passes (a pass over it took tens of milliseconds, a stall a step would show)."""
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end the app as ``q`` does (systemd's stop, a closed terminal): keys deleted, servers stopped."""


def dive_commands() -> type[Provider]:
    """The palette's provider of the dive's actions, imported when the palette first opens, not at start-up."""
    from .screens.palette import DiveCommands
    return DiveCommands


class DiveApp(App[None]):
    """``emq-dive batches-03``: step a batch lease extension against a live store."""

    CSS_PATH: ClassVar[str] = "app.tcss"
    CSS: ClassVar[str] = faint_css()
    TITLE = "emq-dive"
    BINDINGS: ClassVar[list[BindingType]] = bindings(Where.APP)
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {dive_commands}  # Textual's own after

    def __init__(self, session: Session, step: int = 0, theme: str = "textual-dark", mission: int | None = None
                 ) -> None:
        super().__init__()
        self.session = session
        self.missions = MissionMoves(self, session)
        """The lesson's missions (M), the one under way, and its check after every move."""
        self.start_mission = mission
        self.start_step = step
        self.theme = theme
        self.baseline = reset.Baseline.of(session)
        """The lesson's batch as the dive opened, which ``R`` puts back."""
        self._switch_interval = sys.getswitchinterval()
        self._given_back: list[tuple[asyncio.AbstractEventLoop, int, Any]] = []
        self.whole = False
        """True when the panes show keys and clock values whole (``v``), not as ``emq:{q}:`` and ``now+30000``."""
        self.offer_tour: bool | None = None
        """Whether start-up offers the tour to a learner who has not seen it; None offers it in a terminal or a
        browser tab, never headless (a screenshot, a test)."""

    def on_load(self) -> None:
        self._exit_on_signals()
        sys.setswitchinterval(min(SWITCH_INTERVAL, self._switch_interval))
        # the store's set-up overlaps the app's start; the screen picks the frame up when it mounts
        early = self.session.begin_early()
        self.run_worker(partial(self.session.open_early, early, self.start_step), thread=True, group="store",
                        exit_on_error=False, name="open the batch")

    def on_ready(self) -> None:
        self.set_timer(SETTLE_HEAP_AFTER, heap.settle)
        if self.offer_tour if self.offer_tour is not None else not self.is_headless:
            from .screens.tour import offer
            self.run_worker(partial(offer, self, self.dive, UserState.from_environ()), thread=True, group="state",
                            exit_on_error=False, name="offer the tour")
        if self.start_mission is not None:
            self.missions.start(self.start_mission)

    def _exit_on_signals(self) -> None:
        """Exit at once on SIGTERM or SIGHUP: the loop's own handler wakes it, where a plain one waited for a key."""
        loop = asyncio.get_running_loop()
        for signum in EXIT_SIGNALS:
            previous = signal.getsignal(signum)
            try:
                loop.add_signal_handler(signum, self.exit, None, 128 + signum)
            except (RuntimeError, ValueError):  # not the main thread (an embedding test): its own handlers stay
                continue
            self._given_back.append((loop, signum, previous))  # put back at unmount

    def on_unmount(self) -> None:
        for loop, signum, previous in self._given_back:
            loop.remove_signal_handler(signum)
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._given_back.clear()
        self.session.store.interrupt()  # a worker stuck on a stalled server would hold the exit up for good
        heap.hand_back()  # what start-up froze, so an embedding process (a test run, say) can free it
        sys.setswitchinterval(self._switch_interval)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG of the screen, with no text run starting on spaces (some viewers would drop them)."""
        return runs_start_with_text(super().export_screenshot(title=title, simplify=simplify))

    def get_default_screen(self) -> Screen[Any]:
        """The dive screen is the app's base screen (no blank screen to compose, paint and switch away from), sized
        before it mounts: setting its breakpoint classes on mount would style every pane twice before the first
        paint."""
        screen = DiveScreen(self.session, self.start_step)
        set_size_classes(screen, *self.size, update=False)
        return screen

    @property
    def dive(self) -> DiveScreen:
        """The main screen, wherever the screen stack stands."""
        return next(s for s in self.screen_stack if isinstance(s, DiveScreen))

    # -- the console (:) and reset (R) ---------------------------------------------------------------------------

    def action_console(self) -> None:
        """Open the console's prompt over the dive."""
        from .screens.console_screen import ConsoleScreen

        if not isinstance(self.screen, ConsoleScreen):
            self.push_screen(ConsoleScreen(console_of(self.session), self.dive))

    def on_console_undone(self, message: ConsoleUndone) -> None:
        self.notify("back put back what the console's write replaced", title="console", timeout=4)

    def action_reset(self) -> None:
        """Put the lesson's batch back, asking once first when the reset would lose something."""
        dive = self.dive
        if not settled(dive):
            self.notify("the store is busy; one moment", severity="warning", timeout=2)
            return
        lost = reset.losses(self.session, self.baseline, console_of(self.session))
        if not lost:
            self._reset()
            return
        from .screens.reset_confirm import ResetConfirm

        def answered(yes: bool | None) -> None:
            if yes and settled(self.dive):
                self._reset()

        self.push_screen(ResetConfirm(reset.question(lost)), answered)

    def _reset(self) -> None:
        reset.prepare(self.session, self.baseline)
        self.dive.open_batch(0)

    def action_whole(self) -> None:
        """Show the queue's keys and the clock values whole in the wire and store panes, or short again."""
        self.whole = not self.whole
        for screen in self.screen_stack:  # the dive's panes, and the answer cards of a fate view on top of it
            for pane in screen.query("WirePane, StorePane, AnswerCard, LocalsPane"):
                pane.whole = self.whole  # type: ignore[attr-defined]

    def action_help(self) -> None:
        """Show the keys and what each pane shows."""
        self.dive.action_help()

    def action_tour(self) -> None:
        """Open the tour over the dive: its slides move the dive screen and mark the pane each talks about."""
        from .screens.tour import TourScreen, open_tour
        if not isinstance(self.screen, TourScreen):
            self.run_worker(open_tour(self, self.dive, UserState.from_environ()), group="tour", exclusive=True,
                            exit_on_error=False)

    def action_script(self) -> None:
        """Open the running Lua script to edit it (``E``): saved, the dive restarts stepping yours."""
        from .screens.script_editor import open_script_editor

        if isinstance(self.screen, DiveScreen):
            open_script_editor(self, self.session)

    # -- missions: thin; the work is in screens/mission_moves.py -------------------------------------------------
    def action_missions(self) -> None:
        """List the missions; the one chosen starts."""
        self.missions.open_list()

    def action_mission_hint(self) -> None:
        """The hint of the mission under way."""
        self.missions.hint()

    def action_mission_reset(self) -> None:
        """Put the mission's start state back."""
        self.missions.reset()

    def action_mission_goal(self) -> None:
        """Show the mission's goal as the store or the reply must look."""
        self.missions.goal()

    def on_console_replied(self, message: ConsoleReplied) -> None:
        """Tell the missions what a console line sent and the store answered."""
        from ...present.console_seen import seen_sent  # the console's own modules load when it first opens

        seen = seen_sent(message.outcome, message.frame)
        if seen is not None:
            self.missions.observe(seen)

    def on_fate_ran(self, message: FateRan) -> None:
        self.missions.answers((*message.run.answers, *message.run.raw_answers))

    def on_compared(self, message: Compared) -> None:
        self.missions.answers((message.compared.scripted, message.compared.native))

    def action_breakpoint(self) -> None:
        """Toggle a breakpoint on the code pane's highlighted line (on the dive screen only)."""
        if self.screen is self.dive:
            breakpoints.toggle(self.dive)


def make_app(lesson: Lesson, store: StoreLike, *, wire: int = 4, step: int = 0, batch: Sequence[str] | None = None,
             theme: str = "textual-dark", mission: int | None = None) -> DiveApp:
    """The dive app on ``store`` (which the caller opens and closes), at ``step`` on ``wire`` (or on ``mission``)."""
    wires.wire(wire)  # ValueError for a wire there is not
    return DiveApp(Session(store, lesson, batch, wire), step=max(0, step), theme=theme, mission=mission)


async def wait_ready(app: DiveApp, pilot: Pilot[Any]) -> None:
    """Wait until every worker has finished, the panes that fill in after the first frame have, and the screen
    shows the result."""
    while True:
        try:
            await app.workers.wait_for_complete()
        except (WorkerFailed, WorkerCancelled):  # an error shows in the app; a cancelled worker has a successor
            pass
        await pilot.pause()
        if not any(w.is_running for w in app.workers) and not app.dive.deferred:
            break
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def save_screenshot(app: DiveApp, path: str | Path, size: tuple[int, int] = SCREENSHOT_SIZE) -> Path:
    """Run ``app`` headless at ``size`` (columns, rows) until its first full frame at the requested step, write it
    as SVG, and exit."""
    target = Path(path)

    async def auto(pilot: Pilot[Any]) -> None:
        await wait_ready(app, pilot)
        app.save_screenshot(target.name, str(target.parent or "."))
        app.exit()

    await app.run_async(headless=True, size=size, auto_pilot=auto)
    return target
