"""Helpers for the ``emq-dive serve`` tests: the server as a process, its tabs' processes, and a headless Chromium
that reads the dive's screen out of xterm.js's own buffer.

The server runs with a private TMPDIR, so a spawned store's work dir (``emq-dive-*``, its server's cwd) lies inside it:
a process whose cwd is under that TMPDIR, or a dir left there, belongs to this test and nothing else.
"""

from __future__ import annotations

import base64
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
from conftest import IN_CI
from serve_browser import (
    EXPOSE_TERMINAL,
    FOCUSED,
    READ_SCREEN,
    VIEWPORT,
    chromium_path,
    live,
    only,
    pids,
    stat,
    sync_chromium,
    tab_pids,
)

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 20.0
"""Seconds any one wait may take before the test fails naming what it waited for."""
POLL = 0.05

T = TypeVar("T")


def poll(probe: Callable[[], T], what: str, seconds: float = DEADLINE) -> T:
    """Call ``probe`` until it returns something truthy, or fail after ``seconds`` naming ``what``."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(POLL)


# -- /proc ---------------------------------------------------------------------------------------------------------


def children(parent: int) -> list[int]:
    """The live (not zombie) child processes of ``parent``."""
    return [pid for pid in pids() if (found := stat(pid)) and found[1] == parent and found[0] not in "ZX"]


def cmdline(pid: int) -> list[str]:
    """The argv of ``pid`` ([] when it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().split("\0")[:-1]
    except OSError:
        return []


def running_in(tmpdir: Path) -> list[int]:
    """Every live process whose cwd lies under ``tmpdir``."""
    prefix = str(tmpdir) + os.sep
    found = []
    for pid in pids():
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(prefix) and live(pid):
            found.append(pid)
    return found


def tab_processes(tmpdir: Path) -> list[int]:
    """Every live tab app, spare or warm pool parent of a server that was given ``tmpdir`` (its environment names
    it), wherever it runs now."""
    marker = f"TMPDIR={tmpdir}".encode()
    found = []
    for pid in pids():
        if not {"emq_dive.views.web.child", "emq_dive.views.web.warm"} & set(cmdline(pid)):
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ and live(pid):
            found.append(pid)
    return found


# -- the server ----------------------------------------------------------------------------------------------------


class Served:
    """A running ``emq-dive serve`` process: its URL, its pid, its output, and its tabs' processes."""

    def __init__(self, args: list[str], tmpdir: Path) -> None:
        self.tmpdir = tmpdir
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmpdir), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.out: list[str] = []
        self.err: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, lines, self.out), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, None, self.err), daemon=True).start()
        first = lines.get(timeout=DEADLINE)
        found = re.search(r"http://\S+/", first or "")
        if found is None:
            self.stop()
            pytest.fail(f"serve printed no URL: {first!r}; stderr: {''.join(self.err)!r}")
        self.url = found.group(0)
        self.banner = first or ""

    @staticmethod
    def _pump(stream: Any, lines: queue.Queue[str | None] | None, keep: list[str]) -> None:
        for line in iter(stream.readline, ""):
            keep.append(line)
            if lines is not None:
                lines.put(line)
        if lines is not None:
            lines.put(None)

    @property
    def pid(self) -> int:
        """The server's pid."""
        return self.proc.pid

    def tabs(self) -> list[int]:
        """The tab apps this server runs now (its warm pool's spares are not tabs until a tab takes one)."""
        return tab_pids(self.pid)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Signal the server and wait for it; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signum)
        try:
            return self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"the server did not exit within {DEADLINE:.0f} s of signal {signum}")


