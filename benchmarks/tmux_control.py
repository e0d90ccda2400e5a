"""A private tmux server driven over ONE control-mode connection (``tmux -C``): run an app in a pane, send it keys,
poll the pane's text, and count the bytes the app wrote to its terminal.

Every poll is a ``capture-pane`` sent down the same control connection (no new tmux client per poll), and every
byte the app writes reaches us as a ``%output`` notification on that connection, so both come from one stream.
"""

from __future__ import annotations

import itertools
import os
import re
import select
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

POLL = 0.0005
"""Seconds between two captures of the pane while waiting."""


@dataclass
class Watch:
    """What the pane did after a moment ``t0``: when it first and last changed, the gaps, and the bytes written."""

    t0: float
    first: float | None = None
    last: float | None = None
    changes: list[float] = field(default_factory=list)
    bytes: int = 0
    text: str = ""

    @property
    def first_ms(self) -> float:
        return (self.first - self.t0) * 1000 if self.first is not None else float("nan")

    @property
    def last_ms(self) -> float:
        return (self.last - self.t0) * 1000 if self.last is not None else float("nan")

    @property
    def worst_gap_ms(self) -> float:
        """The longest time between two pane changes (from t0 to the last change)."""
        marks = [self.t0, *self.changes]
        return max((b - a for a, b in itertools.pairwise(marks)), default=float("nan")) * 1000


def output_bytes(data: bytes) -> int:
    """How many bytes the app wrote, from a ``%output`` payload (tmux escapes each byte below 32 and the backslash
    as a backslash and three octal digits)."""
    return len(data) - 3 * data.count(b"\\")


def unescape(data: bytes) -> bytes:
    """The bytes the app wrote, from a ``%output`` payload."""
    return re.sub(rb"\\([0-7]{3})", lambda found: bytes([int(found.group(1), 8)]), data)


