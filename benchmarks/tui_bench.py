"""Measure the dive's TUI: start to first frame, key press to screen updated, and a 10,000-member batch.

Run ``python benchmarks/tui_bench.py``; it prints, it does not assert. ``--root DIR`` measures another
checkout of the project (an older commit, say) with this same script, so two trees compare like for like;
``--against DIR`` runs a second checkout's start-up interleaved with this one's and the one-widget app's.

"Painted" means a compositor refresh of the screen (what a terminal would be sent; headless, the frame is
still composed in full). Each figure is the time of the last paint a key press caused that changed a cell on
screen, taken from a hook on the screen's refresh, so the waiting loop's own granularity never enters the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

BASELINE = """
import time, sys
t0 = time.perf_counter()
import redis, fakeredis
from textual.app import App
from textual.widgets import Static
class One(App):
    def compose(self):
        yield Static("one widget")
    def on_mount(self):
        self.call_after_refresh(self.done)
    def done(self):
        print(time.perf_counter() - t0); self.exit()
One().run(headless=True, size=(120, 40))
"""

DIVE = """
import time, sys
t0 = time.perf_counter()
sys.path.insert(0, %r)
# start-up runs as the CLI runs it: the collector held until the first frame settles, then the store opened
# before the app is imported, so a server the backend starts comes up behind the app's import and start
from emq_dive import heap
getattr(heap, "hold_for_start_up", lambda: None)()  # a tree from before the hold runs without it
from emq_dive.course.lessons import load
from emq_dive.engine.stores import open_store
try:
    store = open_store(%r, background=True)
except TypeError:  # a tree from before the background start opens its store in the foreground
    store = open_store(%r)
ready = {"at": time.perf_counter() - t0}
if getattr(store, "starting", None) is not None:
    store.starting.add_done_callback(lambda _: ready.update(at=time.perf_counter() - t0))
from emq_dive.views.tui.app import make_app, wait_ready
from emq_dive.views.tui.screens.dive import DiveScreen
shown = {"text": None, "at": float("nan")}
refresh = DiveScreen._compositor_refresh
def painted(self):
    # the first frame: the last paint that changed the text of the stepping column (step bar, batch, code,
    # wire and store panes) once the store's step 0 is in; later paints there only recolour (the code's
    # syntax colours), and the lesson column fills in after it
    refresh(self)
    if self.frame is None:
        return
    left = self.query_one("#left").region
    lines = self._compositor.render_strips()[left.y:left.bottom]
    text = [strip.crop(left.x, left.right).text for strip in lines]
    if text != shown["text"]:
        shown["text"], shown["at"] = text, time.perf_counter() - t0
DiveScreen._compositor_refresh = painted
app = make_app(load("batches-03"), store)
async def auto(pilot):
    await wait_ready(app, pilot)
    print(shown["at"], time.perf_counter() - t0, ready["at"])
    app.exit()
app.run(headless=True, size=(120, 40), auto_pilot=auto)
store.close()
"""


def _figures(code: str) -> list[float]:
    # bytecode is cached, as an installed package's is, so neither side pays for compiling its imports
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return [float(x) for x in out.stdout.strip().splitlines()[-1].split()]


def dive_snippet(root: Path, backend: str) -> str:
    """The start-up measurement of the checkout at ``root`` on ``backend``."""
    return DIVE % (str(root), backend, backend)


def startup(base: str, *others: str, runs: int = 11) -> list[tuple[list[float], float]]:
    """Each snippet's median figures and its median ratio to ``base``'s first figure, runs interleaved so machine
    drift falls on all alike; the baseline's own row comes first (ratio 1)."""
    snippets = (base, *others)
    rows: list[list[list[float]]] = [[] for _ in snippets]
    for code in snippets:  # warm-up: caches the bytecode and the disk pages of each
        _figures(code)
    for _ in range(runs):
        for row, code in zip(rows, snippets, strict=True):
            row.append(_figures(code))
    out = []
    for row in rows:
        medians = [statistics.median(column) for column in zip(*row, strict=True)]
        ratio = statistics.median(r[0] / b[0] for r, b in zip(row, rows[0], strict=True))
        out.append((medians, ratio))
    return out


