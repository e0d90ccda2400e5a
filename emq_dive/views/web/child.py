"""One browser tab's app process: the lesson on its own store, ended by the server's quit, SIGTERM or SIGHUP.

The server starts it with ``exec``, so the server is its parent; it asks the kernel for SIGTERM when that parent dies,
so even a server killed with SIGKILL leaves no tab running and every tab still closes its store. Its backend comes in
its environment, never its arguments, so a URL's password is not in ``ps``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
from collections.abc import Sequence

SERVER_PID = "EMQ_DIVE_SERVE_PID"
"""The environment variable that names the server's pid, so a tab whose server is already gone exits at once."""
BACKEND = "EMQ_DIVE_SERVE_BACKEND"
"""The environment variable that holds the tab's backend (a URL with its password, where it has one)."""

PR_SET_PDEATHSIG = 1


def _die_with_server() -> bool:
    """Ask for SIGTERM when the server exits; False when the server is gone already."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    expected = os.environ.get(SERVER_PID)
    return expected is None or os.getppid() == int(expected)


def _hangup_as_terminate(signum: int, frame: object) -> None:
    # whatever handles SIGTERM at this moment (the launcher's, then Textual's) closes the app and its store
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the lesson as ``emq-dive LESSON --wire W`` would, on the environment's backend, in the web driver."""
    if not _die_with_server():
        return 1
    signal.signal(signal.SIGHUP, _hangup_as_terminate)
    parser = argparse.ArgumentParser(prog="emq_dive.views.web.child")
    parser.add_argument("lesson")
    parser.add_argument("--wire", type=int, choices=(4, 6), default=4)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    from ...launch import LaunchOptions, run
    return run(LaunchOptions(args.lesson, backend=os.environ.get(BACKEND, "fakeredis"), wire=args.wire))


if __name__ == "__main__":
    sys.exit(main())