class Tmux:
    """One tmux server on a private socket with one window of ``width`` × ``height`` and one control client."""

    def __init__(self, width: int = 120, height: int = 40) -> None:
        self.socket = f"emq-bench-{os.getpid()}"
        self.proc = subprocess.Popen(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "-C", "new-session", "-s", "bench",
             "-x", str(width), "-y", str(height), "exec sleep 86400"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._fd = self.proc.stdin, self.proc.stdout.fileno()
        self._buf = b""
        self._out: list[tuple[float, int]] = []
        self._raw: list[bytes] = []
        self._read_block()  # the reply to new-session
        for command in ("set -g status off", "set -g remain-on-exit on", "set -g window-size manual",
                        "set -g default-terminal tmux-256color", "set -sg escape-time 0",
                        f"resize-window -t bench -x {width} -y {height}"):
            self.command(command)
        self.pane = self.command("display -p -t bench '#{pane_id}'")[0]
        size = self.command(f"display -p -t {self.pane} '#{{pane_width}}x#{{pane_height}}'")[0]
        if size != f"{width}x{height}":
            raise RuntimeError(f"the tmux pane is {size}, not {width}x{height}")

    # -- the control protocol -------------------------------------------------------------------------------------

    def _line(self, timeout: float | None = None) -> bytes | None:
        while b"\n" not in self._buf:
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                raise RuntimeError("the tmux control client exited")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _note(self, line: bytes) -> None:
        """Count the bytes of a ``%output`` notification for our pane."""
        if line.startswith(b"%output "):
            _, pane, data = line.split(b" ", 2)
            if pane.decode() == self.pane:
                self._out.append((time.perf_counter(), output_bytes(data)))
                self._raw.append(data)

    def _read_block(self) -> list[str]:
        while True:
            line = self._line()
            assert line is not None
            if line.startswith(b"%begin"):
                break
            self._note(line)
        rows: list[str] = []
        while True:
            line = self._line()
            assert line is not None
            if line.startswith((b"%end", b"%error")):
                if line.startswith(b"%error"):
                    raise RuntimeError("tmux: " + " ".join(rows))
                return rows
            rows.append(line.decode("utf-8", "replace"))

    def command(self, text: str) -> list[str]:
        """Run one tmux command over the control connection; its output lines."""
        self._in.write(text.encode() + b"\n")
        return self._read_block()

    def drain(self, seconds: float) -> None:
        """Read notifications for ``seconds``."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            line = self._line(left)
            if line is not None:
                self._note(line)

    # -- the pane ---------------------------------------------------------------------------------------------------

    def start(self, argv: str, env: dict[str, str]) -> float:
        """Run the shell command ``argv`` (``exec``'d) in the pane, replacing what ran there; the moment it was sent."""
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # each app starts from cached bytecode, as an installed package does, whatever the caller's shell says
        quoted = ("exec env -u PYTHONDONTWRITEBYTECODE " + exports + " " + argv).replace("'", "'\\''")
        self._out.clear()
        self._raw.clear()
        t0 = time.perf_counter()
        self.command(f"respawn-pane -k -t {self.pane} '{quoted}'")
        return t0

    def screen(self) -> str:
        """The pane's text now."""
        return "\n".join(self.command(f"capture-pane -p -t {self.pane}"))

    def pid(self) -> int:
        """The pid of the process running in the pane."""
        return int(self.command(f"display -p -t {self.pane} '#{{pane_pid}}'")[0])

    def dead(self) -> bool:
        return self.command(f"display -p -t {self.pane} '#{{pane_dead}}'")[0] == "1"

    def keys(self, *names: str) -> float:
        """Send keys (tmux names: Right, End, m); the moment they were sent."""
        t0 = time.perf_counter()
        self.command(f"send-keys -t {self.pane} " + " ".join(names))
        return t0

    def written(self, start: float, end: float) -> int:
        """Bytes the pane's app wrote to its terminal between two moments (as tmux's reads reached us)."""
        return sum(n for at, n in self._out if start <= at <= end)

    def before(self, marker: bytes) -> int | None:
        """How many bytes the app wrote before it first wrote ``marker`` since it started (None: not yet)."""
        stream = unescape(b"".join(self._raw))
        at = stream.find(marker)
        return None if at < 0 else at

    def until(self, test: Callable[[str], bool], t0: float, timeout: float = 120.0) -> Watch:
        """Poll the pane until ``test`` holds for its text; ``first`` is the moment it did."""
        watch = Watch(t0)
        while True:
            text = self.screen()
            now = time.perf_counter()
            if text != watch.text:
                watch.changes.append(now)
                watch.text = text
            if test(text):
                watch.first = watch.last = now
                watch.bytes = self.written(t0, now)
                return watch
            if now - t0 > timeout:
                raise TimeoutError(f"the pane did not show what was awaited in {timeout:.0f} s:\n{text}")
            time.sleep(POLL)

    def settle(self, t0: float, before: str, quiet: float = 0.25, timeout: float = 120.0,
               since: float | None = None) -> Watch:
        """Poll from ``t0`` until the pane has changed from ``before`` (or did at ``since``) and then stayed as it
        is for ``quiet`` s; a pane that never changes ends the wait at ``timeout``."""
        watch = Watch(t0, text=before, first=since, last=since)
        while True:
            text = self.screen()
            now = time.perf_counter()
            if text != watch.text:
                watch.changes.append(now)
                watch.text, watch.last = text, now
                watch.first = watch.first or now
            if watch.last is not None and now - watch.last >= quiet:
                watch.bytes = self.written(t0, now)
                return watch
            if now - t0 > timeout:
                watch.bytes = self.written(t0, now)
                return watch
            time.sleep(POLL)

    def stop_app(self, quit_keys: tuple[str, ...] = ("q",), timeout: float = 30.0) -> None:
        """Quit the pane's app with its own key (so it closes its store), or SIGTERM it after ``timeout``."""
        pid = self.pid()
        self.keys(*quit_keys)
        end = time.monotonic() + timeout
        while not self.dead():
            if time.monotonic() > end:
                os.kill(pid, 15)
                end += timeout
            time.sleep(0.02)

    def close(self) -> None:
        """Stop the private tmux server (and the control client with it)."""
        try:
            subprocess.run(["tmux", "-L", self.socket, "kill-server"], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            self.proc.wait(timeout=10)
            # the server leaves its socket file behind when it is killed; it is ours, under our own name
            path = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.socket
            path.unlink(missing_ok=True)