class StallMeter:
    """Measures the longest gap between event-loop ticks while it runs."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.001)
            last = now

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> float:
        if self._task:
            self._task.cancel()
        return self.worst


class PaintClock:
    """Remembers when ``screen`` last painted something that changed what it shows."""

    def __init__(self, screen: Any) -> None:
        self.last = 0.0
        self._shown: int | None = None
        refresh = screen._compositor_refresh
        compositor = screen._compositor

        def painted() -> None:
            refresh()
            now = time.perf_counter()
            # a paint that leaves every cell as it was (a second layout pass, say) updates nothing on screen
            shown = hash(tuple(tuple(strip) for strip in compositor.render_strips()))
            if shown != self._shown:
                self._shown, self.last = shown, now

        screen._compositor_refresh = painted

    async def settle(self, app: Any, quiet: float = 0.05) -> float:
        """Wait until nothing is left to draw for ``quiet`` seconds; return when the last screen-changing paint came."""
        screen = app.screen
        mark = time.perf_counter()
        while True:
            await asyncio.sleep(0.002)
            pending = (screen._dirty_widgets or screen._layout_required or screen._repaint_required
                       or any(w.is_running for w in app.workers)
                       or any(w._repaint_required or w._layout_required for w in screen.walk_children()))
            now = time.perf_counter()
            if pending:
                mark = now
            elif now - mark >= quiet:
                return self.last


MODES = {"batch": None, "singles": "m", "guard-off": "g"}
"""Each run mode the step latency is measured in, and the key that turns it on."""


async def step_latency(batch: tuple[str, ...] | None, presses: int = 30,
                       mode: str = "batch") -> tuple[float, float, int]:
    """Median and worst ms from the → key to the last paint it caused in ``mode``; and the batch size."""
    from emq_dive.course.lessons import load
    from emq_dive.engine.stores import open_store
    from emq_dive.views.tui.app import make_app, wait_ready

    store = open_store("fakeredis")
    app = make_app(load("batches-03"), store, batch=batch)
    samples = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(app, pilot)
        screen = app.dive
        key = MODES[mode]
        if key is not None:
            await pilot.press(key)
            deadline = time.perf_counter() + 60
            while screen.frame is None or screen.frame.played is None or screen.frame.played.mode != mode:
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"the dive did not switch to {mode}")
                await asyncio.sleep(0.001)
        clock = PaintClock(screen)
        size = len(screen.session.held)
        for _ in range(presses):
            before = screen.step.index
            t0 = time.perf_counter()
            app.simulate_key("right")
            while screen.step.index == before:
                await asyncio.sleep(0.001)  # not sleep(0): a spinning loop holds the GIL the worker thread needs
            samples.append((await clock.settle(app) - t0) * 1000)
            if screen.step.done:
                await pilot.press("home")
                await wait_ready(app, pilot)
                await clock.settle(app)
    store.close()
    return statistics.median(samples), max(samples), size


async def big_batch(members: int = 10_000) -> dict[str, float]:
    """Open, step and jump to the end of a big batch; report wall times and the worst event-loop stall."""
    from emq_dive.course.lessons import load
    from emq_dive.engine.stores import open_store
    from emq_dive.views.tui.app import make_app, wait_ready

    store = open_store("fakeredis")
    app = make_app(load("batches-03"), store, batch=("live", "stale", "live", "reaped") * (members // 4))
    out: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        meter = StallMeter()
        meter.start()
        t0 = time.perf_counter()
        await wait_ready(app, pilot)
        out["open s"] = time.perf_counter() - t0
        clock = PaintClock(app.dive)
        steps = []
        for _ in range(5):
            t0 = time.perf_counter()
            await pilot.press("right")
            await wait_ready(app, pilot)
            steps.append((await clock.settle(app) - t0) * 1000)
        out["step ms (median of 5)"] = statistics.median(steps)
        t0 = time.perf_counter()
        await pilot.press("end")
        await wait_ready(app, pilot)
        out["end s"] = time.perf_counter() - t0
        out["position"] = app.dive.step.index
        out["max stall ms"] = meter.stop() * 1000
    store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--skip-big", action="store_true", help="leave out the 10,000-member batch")
    parser.add_argument("--backend", default="auto", help="the store the start-up is measured on (default: auto, "
                                                          "the app's default)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout whose start-up runs interleaved with this one's (an older commit, say)")
    parser.add_argument("--runs", type=int, default=11, help="interleaved start-up runs of each (default 11)")
    parser.add_argument("--startup-only", action="store_true", help="measure the start-up only")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    print(f"measuring {root}" + (f" against {args.against.resolve()}" if args.against else "")
          + f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    trees = [root, *([args.against.resolve()] if args.against else [])]
    (base, _), *dives = startup(BASELINE, *(dive_snippet(tree, args.backend) for tree in trees), runs=args.runs)
    for tree, ((dive, settled, ready), ratio) in zip(trees, dives, strict=True):
        print(f"start → first frame on {args.backend}: dive {dive * 1000:.0f} ms, one-widget app {base[0] * 1000:.0f} "
              f"ms, median ratio of {args.runs} interleaved runs {ratio:.2f}× (goal ≤ 1.3×); every pane filled and "
              f"idle: {settled * 1000:.0f} ms; store ready: {ready * 1000:.0f} ms" + (f"  [{tree}]" if args.against
                                                                                     else ""))
    if args.startup_only:
        return
    for mode in MODES:
        for batch in (None, ("live", "stale", "live", "reaped") * 250):
            median, worst, size = asyncio.run(step_latency(batch, mode=mode))
            print(f"key → step painted, {mode}, {size} members: median {median:.1f} ms, worst {worst:.1f} ms "
                  "(goal: median ≤ 16 ms)")
    if not args.skip_big:
        big = asyncio.run(big_batch())
        print("10,000 members: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                              for k, v in big.items()))


if __name__ == "__main__":
    main()
