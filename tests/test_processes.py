"""No orphan server, ever: every way the app can end stops the server it spawned and removes its temp dir.

Each run gets a private TMPDIR, so the spawned server's work dir (``emq-dive-*``, its cwd) lies inside it: a
process whose cwd is under that TMPDIR is this run's server, wherever it was re-parented, and a left-over
``emq-dive-*`` there is this run's leak. Runs of other people on the same machine never match.
"""

from __future__ import annotations

import fcntl
import os
import queue
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conftest import require_server
from test_valkey_store import require_wheel

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 10.0

pytestmark = pytest.mark.server

BACKENDS = ["server", "auto"]
"""A spawned server from PATH, and the default: the embedded Valkey, started on a thread of its own."""


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend whose server the app starts, with what it needs checked (skipped or failed with cause)."""
    if request.param == "auto":
        require_wheel()
    else:
        require_server()
    return request.param


# -- /proc --------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, starttime) of ``pid``, or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[19])


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _cwd(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def _running_in(tmpdir: Path) -> dict[int, int]:
    """{pid: starttime} of every live (not zombie) process whose cwd lies under ``tmpdir``."""
    prefix = str(tmpdir) + os.sep
    out = {}
    for pid in _pids():
        cwd = _cwd(pid)
        stat = _stat(pid)
        if cwd and stat and cwd.startswith(prefix) and stat[0] not in "ZX":
            out[pid] = stat[2]
    return out


def _server_children(parent: int) -> list[int]:
    """The redis-server / valkey-server children of ``parent``, found by scanning /proc for their ppid."""
    found = []
    for pid in _pids():
        stat = _stat(pid)
        if stat is None or stat[1] != parent or stat[0] in "ZX":
            continue
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if comm in ("redis-server", "valkey-server"):
            found.append(pid)
    return found


def _alive(pid: int, starttime: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[2] == starttime and stat[0] not in "ZX"


def _poll(predicate, what: str, seconds: float = DEADLINE):
    """Poll ``predicate`` until it returns a truthy value or the deadline passes (then fail naming ``what``)."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.02)


def _assert_no_orphan(tmpdir: Path, servers: dict[int, int]) -> None:
    """Every server seen is gone within the deadline, nothing runs from ``tmpdir``, no work dir is left."""
    try:
        _poll(lambda: not any(_alive(pid, st) for pid, st in servers.items()) and not _running_in(tmpdir),
              f"the spawned server {sorted(servers)} to exit")
    finally:
        for pid, st in {**servers, **_running_in(tmpdir)}.items():  # never leave one behind for the next test
            if _alive(pid, st):
                os.kill(pid, signal.SIGKILL)
    left = sorted(p.name for p in tmpdir.glob("emq-dive-*"))
    assert not left, f"the run left its temp dir behind: {left}"


def _env(tmpdir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir), PYTHONUNBUFFERED="1", **extra)
    return env


def _tmpdir(tmp_path: Path) -> Path:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    return tmpdir


def _lines(stream) -> queue.Queue:
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in iter(stream.readline, ""):
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _expect(lines: queue.Queue, prefix: str, seen: list[str]) -> str:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if line.startswith(prefix):
            return line
    pytest.fail(f"no line starting {prefix!r}; the process wrote: {''.join(seen)!r}")


# -- the CLI's own exit paths, with a stand-in app ------------------------------
# The driver runs the real `emq-dive batches-03 --backend B` code path (cli.main: open_store, try/finally,
# the SIGTERM handler); only `emq_dive.views.tui.app` is a stand-in that blocks, returns on a line, or raises
# inside run().
# On the default backend the server starts behind the app: the stand-in waits for it as the app's worker does.

DRIVER = textwrap.dedent("""
    import os, signal, sys, types

    mode = os.environ["EMQ_TEST_MODE"]

    class App:
        return_code = 0
        stopping = False

        def __init__(self, store):
            self.store = store

        def exit(self, return_code=0):
            # Textual's App.exit contract: run() returns soon after, with this return code
            self.return_code = return_code
            self.stopping = True

        def run(self):
            with self.store.io():
                pass
            print("READY", self.store.pid, flush=True)
            if mode == "raise":
                sys.stdin.readline()  # the test has seen the server up: raise now
                raise RuntimeError("boom inside the app")
            if mode == "quit":
                sys.stdin.readline()
                return
            while not self.stopping:
                signal.pause()

    app = types.ModuleType("emq_dive.views.tui.app")
    app.make_app = lambda lesson, store, wire=4, step=0, **_options: App(store)
    app.save_screenshot = lambda app, path: None
    sys.modules["emq_dive.views.tui.app"] = app

    from emq_dive.cli import main
    sys.exit(main(["batches-03", "--backend", os.environ["EMQ_TEST_BACKEND"]]))
""")


