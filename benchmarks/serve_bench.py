"""``emq-dive serve`` in headless Chromium beside textual-serve serving the one-widget app: the time until a tab is
usable, the unique memory of each tab's process, and the time until N tabs opened at once are all usable.

"Usable" is the terminal's own text (read through xterm.js's buffer API) showing the app's first step text.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from term_bench import APPS, DIVE_READY, ONE_READY

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serve_browser import (
    EXPOSE_TERMINAL,
    READ_SCREEN,
    VIEWPORT,
    async_chromium,
    chromium_path,
    descendants,
    only,
    tab_pids,
)

GIVE_UP = 120.0
"""Seconds after which a tab not yet usable counts as never usable (printed as over that)."""


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value != float("inf") else f"over {GIVE_UP:.0f} s"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _children(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                text = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2:].split()
            if int(fields[1]) == parent and fields[0] not in "ZX":
                found.append(int(name))
    return found


def store_of(pid: int) -> list[int]:
    """The store server a tab process started (its valkey-server or redis-server child), if any."""
    return [child for child in _children(pid) if "server" in Path(f"/proc/{child}/comm").read_text()]


def tab_figures(pid: int) -> tuple[float, float, float]:
    """(USS MiB, PSS MiB, CPU seconds so far) of ``pid``, from /proc/PID/smaps_rollup and /proc/PID/stat."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        fields[name.rstrip(":")] = int(value)
    uss = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0) + fields.get("Private_Hugetlb", 0)
    stat = Path(f"/proc/{pid}/stat").read_text()
    ticks = sum(int(v) for v in stat[stat.rindex(")") + 2:].split()[11:13])  # utime, stime
    return uss / 1024, fields.get("Pss", 0) / 1024, ticks / os.sysconf("SC_CLK_TCK")


