"""The apps the terminal benchmark runs in a tmux pane: the one-widget baseline, and the dive on a batch of N members.

``python term_apps.py one`` is a one-widget Textual app whose label counts the → presses (the floor of a key press).
``python term_apps.py dive ROOT BACKEND MEMBERS [PROBE]`` opens batches-03 from the checkout ROOT as the CLI does
(collector held until the first frame, the store opened in the background) but on a batch of MEMBERS members
(0: the lesson's own batch); with PROBE, a 1 ms ticker on the app's event loop writes every gap over 2 ms to the
file PROBE as ``monotonic-end gap`` lines when the app exits.
``python term_apps.py serve-one PORT`` serves the one-widget app through textual-serve (the browser baseline).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path
from typing import ClassVar

HERE = Path(__file__).resolve()


def one() -> int:
    """The one-widget app: a label; → changes it, q quits."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class One(App[None]):
        BINDINGS: ClassVar = [("right", "more", "more"), ("q", "quit", "quit")]
        presses = 0

        def compose(self) -> ComposeResult:
            yield Static("one widget · presses 0", id="label")

        def action_more(self) -> None:
            self.presses += 1
            self.query_one("#label", Static).update(f"one widget · presses {self.presses}")

    One().run()
    return 0


def members(count: int) -> tuple[str, ...]:
    """A batch of ``count`` members in the fates the in-process benchmark uses."""
    return (("live", "stale", "live", "reaped") * (count // 4 + 1))[:count]


async def _ticker(gaps: list[tuple[float, float]]) -> None:
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        if now - last > 0.002:
            gaps.append((now, now - last - 0.001))
        last = now


def dive(root: str, backend: str, count: int, probe: str | None) -> int:
    """The dive from ``root`` on ``backend`` with ``count`` members, as the CLI runs it."""
    sys.path.insert(0, root)
    from emq_dive.views.tui import heap
    getattr(heap, "hold_for_start_up", lambda: None)()
    from emq_dive.course.lessons import load
    from emq_dive.engine.stores import open_store
    try:
        store = open_store(backend, background=backend in ("auto", "valkey"))
    except TypeError:  # a tree from before the background start
        store = open_store(backend)
    try:
        from emq_dive.views.tui.app import make_app
        lesson = load("batches-03")
        app = make_app(lesson, store, batch=members(count) if count else None)
        app.offer_tour = False  # the tour's offer would sit over the store pane for the presses timed (a tree from
        # before the tour has no offer: the attribute is then unused)
        for each in (signal.SIGTERM, signal.SIGHUP):  # the bench stopping its tmux: the store still closes
            signal.signal(each, lambda signum, frame: app.exit())
        gaps: list[tuple[float, float]] = []

        async def run() -> None:
            ticker = asyncio.get_running_loop().create_task(_ticker(gaps)) if probe else None
            try:
                await app.run_async()
            finally:
                if ticker:
                    ticker.cancel()

        asyncio.run(run())
        if probe:
            Path(probe).write_text("".join(f"{at:.6f} {gap:.6f}\n" for at, gap in gaps))
    finally:
        store.close()
        getattr(heap, "release", lambda: None)()
    return 0


def serve_one(port: int) -> int:
    """Serve the one-widget app through textual-serve on ``port``."""
    from textual_serve.server import Server
    Server(f"exec {sys.executable} {HERE} one", host="127.0.0.1", port=port, title="one widget").serve()
    return 0


if __name__ == "__main__":
    what, *rest = sys.argv[1:]
    if what == "one":
        sys.exit(one())
    if what == "serve-one":
        sys.exit(serve_one(int(rest[0])))
    sys.exit(dive(rest[0], rest[1], int(rest[2]), rest[3] if len(rest) > 3 else None))
