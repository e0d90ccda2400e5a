"""The server's end of the warm pool: the pool's parent process, and a tab's process taken from it on request."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Mapping
from typing import IO, Protocol

from .warm import CONTROL

READY_SECONDS = 60.0
"""How long the pool's parent may take to import the app and say it is ready before tabs start on their own."""
STOP_SECONDS = 5.0

log = logging.getLogger("emq-dive.serve")


async def _reader(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=1 << 20)
    pipe: IO[bytes] = os.fdopen(fd, "rb", 0)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    return reader


async def _writer(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamWriter:
    pipe: IO[bytes] = os.fdopen(fd, "wb", 0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    return asyncio.StreamWriter(transport, protocol, None, loop)


async def _send(loop: asyncio.AbstractEventLoop, sock: socket.socket, message: bytes, fds: list[int]) -> None:
    """Send ``message`` with ``fds`` on the non-blocking ``sock``, waiting for room if it has none."""
    while True:
        try:
            socket.send_fds(sock, [message], fds)
            return
        except BlockingIOError:
            room: asyncio.Future[None] = loop.create_future()

            def free(room: asyncio.Future[None] = room) -> None:
                if not room.done():
                    room.set_result(None)

            loop.add_writer(sock.fileno(), free)
            try:
                await room
            finally:
                loop.remove_writer(sock.fileno())


class TabProcess(Protocol):
    """What the server needs of a tab's process, whether it started it or the pool forked it."""

    pid: int

    async def wait(self) -> int: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


class WarmProcess:
    """A tab's app process forked by the pool (not this server's child): its pipes, its pid, and its end."""

    def __init__(self, pid: int, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader,
                 stderr: asyncio.StreamReader, alive: asyncio.StreamReader) -> None:
        self.pid, self.stdin, self.stdout, self.stderr = pid, stdin, stdout, stderr
        self.returncode: int | None = None
        """None while it runs; 0 once it is gone (its exit status is its parent's to read, not this server's)."""
        self._gone = asyncio.ensure_future(alive.read())

    async def wait(self) -> int:
        """Wait until the process has exited: its alive pipe's end of file."""
        await asyncio.shield(self._gone)
        self.returncode = 0
        self.stdin.close()
        return 0

    def _signal(self, signum: int) -> None:
        if not self._gone.done():
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        """SIGTERM, unless it is gone already."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL, unless it is gone already."""
        self._signal(signal.SIGKILL)


class WarmPool:
    """The pool's parent (``emq_dive.views.web.warm``) with ``spares`` ready, and the socket to ask it for a tab."""

    def __init__(self, lesson: str, wire: int, spares: int) -> None:
        self.argv = [sys.executable, "-m", "emq_dive.views.web.warm", lesson, "--wire", str(wire),
                     "--spares", str(spares)]
        self.process: asyncio.subprocess.Process | None = None
        self.sock: socket.socket | None = None
        self.lock = asyncio.Lock()

    async def start(self, environment: Mapping[str, str]) -> bool:
        """Start the pool's parent with ``environment`` and wait until it is ready; False (logged) if it is not."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL, pass_fds=[theirs.fileno()],
                env={**environment, CONTROL: str(theirs.fileno())})
        finally:
            theirs.close()
        self.sock = ours
        try:
            said = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(ours, 16), READY_SECONDS)
        except (TimeoutError, OSError):
            said = b""
        if said != b"R":
            log.warning("the warm pool did not start; each tab starts a process of its own")
            await self.close()
            return False
        return True

    async def tab(self, width: int, height: int) -> WarmProcess | None:
        """A spare's process, now running the tab at ``width`` × ``height``; None if the pool could not give one."""
        if self.sock is None:
            return None
        loop = asyncio.get_running_loop()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        alive_r, alive_w = os.pipe()
        try:
            async with self.lock:
                await _send(loop, self.sock, json.dumps({"width": width, "height": height}).encode(),
                            [stdin_r, stdout_w, stderr_w, alive_w])
        except OSError as err:
            log.warning("the warm pool is gone (%s); each tab starts a process of its own", err)
            for fd in (stdin_w, stdout_r, stderr_r, alive_r):
                os.close(fd)
            self.sock.close()
            self.sock = None
            return None
        finally:
            for fd in (stdin_r, stdout_w, stderr_w, alive_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        alive = await _reader(loop, alive_r)
        streams = (await _writer(loop, stdin_w), await _reader(loop, stdout_r), await _reader(loop, stderr_r))
        try:
            pid = int.from_bytes(await alive.readexactly(4), "big")
        except asyncio.IncompleteReadError:  # the spare died before it took the tab
            streams[0].close()
            return None
        return WarmProcess(pid, *streams, alive=alive)

    async def close(self) -> None:
        """End the pool's parent: its spares get SIGTERM as it exits, and each closes its store."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        process, self.process = self.process, None
        if process is None:
            return
        for send in (None, process.terminate, process.kill):
            if send is not None:
                with contextlib.suppress(ProcessLookupError):
                    send()
            try:
                await asyncio.wait_for(process.wait(), STOP_SECONDS)
                return
            except TimeoutError:
                continue
