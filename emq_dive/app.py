"""The dive's Textual app: the screens, the global keys, the command palette and the worker error handler."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import WorkerCancelled, WorkerFailed

from . import heap
from .lessons import Lesson
from .screens.dive import DiveScreen
from .session import Session
from .stores.protocol import StoreLike

if TYPE_CHECKING:
    from textual.pilot import Pilot

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holding the GIL runs before one waiting for it gets a turn, while the app runs (Python's
default is 5 ms): a store worker waiting on each reply would otherwise wait that long per round trip whenever
the UI thread is busy, which made the first frame's set-up on a real server ten times slower."""
SETTLE_HEAP_AFTER = 1.0
"""Seconds after the first frame when start-up is over; what it built is then frozen, out of the collector's
full passes (a pass over it took tens of milliseconds, a stall a step would show)."""
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end the app as ``q`` does (systemd's stop, a closed terminal): keys deleted, servers stopped."""


class DiveApp(App[None]):
    """``emq-dive batches-03``: step a batch lease extension against a live store."""

    CSS_PATH: ClassVar[str] = "app.tcss"
    TITLE = "emq-dive"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("question_mark", "help", "help"),
    ]

    def __init__(self, session: Session, step: int = 0, theme: str = "textual-dark") -> None:
        super().__init__()
        self.session = session
        self.start_step = step
        self.theme = theme
        self._switch_interval = sys.getswitchinterval()
        self._given_back: list[tuple[asyncio.AbstractEventLoop, int, Any]] = []

    def on_load(self) -> None:
        self._exit_on_signals()
        sys.setswitchinterval(min(SWITCH_INTERVAL, self._switch_interval))
        # the store's set-up overlaps the app's start; the screen picks the frame up when it mounts
        early = self.session.begin_early()
        self.run_worker(partial(self.session.open_early, early, self.start_step), thread=True, group="store",
                        exit_on_error=False, name="open the batch")

    def on_ready(self) -> None:
        self.set_timer(SETTLE_HEAP_AFTER, heap.settle)

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
        # what start-up froze goes back to the collector, so an embedding process (a test run, say) can free it
        gc.unfreeze()
        sys.setswitchinterval(self._switch_interval)

    def get_default_screen(self) -> Screen[Any]:
        """The dive screen is the app's base screen (no blank screen to compose, paint and switch away from)."""
        return DiveScreen(self.session, self.start_step)

    @property
    def dive(self) -> DiveScreen:
        """The main screen, wherever the screen stack stands."""
        return next(s for s in self.screen_stack if isinstance(s, DiveScreen))

    def action_help(self) -> None:
        """Show the keys and what each pane shows."""
        self.dive.action_help()

    def show_error(self, error: BaseException) -> None:
        """Show a worker's error in the in-app error view."""
        from .screens.error import ErrorView, describe  # loaded by the first error, not at start-up

        self.dive.failed()
        title, body = describe(error, self.session.store.stopped)
        self.push_screen(ErrorView(title, body), self._after_error)

    def _after_error(self, choice: str | None) -> None:
        if choice == "retry":
            self.session.store.respawn()  # a new server in place of one that stopped; the set-up waits for it
            self.dive.open_batch(self.dive.target)
        elif choice == "quit":
            self.exit()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        dive = self.dive
        yield SystemCommand("Step forward", "Run the next step against the store (→)", dive.action_forward)
        yield SystemCommand("Step back", "Undo the last step in the store (←)", dive.action_back)
        yield SystemCommand("Back to the handle", "Restore the start, nothing sent (Home)", dive.action_home)
        yield SystemCommand("Run to the end", "Run every remaining step and check it (End)", dive.action_end)
        yield SystemCommand("Play / pause", "Step at a readable pace (space)", dive.action_play)
        yield SystemCommand("Switch the wire", "Re-run on the other twin and compare (w)", dive.action_wire)
        yield SystemCommand("Pick a fate", "Run the four verbs on a job's fate (f)", dive.action_fates)
        yield SystemCommand("Run mode", "One batch ⇄ N single calls of extend_lock (m)", dive.action_mode)
        yield SystemCommand("Guard off (what-if)", "The batch script without its ZSCORE guard (g)", dive.action_guard)
        yield SystemCommand("Race a reaper", "Reap the next member not yet checked (k)", dive.action_reap)
        yield SystemCommand("Predict mode", "Guess each member's verdict before its step (p)", dive.action_predict)
        yield SystemCommand("Next lesson section", "Browse the lesson (])", lambda: dive.action_section(1))
        yield SystemCommand("Previous lesson section", "Browse the lesson ([)", lambda: dive.action_section(-1))
        yield SystemCommand("Show / hide the lesson", "Toggle the lesson pane (l)", dive.action_lesson)
        yield SystemCommand("Edit the batch", "The sandbox: members, fates, tokens, lease; save as a lesson (e)",
                            dive.action_sandbox)
        yield SystemCommand("Measure the cost", "One lease as a batch, as N singles, natively, on this store (c)",
                            dive.action_cost)
        yield SystemCommand("Write the transcript", "The run so far as Markdown in the working directory (x)",
                            dive.action_transcript)
        yield SystemCommand("Help", "The keys and the panes (?)", dive.action_help)


def make_app(lesson: Lesson, store: StoreLike, *, wire: int = 4, step: int = 0, batch: Sequence[str] | None = None,
             theme: str = "textual-dark") -> DiveApp:
    """The dive app on ``store`` (which the caller opens and closes), at ``step`` on ``wire``."""
    if wire not in (4, 6):
        raise ValueError(f"wire must be 4 or 6, not {wire!r}")
    return DiveApp(Session(store, lesson, batch, wire), step=max(0, step), theme=theme)


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


async def save_screenshot(app: DiveApp, path: str | Path, size: tuple[int, int] = (120, 40)) -> Path:
    """Run ``app`` headless until its first full frame at the requested step, write it as SVG, and exit."""
    target = Path(path)

    async def auto(pilot: Pilot[Any]) -> None:
        await wait_ready(app, pilot)
        app.save_screenshot(target.name, str(target.parent or "."))
        app.exit()

    await app.run_async(headless=True, size=size, auto_pilot=auto)
    return target