def _start_driver(tmp_path: Path, mode: str, backend: str) -> tuple[subprocess.Popen, Path, queue.Queue]:
    tmpdir = _tmpdir(tmp_path)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = _env(tmpdir, EMQ_TEST_MODE=mode, EMQ_TEST_BACKEND=backend)
    proc = subprocess.Popen([sys.executable, str(driver)], cwd=tmp_path, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, tmpdir, _lines(proc.stdout)


def _ready(proc: subprocess.Popen, tmpdir: Path, lines: queue.Queue) -> dict[int, int]:
    """Wait for the app to run; return the server seen as the app's child, checked against the store's pid."""
    seen: list[str] = []
    try:
        ready = _expect(lines, "READY", seen)
    except BaseException:
        proc.kill()
        raise
    children = _server_children(proc.pid)
    assert len(children) == 1, f"expected one server child of {proc.pid}, found {children}"
    assert int(ready.split()[1]) == children[0]
    assert _cwd(children[0]).startswith(str(tmpdir / "emq-dive-")), _cwd(children[0])
    assert _running_in(tmpdir).keys() == {children[0]}
    return {children[0]: _stat(children[0])[2]}


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the app did not exit within the deadline")
    return proc.returncode, proc.stderr.read()


def test_normal_quit_stops_the_server(tmp_path: Path, backend: str) -> None:
    proc, tmpdir, lines = _start_driver(tmp_path, "quit", backend)
    servers = _ready(proc, tmpdir, lines)
    proc.stdin.write("q\n")
    proc.stdin.flush()
    code, err = _finish(proc)
    assert code == 0, err
    assert "Traceback" not in err
    _assert_no_orphan(tmpdir, servers)


def test_sigint_stops_the_server(tmp_path: Path, backend: str) -> None:
    proc, tmpdir, lines = _start_driver(tmp_path, "block", backend)
    servers = _ready(proc, tmpdir, lines)
    proc.send_signal(signal.SIGINT)
    code, _err = _finish(proc)
    assert code != 0
    _assert_no_orphan(tmpdir, servers)


def test_sigterm_stops_the_server(tmp_path: Path, backend: str) -> None:
    proc, tmpdir, lines = _start_driver(tmp_path, "block", backend)
    servers = _ready(proc, tmpdir, lines)
    proc.send_signal(signal.SIGTERM)
    code, err = _finish(proc)
    assert code == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    _assert_no_orphan(tmpdir, servers)


def test_exception_inside_the_app_stops_the_server(tmp_path: Path, backend: str) -> None:
    proc, tmpdir, lines = _start_driver(tmp_path, "raise", backend)
    servers = _ready(proc, tmpdir, lines)
    proc.stdin.write("go\n")
    proc.stdin.flush()
    code, err = _finish(proc)
    assert code != 0
    assert "boom inside the app" in err
    _assert_no_orphan(tmpdir, servers)


def test_sigkill_of_the_app_still_stops_the_server(tmp_path: Path, backend: str) -> None:
    """No finally runs on SIGKILL: PR_SET_PDEATHSIG makes the kernel send the server SIGTERM."""
    proc, tmpdir, lines = _start_driver(tmp_path, "block", backend)
    servers = _ready(proc, tmpdir, lines)
    proc.kill()
    proc.wait(timeout=DEADLINE)
    try:
        _poll(lambda: not any(_alive(pid, st) for pid, st in servers.items()),
              "the server to die with its parent (PR_SET_PDEATHSIG)")
    finally:
        for pid, st in servers.items():
            if _alive(pid, st):
                os.kill(pid, signal.SIGKILL)
    # nothing of the app survives a SIGKILL, so the work dir went as soon as the server had started
    assert not list(tmpdir.glob("emq-dive-*")), "the work dir outlived the server's start"


def _signal_during_start(tmp_path: Path, signum: int, backend: str) -> tuple[int, str]:
    """Send ``signum`` as soon as the server process exists, while the app still waits for it to answer."""
    proc, tmpdir, _ = _start_driver(tmp_path, "block", backend)
    seen = _poll(lambda: _running_in(tmpdir) or proc.poll() is not None, "the server process to appear",
                 seconds=30)
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signum)
    deadline = time.monotonic() + DEADLINE
    while proc.poll() is None and time.monotonic() < deadline:
        seen.update(_running_in(tmpdir))
    code, err = _finish(proc)
    if backend == "server":  # the embedded Valkey starts behind the app, which says so on its own screen
        assert "starting server" in err
    _assert_no_orphan(tmpdir, seen)
    return code, err