class Served:
    """A server process (``emq-dive serve`` or textual-serve with the one-widget app) and its URL."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], ready: re.Pattern[str],
                 dive: bool = True, cwd: Path | None = None) -> None:
        self.name, self.ready, self.dive = name, ready, dive
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self._tmp = tempfile.TemporaryDirectory(prefix="emq-bench-serve-")
        full = {**os.environ, **env, "TMPDIR": self._tmp.name}
        # cwd is the checkout measured: `python -m` puts it first on sys.path, before PYTHONPATH
        self.proc = subprocess.Popen([*argv, str(self.port)], env=full, cwd=cwd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{name} did not come up at {self.url}") from None
                time.sleep(0.05)

    def tabs(self) -> list[int]:
        """The pids of the tab processes this server runs now (a dive's warm spares are not tabs yet)."""
        return tab_pids(self.proc.pid) if self.dive else _children(self.proc.pid)

    def overhead(self) -> list[int]:
        """The processes it runs that are no tab's: the warm pool's parent, its spares and their stores."""
        tabs = set(self.tabs())
        owned = {store for tab in tabs for store in store_of(tab)}
        return [pid for pid in descendants(self.proc.pid) if pid not in tabs and pid not in owned]

    def idle(self, seconds: float = 20.0) -> None:
        """Wait until no tab process is left (the previous tab has closed)."""
        deadline = time.monotonic() + seconds
        while self.tabs() and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._tmp.cleanup()


def dive_server(root: Path, tabs: int, backend: str) -> Served:
    return Served(f"dive[{root.name}] {backend}", [sys.executable, "-m", "emq_dive", "serve", "--backend", backend,
                                                   "--max-sessions", str(tabs + 2), "--port"],
                  {"PYTHONPATH": str(root)}, DIVE_READY, cwd=root)


def one_server() -> Served:
    return Served("one-widget", [sys.executable, str(APPS), "serve-one"], {}, ONE_READY, dive=False)


@contextmanager
def _servers(roots: list[Path], tabs: int, backends: list[str]) -> Iterator[list[Served]]:
    started: list[Served] = []
    try:
        started.append(one_server())
        started.extend(dive_server(root, tabs, backend) for backend in backends for root in roots)
        yield started
    finally:
        for served in started:
            served.stop()


async def _page(browser: Any, served: Served) -> tuple[Any, Any]:
    """A fresh browser context (its own profile, as a learner's own browser) and a blank page in it."""
    context = await browser.new_context(viewport=VIEWPORT)
    await context.add_init_script(EXPOSE_TERMINAL)
    await context.route("**/*", only(served.url))
    return context, await context.new_page()


async def _usable(page: Any, served: Served, t0: float, poll: float) -> tuple[float, float]:
    """Navigate ``page`` to ``served`` (asked at ``t0``); seconds until the page loaded and until its terminal
    shows the first step text."""
    await page.goto(served.url, timeout=120_000)  # twenty pages at once on a busy machine load slowly
    loaded = time.perf_counter() - t0
    while True:
        text = await page.evaluate(READ_SCREEN)
        if served.ready.search(text or ""):
            return loaded, time.perf_counter() - t0
        if time.perf_counter() - t0 > GIVE_UP:
            return loaded, float("inf")  # said as "over 120 s"
        await asyncio.sleep(poll)


async def _measure(roots: list[Path], tabs: int, runs: int, backends: list[str], say: Callable[[str], None],
                   chromium: str) -> None:
    with _servers(roots, tabs, backends) as servers:
        async with async_chromium(chromium) as browser:
            single: dict[str, list[tuple[float, float]]] = {s.name: [] for s in servers}
            for run in range(runs + 1):  # the first round warms each server's page and the disk cache
                for served in servers:
                    served.idle()
                    context, page = await _page(browser, served)
                    seconds = await _usable(page, served, time.perf_counter(), 0.01)
                    await context.close()
                    if run:
                        single[served.name].append(seconds)
            base = statistics.median(u for _, u in single[servers[0].name])
            for served in servers:
                median = statistics.median(u for _, u in single[served.name])
                loaded = statistics.median(p for p, _ in single[served.name])
                say(f"  {served.name:<26} a tab usable {median * 1000:6.0f} ms after navigating "
                    f"(×{median / base:.2f} the one-widget app; goal ≤ 500 ms; page loaded at "
                    f"{loaded * 1000:.0f} ms, so {(median - loaded) * 1000:.0f} ms after it, to set beside the TUI's "
                    f"first frame in --only startup) [median of {runs}, one tab at a time]")
            for served in servers:
                served.idle()
                pages = [await _page(browser, served) for _ in range(tabs)]
                t0 = time.perf_counter()
                times = sorted(u for _, u in await asyncio.gather(*(_usable(page, served, t0, 0.05)
                                                                     for _, page in pages)))
                pids = served.tabs()
                memory = [tab_figures(pid) for pid in pids]
                stores = [tab_figures(store)[0] for pid in pids for store in store_of(pid)]
                extra = sum(tab_figures(pid)[1] for pid in served.overhead())
                for context, _ in pages:
                    await context.close()
                uss = statistics.median(m[0] for m in memory) if memory else float("nan")
                pss = statistics.median(m[1] for m in memory) if memory else float("nan")
                cpu = statistics.median(m[2] for m in memory) if memory else float("nan")
                say(f"  {served.name:<26} {tabs} tabs opened at once: all usable in {_seconds(times[-1])} (median "
                    f"tab {_seconds(statistics.median(times))}; goal: 20 within 3 s); per tab process, median of "
                    f"{len(memory)}: USS {uss:.0f} MiB, PSS {pss:.0f} MiB (goal ≤ 30 MiB unique), CPU "
                    f"{cpu:.2f} s by then" + (f"; its own store server USS {statistics.median(stores):.0f} MiB"
                                              if stores else "")
                    + (f"; the warm pool (parent, spares, their stores) PSS {extra:.0f} MiB in all"
                       if served.dive and extra else ""))


def run(roots: list[Path], tabs: int, runs: int, say: Callable[[str], None], backends: list[str] | None = None) -> None:
    """Print the serve figures for each checkout on each backend beside textual-serve's one-widget app."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        say("  (skipped: playwright is not installed; pip install -e '.[test]')")
        return
    chromium = chromium_path()
    if chromium is None:
        say("  (skipped: no chromium on PATH or at /usr/bin/chromium)")
        return
    asyncio.run(_measure(roots, tabs, runs, backends or ["auto"], say, chromium))
