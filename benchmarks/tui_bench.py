"""Measure the dive's TUI: start to first frame, key press to screen updated, and a 10,000-member batch.

Run ``python benchmarks/tui_bench.py``; it prints, it does not assert.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
from emq_dive.app import make_app
from emq_dive.lessons import load
from emq_dive.stores import open_store
store = open_store("fakeredis")
app = make_app(load("batches-03"), store)
def first_frame():
    print(time.perf_counter() - t0); app.exit()
async def auto(pilot):
    await pilot.pause()
    first_frame()
app.run(headless=True, size=(120, 40), auto_pilot=auto)
store.close()
""" % str(ROOT)


def startup(code: str, runs: int = 5) -> float:
    """The median seconds from interpreter start of the snippet to its first frame."""
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


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


async def step_latency(batch: tuple[str, ...] | None, presses: int = 30) -> tuple[float, int]:
    """Median ms from the → key event to the new step painted (no widget left dirty); and the batch size."""
    from emq_dive.app import make_app, wait_ready
    from emq_dive.lessons import load
    from emq_dive.stores import open_store

    store = open_store("fakeredis")
    app = make_app(load("batches-03"), store, batch=batch)
    samples = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(app, pilot)
        screen = app.dive
        size = len(screen.session.held)
        for _ in range(min(presses, screen.step.count)):
            before = screen.step.index
            t0 = time.perf_counter()
            app.simulate_key("right")
            while screen.step.index == before:
                await asyncio.sleep(0)
            while app.screen._dirty_widgets or app.screen._layout_required:
                await asyncio.sleep(0)
            samples.append((time.perf_counter() - t0) * 1000)
            if screen.step.done:
                await pilot.press("home")
                await wait_ready(app, pilot)
    store.close()
    return statistics.median(samples), size


async def big_batch(members: int = 10_000) -> dict[str, float]:
    """Open, step and jump to the end of a big batch; report wall times and the worst event-loop stall."""
    from emq_dive.app import make_app, wait_ready
    from emq_dive.lessons import load
    from emq_dive.stores import open_store

    store = open_store("fakeredis")
    app = make_app(load("batches-03"), store, batch=("live", "stale", "live", "reaped") * (members // 4))
    out: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        meter = StallMeter()
        meter.start()
        t0 = time.perf_counter()
        await wait_ready(app, pilot)
        out["open s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(5):
            await pilot.press("right")
            await wait_ready(app, pilot)
        out["5 steps s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        await pilot.press("end")
        await wait_ready(app, pilot)
        out["end s"] = time.perf_counter() - t0
        out["position"] = app.dive.step.index
        out["max stall ms"] = meter.stop() * 1000
    store.close()
    return out


def main() -> None:
    base = startup(BASELINE)
    dive = startup(DIVE)
    print(f"start → first frame: dive {dive * 1000:.0f} ms, one-widget app {base * 1000:.0f} ms, "
          f"ratio {dive / base:.2f}× (goal ≤ 1.3×)")
    for batch in (None, ("live", "stale", "live", "reaped") * 250):
        median, size = asyncio.run(step_latency(batch))
        print(f"key → step on screen, {size} members: median {median:.1f} ms (goal ≤ 16 ms)")
    big = asyncio.run(big_batch())
    print("10,000 members: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                          for k, v in big.items()))


if __name__ == "__main__":
    main()
