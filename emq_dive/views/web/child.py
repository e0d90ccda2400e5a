"""One browser tab's app process: the lesson on its own store, ended by the server's quit, SIGTERM or SIGHUP.

The server starts it with ``exec`` (or the warm pool forks it), so its parent is the server (or the pool's parent);
it asks the kernel for SIGTERM when that parent dies, so even a server killed with SIGKILL leaves no tab running and
every tab still closes its store. Its backend comes in its environment, never its arguments, so a URL's password is
not in ``ps``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Sequence

SERVER_PID = "EMQ_DIVE_SERVE_PID"
"""The environment variable that names the server's pid, so a tab whose server is already gone exits at once."""
BACKEND = "EMQ_DIVE_SERVE_BACKEND"
"""The environment variable that holds the tab's backend (a URL with its password, where it has one)."""
TAB_NAME = "emq-dive-tab"
"""The process name (``/proc/PID/comm``) of a tab's app, however it was started."""

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


def _prctl(option: int, value: int | bytes) -> None:
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(option, value)


def name_process(name: str) -> None:
    """Set this process's name as ``ps -o comm`` and /proc show it (Linux only; at most 15 bytes)."""
    _prctl(PR_SET_NAME, name.encode()[:15])


def die_with_parent(expected: int | None) -> bool:
    """Ask for SIGTERM when the parent exits; False when the parent is not ``expected`` (it is gone already)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    return expected is None or os.getppid() == expected


def _hangup_as_terminate(signum: int, frame: object) -> None:
    # whatever handles SIGTERM at this moment (the launcher's, then Textual's) closes the app and its store
    os.kill(os.getpid(), signal.SIGTERM)


def arguments(argv: Sequence[str]) -> argparse.Namespace:
    """The lesson and the wire a tab opens on (the pool's parent takes them too, with its spares' count)."""
    parser = argparse.ArgumentParser(prog="emq_dive.views.web.child")
    parser.add_argument("lesson")
    parser.add_argument("--wire", type=int, choices=(4, 6), default=4)
    parser.add_argument("--spares", type=int, default=0)
    return parser.parse_args(list(argv))


def preload() -> None:
    """Import the launcher, so a process forked after this has it (and what it imports) already."""
    from ...launch import LaunchOptions, run  # noqa: F401


def run_tab(lesson: str, wire: int, ready: Callable[[], None] | None = None) -> int:
    """Run the lesson as ``emq-dive LESSON --wire W`` would, on the environment's backend, in the web driver;
    ``ready`` is called once the store is open (a spare waits there for its tab)."""
    signal.signal(signal.SIGHUP, _hangup_as_terminate)
    from ...launch import LaunchOptions, run
    return run(LaunchOptions(lesson, backend=os.environ.get(BACKEND, "auto"), wire=wire, ready=ready))


def main(argv: Sequence[str] | None = None) -> int:
    """A tab's app started on its own: check the server is still there, then run the lesson."""
    expected = os.environ.get(SERVER_PID)
    if not die_with_parent(None if expected is None else int(expected)):
        return 1
    name_process(TAB_NAME)
    args = arguments(sys.argv[1:] if argv is None else argv)
    return run_tab(args.lesson, args.wire)


if __name__ == "__main__":
    sys.exit(main())