def test_sigterm_while_the_server_starts_leaves_nothing(tmp_path: Path, backend: str) -> None:
    code, err = _signal_during_start(tmp_path, signal.SIGTERM, backend)
    assert code == 128 + signal.SIGTERM, err
    assert "Traceback" not in err


def test_sigint_while_the_server_starts_leaves_nothing(tmp_path: Path, backend: str) -> None:
    """Ctrl+C in the shell during "starting server…" (the TUI has not taken the terminal yet)."""
    code, _ = _signal_during_start(tmp_path, signal.SIGINT, backend)
    assert code != 0


def test_sigint_while_the_server_starts_prints_no_traceback(tmp_path: Path, backend: str) -> None:
    _, err = _signal_during_start(tmp_path, signal.SIGINT, backend)
    assert "Traceback" not in err


def test_missing_server_binary_gives_one_clear_message(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = _env(_tmpdir(tmp_path), PATH=str(empty))
    done = subprocess.run([sys.executable, "-m", "emq_dive", "batches-03", "--backend", "server"],
                          cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "install" in done.stderr and "redis-server" in done.stderr, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("emq-dive:")], done.stderr
    assert not list((tmp_path / "tmp").iterdir())


# -- the real TUI in a pseudo-terminal ----------------------------------------------


class _Terminal:
    """The app on the slave side of a pty; everything it draws is drained into ``screen``."""

    def __init__(self, tmpdir: Path, cols: int = 120, rows: int = 40, backend: str = "server") -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = _env(tmpdir, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows))
        self.proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--backend", backend],
                                     cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.screen = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.screen += chunk

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=DEADLINE)
        try:
            os.close(self.master)
        except OSError:
            pass


@pytest.mark.parametrize("how, size", [("quit", (120, 40)), ("quit", (80, 24)), ("sigint", (120, 40)),
                                       ("sigterm", (120, 40))])
def test_the_tui_stops_its_server(tmp_path: Path, how: str, size: tuple[int, int], backend: str) -> None:
    tmpdir = _tmpdir(tmp_path)
    term = _Terminal(tmpdir, *size, backend=backend)
    try:
        children = _poll(lambda: _server_children(term.proc.pid) or term.proc.poll() is not None,
                         "the app to spawn its server", seconds=30)
        assert term.proc.poll() is None, f"the app exited early: {bytes(term.screen)[-2000:]!r}"
        servers = {pid: _stat(pid)[2] for pid in children}
        # the first frame is drawn once the lesson's title reaches the terminal
        _poll(lambda: b"Batch" in term.screen or term.proc.poll() is not None, "the app's first frame", seconds=30)
        assert term.proc.poll() is None, f"the app exited early: {bytes(term.screen)[-2000:]!r}"
        if how == "quit":
            term.send(b"q")
        else:
            term.proc.send_signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
        try:
            term.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the app did not exit on {how}: {bytes(term.screen)[-2000:]!r}")
        if how == "quit":
            assert term.proc.returncode == 0
        elif how == "sigterm":
            assert term.proc.returncode == 128 + signal.SIGTERM
        _assert_no_orphan(tmpdir, servers)
        term._reader.join(timeout=DEADLINE)
        screen = bytes(term.screen)
        if how != "sigterm":  # see test_sigterm_in_the_tui_prints_no_traceback
            assert b"Traceback" not in screen
        # the terminal is given back: the alternate screen is left after it was entered, the cursor shown again
        assert screen.rfind(b"\x1b[?1049l") > screen.rfind(b"\x1b[?1049h") >= 0
        assert screen.rfind(b"\x1b[?25h") > screen.rfind(b"\x1b[?25l")
    finally:
        term.close()


def test_sigterm_in_the_tui_prints_no_traceback(tmp_path: Path, backend: str) -> None:
    tmpdir = _tmpdir(tmp_path)
    for _ in range(3):  # the traceback depends on timing: try a few times
        term = _Terminal(tmpdir, backend=backend)
        try:
            _poll(lambda term=term: b"Batch" in term.screen or term.proc.poll() is not None,
                  "the app's first frame", seconds=30)
            servers = {pid: _stat(pid)[2] for pid in _server_children(term.proc.pid)}
            assert term.proc.poll() is None and servers, "the app is up, with its server, when SIGTERM comes"
            term.proc.send_signal(signal.SIGTERM)
            term.proc.wait(timeout=DEADLINE)
            _assert_no_orphan(tmpdir, servers)
            term._reader.join(timeout=DEADLINE)
            assert b"Traceback" not in bytes(term.screen)
        finally:
            term.close()
