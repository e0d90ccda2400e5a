"""The warm pool's parent: it imports the app once, keeps spare tab processes forked from it, each with its own store
already open, and hands each new tab's pipes to a spare, so a tab skips the imports and the store's start.

It talks to the server over one socket (its fd in ``$EMQ_DIVE_WARM_FD``): it sends ``R`` once it is ready, then takes
one message per tab, ``{"width": W, "height": H}`` with the tab's stdin, stdout, stderr and "alive" pipe ends as fds.
The spare that takes them writes its pid on the alive pipe and holds it open until it exits, so the server sees the
tab's end as that pipe's end of file. Each spare and tab dies with this parent, and this parent with the server.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
import threading
import traceback
from collections import deque
from collections.abc import Sequence

from ...engine.stores import close_open_stores
from . import child

CONTROL = "EMQ_DIVE_WARM_FD"
"""The environment variable that holds the fd of this parent's end of the server's socket."""
NAME = "emq-dive-warm"
SPARE_NAME = "emq-dive-spare"
PRELOAD = ("emq_dive.views.tui", "emq_dive.present", "emq_dive.course", "emq_dive.engine")
"""The packages imported whole before the first fork, so no tab imports any of them again."""
MESSAGE = 4096


def _preload(lesson: str) -> None:
    """Import the launcher, the app and the packages it reaches lazily, the web driver, and read the lesson once."""
    import importlib
    import pkgutil
    child.preload()
    importlib.import_module("textual.drivers.web_driver")
    for name in PRELOAD:
        package = importlib.import_module(name)
        for found in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not found.name.endswith("__main__"):
                importlib.import_module(found.name)
    from ...course.lessons import find
    find(lesson)


def _rehearse(lesson: str, wire: int) -> None:
    """Run the dive once headless to its first settled frame, on a throwaway fakeredis store, so what a first frame
    fills in once per process (Textual's parsed styles, each handler's parameter count) is shared with every fork."""
    import asyncio

    from ...course.lessons import find
    from ...engine.stores import open_store
    from ..tui.app import make_app, wait_ready
    store = open_store("fakeredis")
    try:
        app = make_app(find(lesson), store, wire=wire)

        async def rehearse() -> None:
            async with app.run_test(size=(120, 40)) as pilot:
                await wait_ready(app, pilot)

        asyncio.run(rehearse())
    finally:
        store.close()


class Spares:
    """The spares this parent keeps, oldest first: (pid, this parent's end of the spare's socket)."""

    def __init__(self, args: object, control: socket.socket) -> None:
        self.args = args
        self.control = control
        self.idle: deque[tuple[int, socket.socket]] = deque()

    def fork(self) -> tuple[int, socket.socket]:
        """Fork one spare; it opens its store, then waits on its socket for a tab."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the spare: it never returns into this loop
            code = 1
            try:
                for _, sock in self.idle:
                    sock.close()
                ours.close()
                self.control.close()
                code = _spare(self.args, theirs, parent)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                close_open_stores()  # os._exit skips the exit handlers: a store a signal cut off is closed here
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (OSError, ValueError):
                        pass
                os._exit(code)
        theirs.close()
        return pid, ours

    def hand(self, message: bytes, fds: list[int]) -> None:
        """Give a tab's pipes to the oldest live spare (a fresh one if none takes them), then fork its replacement."""
        while True:
            _, sock = self.idle.popleft() if self.idle else self.fork()
            try:
                socket.send_fds(sock, [message], fds)
                return
            except OSError:
                continue  # that spare is gone (its store failed to open, say): the next one
            finally:
                sock.close()

    def refill(self, count: int) -> None:
        """Fork spares until ``count`` wait."""
        while len(self.idle) < count:
            self.idle.append(self.fork())


def _spare(args: object, sock: socket.socket, parent: int) -> int:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its own children (its store's server) are its to wait for
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not child.die_with_parent(parent):
        return 1
    child.name_process(SPARE_NAME)
    gc.enable()

    def take_tab() -> None:
        message, fds, _, _ = socket.recv_fds(sock, MESSAGE, 4)
        sock.close()
        if len(fds) != 4:  # this parent went away (end of file) or sent something else: no tab to run
            raise SystemExit(1)
        size = json.loads(message)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
            os.close(fd)
        alive = fds[3]
        os.set_inheritable(alive, False)
        os.environ["COLUMNS"], os.environ["ROWS"] = str(int(size["width"])), str(int(size["height"]))
        child.name_process(child.TAB_NAME)
        os.write(alive, os.getpid().to_bytes(4, "big"))  # held open until this process exits

    return child.run_tab(args.lesson, args.wire, ready=take_tab)  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    """Preload, fork the spares, say ready, then give each tab the server asks for to a spare until the server goes."""
    expected = os.environ.get(child.SERVER_PID)
    if not child.die_with_parent(None if expected is None else int(expected)):
        return 1
    child.name_process(NAME)
    args = child.arguments(sys.argv[1:] if argv is None else argv)
    control = socket.socket(fileno=int(os.environ.pop(CONTROL)))
    gc.disable()
    _preload(args.lesson)
    _rehearse(args.lesson, args.wire)
    if threading.active_count() > 1:
        raise RuntimeError("the preload started a thread, so forking from it is unsafe")
    gc.collect()  # the rehearsal's cycles, freed before the fork rather than copied into every tab
    gc.freeze()  # what the preload built stays shared with every fork: the collector never writes to it
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # a spare or tab that exits is reaped by the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to act on: it ends the tabs, then this
    spares = Spares(args, control)
    spares.refill(args.spares)
    control.sendall(b"R")
    while True:
        message, fds, _, _ = socket.recv_fds(control, MESSAGE, 4)
        if not message:
            return 0  # the server closed its end: the spares get SIGTERM as this process ends
        try:
            if len(fds) == 4:
                spares.hand(message, fds)
        finally:
            for fd in fds:
                os.close(fd)
        spares.refill(args.spares)


if __name__ == "__main__":
    sys.exit(main())
