"""Helpers for the EMQ module tests: a spawned redis-server and a raw RESP client."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from emq_dive.echo_mq import native

START_SECONDS = 15.0


@dataclass(frozen=True)
class Err:
    """An error reply, kept as its exact wire text."""

    text: str


def server_binary() -> str:
    """The redis-server to test with; skips without one locally, fails without one in CI."""
    found = shutil.which("redis-server")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("redis-server is required in CI (apt-get install redis-server)")
    pytest.skip("redis-server is not installed")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _encode(parts: Sequence[bytes | str | int]) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Raw:
    """A minimal RESP2 client: pipelined commands, errors returned as Err with their exact text."""

    def __init__(self, port: int, password: str | None = None, user: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""
        if password is not None:
            reply = self.call("AUTH", *([user] if user else []), password)
            assert reply == b"OK", reply

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n: int) -> bytes:
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self) -> object:
        """Read one reply."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return Err(rest.decode("utf-8", "replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            return None if rest == b"-1" else self._exact(int(rest))
        if kind == b"*":
            return None if rest == b"-1" else [self.read() for _ in range(int(rest))]
        raise ValueError(f"not a RESP2 reply: {line!r}")

    def pipeline(self, commands: Sequence[Sequence[bytes | str | int]]) -> list[object]:
        """Send every command, then read every reply in order."""
        self.sock.sendall(b"".join(_encode(c) for c in commands))
        return [self.read() for _ in commands]

    def call(self, *parts: bytes | str | int) -> object:
        """Send one command and return its reply."""
        return self.pipeline([parts])[0]


@dataclass
class Server:
    """A spawned redis-server on loopback."""

    process: subprocess.Popen
    port: int
    password: str
    workdir: Path

    def raw(self, user: str | None = None, password: str | None = None) -> Raw:
        """A new raw connection, authenticated as the default user unless told otherwise."""
        return Raw(self.port, password or self.password, user)

    @property
    def log(self) -> str:
        """The server's log so far."""
        path = self.workdir / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def spawn(module: Path | None, *, extra: Sequence[str] = (), env: dict[str, str] | None = None,
          prefix: Sequence[str] = (), start_seconds: float = START_SECONDS) -> Iterator[Server]:
    """Run a redis-server (optionally loading the module) for the block, and always stop it."""
    binary = server_binary()
    password = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="emq-module-") as tmp:
        workdir = Path(tmp)
        port = _free_port()
        args = [*prefix, binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--requirepass", password, "--dir", str(workdir),
                "--logfile", str(workdir / "server.log"), "--daemonize", "no"]
        if module is not None:
            args += ["--loadmodule", str(module)]
        args += list(extra)
        process = subprocess.Popen(args, cwd=workdir, env={**os.environ, **(env or {})},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        server = Server(process, port, password, workdir)
        try:
            deadline = time.monotonic() + start_seconds
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"redis-server exited {process.returncode}:\n{server.log}")
                try:
                    probe = server.raw()
                    if probe.call("PING") == b"PONG":
                        probe.close()
                        break
                    probe.close()
                except (OSError, ConnectionError, AssertionError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start:\n{server.log}")
                time.sleep(0.05)
            yield server
        finally:
            stop(server)


def stop(server: Server, timeout: float = 30.0) -> int | None:
    """Shut the server down (SHUTDOWN NOSAVE, then SIGTERM, then SIGKILL); return its exit code."""
    process = server.process
    if process.poll() is None:
        with contextlib.suppress(Exception):
            conn = server.raw()
            conn.sock.settimeout(5)
            conn.sock.sendall(_encode(["SHUTDOWN", "NOSAVE"]))
            conn.close()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return process.returncode


class ClientHost:
    """A native.Host over a raw connection: the Python twin run against a real server's data."""

    def __init__(self, conn: Raw, acl_user: str | None = None) -> None:
        self.conn = conn
        self.acl_user = acl_user

    def _ok(self, reply: object) -> object:
        if isinstance(reply, Err):
            if reply.text.startswith("WRONGTYPE"):
                raise native.NativeError(native.WRONGTYPE)
            raise AssertionError(reply.text)
        return reply

    def now_ms(self) -> int:
        """The server clock, from TIME."""
        secs, micros = self._ok(self.conn.call("TIME"))
        return int(secs) * 1000 + int(micros) // 1000

    def run_id(self) -> bytes:
        """INFO server's run_id."""
        info = self._ok(self.conn.call("INFO", "server"))
        for line in info.splitlines():
            if line.startswith(b"run_id:"):
                return line.split(b":", 1)[1].strip()
        raise AssertionError("no run_id in INFO")

    def may(self, key: bytes, write: bool) -> bool:
        """ACL DRYRUN of HSET (write) or HGET (read) on the key as the configured user."""
        if self.acl_user is None:
            return True
        probe = ["HSET", key, "lease_epoch", "x"] if write else ["HGET", key, "attempts"]
        return self.conn.call("ACL", "DRYRUN", self.acl_user, *probe) == b"OK"

    def hget(self, key: bytes, field: bytes) -> bytes | None:
        """HGET."""
        return self._ok(self.conn.call("HGET", key, field))

    def zscore(self, key: bytes, member: bytes) -> bytes | None:
        """ZSCORE."""
        return self._ok(self.conn.call("ZSCORE", key, member))

    def zadd(self, key: bytes, score: bytes, member: bytes) -> None:
        """ZADD."""
        self._ok(self.conn.call("ZADD", key, score, member))

    def hset(self, key: bytes, field: bytes, value: bytes) -> None:
        """HSET."""
        self._ok(self.conn.call("HSET", key, field, value))


def python_twin(host: ClientHost, verb: str, args: Sequence[bytes]) -> object:
    """native.serve's reply, with an error as Err like the wire gives it."""
    try:
        return native.serve(host, verb, list(args))
    except native.NativeError as err:
        return Err(str(err))


def snapshot(conn: Raw, pattern: bytes = b"*") -> dict[bytes, object]:
    """Every matching key's type and value; zset scores as floats."""
    out: dict[bytes, object] = {}
    for key in sorted(conn.call("KEYS", pattern)):
        kind = conn.call("TYPE", key)
        if kind == b"hash":
            flat = conn.call("HGETALL", key)
            out[key] = ("hash", dict(zip(flat[::2], flat[1::2])))
        elif kind == b"zset":
            flat = conn.call("ZRANGE", key, 0, -1, "WITHSCORES")
            out[key] = ("zset", {m: float(s) for m, s in zip(flat[::2], flat[1::2])})
        elif kind == b"string":
            out[key] = ("string", conn.call("GET", key))
        else:
            out[key] = (kind.decode(), conn.call("DUMP", key))
    return out
