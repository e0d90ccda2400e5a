"""What the serve tests and benchmarks/serve_bench.py share, without pytest: the system Chromium's launch, the script
that keeps xterm.js's Terminal where a page can read it, the read of its screen, and the tab processes of a server.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
TAB_NAME = "emq-dive-tab"
"""A tab app's process name (emq_dive.views.web.child.TAB_NAME), however it was started."""

EXPOSE_TERMINAL = """
window.__terminals = [];
Object.defineProperty(Object.prototype, 'terminal', {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, 'terminal', {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer) window.__terminals.push(value);
  },
});
"""
"""An init script: textual.js keeps its xterm.js Terminal in ``this.terminal`` of an object the page never exposes;
a setter on Object.prototype catches that first assignment and keeps the Terminal where the test can read it."""

READ_SCREEN = """() => {
  const term = window.__terminals[0];
  if (!term) return null;
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : '');
  }
  return rows.join('\\n');
}"""
"""The terminal's visible rows as text (null before the terminal exists)."""

FOCUSED = "() => document.activeElement ? document.activeElement.className : ''"
"""The class of the element that has the keyboard focus."""

VIEWPORT = {"width": 1400, "height": 900}


def chromium_path() -> str | None:
    """The system Chromium (on PATH or at /usr/bin/chromium), or None; Playwright never downloads one here."""
    return shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)


def launch_options(executable: str) -> dict[str, Any]:
    """Playwright's ``chromium.launch`` arguments for the system Chromium, headless (no sandbox as root)."""
    return {"executable_path": executable, "headless": True, "args": ["--no-sandbox"] if os.geteuid() == 0 else []}


def only(url: str) -> Any:
    """A route handler that lets requests to ``url`` through and aborts the rest (no wait on a missing network)."""
    def route(handled: Any) -> Any:
        return handled.continue_() if handled.request.url.startswith(url) else handled.abort()
    return route


@contextmanager
def sync_chromium(executable: str) -> Iterator[Any]:
    """The system Chromium driven by Playwright's sync API, for the length of the block."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(**launch_options(executable))
        try:
            yield launched
        finally:
            launched.close()


@asynccontextmanager
async def async_chromium(executable: str) -> AsyncIterator[Any]:
    """The system Chromium driven by Playwright's async API, for the length of the block."""
    from playwright.async_api import async_playwright
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(**launch_options(executable))
        try:
            yield launched
        finally:
            await launched.close()


def stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of ``pid``, or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def pids() -> list[int]:
    """Every pid on the machine now."""
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def live(pid: int) -> bool:
    """Whether ``pid`` runs (is neither gone nor a zombie)."""
    found = stat(pid)
    return found is not None and found[0] not in "ZX"


def comm(pid: int) -> str:
    """The process name of ``pid`` ('' when it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def descendants(root: int) -> list[int]:
    """The live descendants of ``root``, children before grandchildren."""
    parents = {pid: found[1] for pid in pids() if (found := stat(pid)) and found[0] not in "ZX"}
    found: list[int] = []
    frontier = [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found.extend(frontier)
    return found


def _is_tab(pid: int) -> bool:
    if comm(pid) == TAB_NAME:
        return True
    try:  # an emq-dive from before tabs had a name: a child process of its own, by its command line
        return b"emq_dive.views.web.child" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def tab_pids(server: int) -> list[int]:
    """The tab apps a server runs now: its descendants named as tabs (started by it, or forked by its warm pool)."""
    return [pid for pid in descendants(server) if _is_tab(pid)]