@contextmanager
def served(tmp_path: Path, *args: str) -> Iterator[Served]:
    """``emq-dive serve --port 0 ARGS`` for the length of the block; after it, nothing it started may be left."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    server = Served(list(args), tmpdir)
    try:
        yield server
    finally:
        server.stop()
        assert_nothing_left(tmpdir)


def assert_nothing_left(tmpdir: Path) -> None:
    """No tab app and no spawned server of this test runs, and no ``emq-dive-*`` dir is left in its TMPDIR."""
    try:
        poll(lambda: not tab_processes(tmpdir) and not running_in(tmpdir), "every tab app and spawned server to exit")
    finally:
        for pid in {*tab_processes(tmpdir), *running_in(tmpdir)}:  # never leave one behind for the next test
            os.kill(pid, signal.SIGKILL)
    left = sorted(path.name for path in tmpdir.glob("emq-dive-*"))
    assert not left, f"the server left temp dirs behind: {left}"


# -- a shared store and a tab without a browser ------------------------------------------------------------------

QUEUE = re.compile(r"emq:\{(dive-[0-9a-f]{8})\}")
"""A tab's queue's hashtag, as its keys and its screen show it."""


def shared_url(store: Any) -> tuple[redis.Redis, str]:
    """A started store's server as a shared URL server: a client of it, and its URL (with its password)."""
    kwargs = store.client.connection_pool.connection_kwargs
    return store.client, f"redis://:{kwargs['password']}@{kwargs['host']}:{kwargs['port']}/0"


def dive_queues(client: redis.Redis) -> set[str]:
    """The dive queues whose batch is on ``client``'s server (its active set: a queue's owner markers come first,
    before its app has started)."""
    return {found.group(1) for key in client.scan_iter(match="emq:{dive-*}:active", count=1000)
            if (found := QUEUE.match(key.decode()))}


def open_tab(url: str, heard: bytearray | None = None) -> socket.socket:
    """Open the dive's websocket as a tab does (a raw socket, so the test can drop it the hard way); what came
    after the handshake goes to ``heard``."""
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws?width=120&height=40 HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head
    if heard is not None:
        heard += head.split(b"\r\n\r\n", 1)[1]
    sock.setblocking(False)
    return sock


def drain(sock: socket.socket) -> bool:
    """Read what the server sent so far, so it never waits on a full socket; True while the socket is open."""
    try:
        while sock.recv(1 << 16):
            pass
        return False
    except BlockingIOError:
        return True



# -- the browser ---------------------------------------------------------------------------------------------------

def chromium() -> str:
    """The system Chromium; in CI a missing one fails, elsewhere the test skips with the reason."""
    path = chromium_path()
    if path is None:
        if IN_CI:
            pytest.fail("CI must run the browser tests, but there is no chromium (apt-get install chromium)")
        pytest.skip("no chromium on PATH or at /usr/bin/chromium (apt-get install chromium to run the browser tests)")
    return path


@contextmanager
def browser() -> Iterator[Any]:
    """A headless system Chromium driven by Playwright (which downloads nothing here)."""
    executable = chromium()
    try:
        import playwright  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail("CI must run the browser tests, but playwright is not installed (the test extra has it)")
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    with sync_chromium(executable) as launched:
        yield launched


class Screen:
    """One browser tab on the dive, read through xterm.js's buffer."""

    def __init__(self, launched: Any, url: str) -> None:
        self.url = url
        self.context = launched.new_context(viewport=VIEWPORT)
        self.context.add_init_script(EXPOSE_TERMINAL)
        self.context.route("**/*", only(url))  # nothing here may wait on a network that is not there
        self.page = self.context.new_page()

    def open(self) -> Any:
        """Load the page; the HTTP response."""
        return self.page.goto(self.url)

    def text(self) -> str:
        """The terminal's rows as text ('' before the terminal exists)."""
        return self.page.evaluate(READ_SCREEN) or ""

    def settled(self, needle: str | re.Pattern[str], what: str) -> str:
        """The screen once it shows ``needle`` and has stopped changing for a few polls."""
        found = re.compile(re.escape(needle)) if isinstance(needle, str) else needle
        last, same = "", 0

        def steady() -> str | None:
            nonlocal last, same
            text = self.text()
            same = same + 1 if text == last and found.search(text) else 0
            last = text
            return text if same >= 4 else None

        return poll(steady, what)

    def focused(self) -> str:
        """The class of the page's focused element (xterm.js's input is ``xterm-helper-textarea``)."""
        return str(self.page.evaluate(FOCUSED))

    def press(self, key: str) -> None:
        """Press ``key`` on the page as a learner would, with no click first: the page gave the terminal the focus."""
        self.page.keyboard.press(key)

    def close(self) -> None:
        """Close the tab, as a learner does."""
        self.context.close()
