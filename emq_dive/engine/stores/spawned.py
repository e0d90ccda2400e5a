"""A real server the app starts itself: loopback only, a random password, no persistence."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import redis

from ..echo_mq.connector import raw
from .store import Store, StoreError

START_SECONDS = 10.0


def find_server() -> str | None:
    """The server binary: ``$EMQ_DIVE_SERVER`` when set, else ``valkey-server``, else ``redis-server``, on PATH."""
    chosen = os.environ.get("EMQ_DIVE_SERVER")
    if chosen:
        return shutil.which(chosen)
    return shutil.which("valkey-server") or shutil.which("redis-server")


def die_with_parent() -> None:
    """Ask the kernel for SIGTERM when the thread that spawned this process dies, even by SIGKILL of the app."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    """A TCP port on loopback that nothing listens on at the moment of asking."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def emq_module() -> tuple[Path | None, str]:
    """The EMQ module's path, or None and the reason wire 6 cannot run here."""
    try:
        from ..native.build import build_module
    except ImportError:
        return None, "the EMQ module is not part of this build"
    try:
        return build_module(), ""
    except RuntimeError as err:
        return None, str(err)


def _module_expected() -> bool:
    """Whether the EMQ module should load, guessed without building it: there is a compiler to build it with."""
    try:
        from ..native.build import NoCompiler, find_compiler
    except ImportError:
        return False
    try:
        find_compiler()
    except NoCompiler:
        return False
    return True


def start_server(binary: str, workdir: Path, password: str, module: Path | None,
                 extra: Sequence[str] = (), port: int | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``binary`` on ``port`` (default: a free one) of loopback, with ``workdir`` as its dir and ``extra``
    config lines."""
    port = port or free_port()
    config = workdir / "server.conf"
    lines = [f"port {port}", "bind 127.0.0.1", f"requirepass {password}", 'save ""',
             "appendonly no", f"dir {workdir}", "daemonize no", f"logfile {workdir / 'server.log'}", *extra]
    if module is not None:
        lines.append(f"loadmodule {module}")
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o600)
    proc = subprocess.Popen([binary, str(config)], cwd=workdir, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=die_with_parent)
    return proc, port


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a started server: SIGTERM, then SIGKILL after five seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_ready(proc: subprocess.Popen[bytes], client: redis.Redis, log: Path) -> None:
    """Return once the server answers PING; raise StoreError with its log's tail if it exits or stays silent."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
            raise StoreError(f"the server exited at start (status {proc.returncode}): {tail.strip()}")
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.02)
    raise StoreError(f"the server did not answer within {START_SECONDS:.0f} s")


@dataclass
class Launched:
    """A server that answers: its process, port and client, and why the EMQ module is missing if it is."""

    proc: subprocess.Popen[bytes]
    port: int
    client: redis.Redis
    module_reason: str


def launch(binary: str, workdir: Path, password: str, extra: Sequence[str] = (), port: int | None = None,
           keep_dir: bool = False) -> Launched:
    """Start ``binary`` with the EMQ module, or without it when it will not load, and wait until it answers.

    The config file, which holds the password, is deleted once the server has read it, and the work dir too
    unless ``keep_dir`` (a cluster node keeps its nodes.conf there).
    """
    module, module_reason = emq_module()
    for attempt_module in ([module, None] if module else [None]):
        proc, port = start_server(binary, workdir, password, attempt_module, extra, port)
        client = redis.Redis(host="127.0.0.1", port=port, password=password)
        try:
            wait_ready(proc, client, workdir / "server.log")
        except BaseException as err:
            client.close()
            stop_server(proc)
            if attempt_module is None or not isinstance(err, StoreError):
                raise
            module_reason = f"the server would not load the EMQ module: {err}"
            continue
        # read once at start; gone now, so even a SIGKILLed app leaves no password on disk
        (workdir / "server.conf").unlink()
        if not keep_dir:
            # a server without persistence writes nothing more there (its log is read only at start): removed
            # now, a SIGKILLed app leaves nothing at all on disk
            shutil.rmtree(workdir, ignore_errors=True)  # a start that failed left it; a started one is gone already
        return Launched(proc, port, client, module_reason)
    raise AssertionError("unreachable: the last attempt raises or returns")


def identify(client: redis.Redis, binary: str) -> tuple[str, str, bool]:
    """The server's name and version from INFO, and whether it serves EMQ.EXTENDS."""
    info = raw(client, "INFO", "server").decode()
    fields: dict[str, str] = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    name = fields.get("server_name", Path(binary).name.removesuffix("-server")).strip()
    version = fields.get("valkey_version", fields.get("redis_version", "?")).strip()
    native = raw(client, "COMMAND", "INFO", "EMQ.EXTENDS") not in ([None], [])
    return name, version, native


def watch(proc: subprocess.Popen[bytes], exited: threading.Event | None = None) -> threading.Event:
    """``exited`` (or a new event), set the moment ``proc`` exits: a thread waits on it, so a dead server is
    reaped at once, never left a zombie."""
    exited = exited or threading.Event()

    def reap() -> None:
        proc.wait()
        exited.set()

    threading.Thread(target=reap, name=f"emq-dive reaper {proc.pid}", daemon=True).start()
    return exited


def _no_binary() -> StoreError:
    chosen = os.environ.get("EMQ_DIVE_SERVER")
    return StoreError(f"EMQ_DIVE_SERVER={chosen} is not an executable" if chosen else
                      "no valkey-server or redis-server on PATH: install one "
                      "(for example: apt-get install redis-server), or use --backend fakeredis")


def _describe(store: Store, server: Launched, binary: str, origin: str) -> None:
    """Fill in what the started server says it is: name, version, whether it serves the native twin."""
    name, version, native = identify(server.client, binary)
    store.description = f"{name} {version} · {origin} on 127.0.0.1:{server.port}"
    store.native, store.native_reason = native, "" if native else (server.module_reason or "no EMQ module")
    store.pid = server.proc.pid


def open_spawned(queue: str, binary: str | None = None, *, kind: str = "server", origin: str = "spawned",
                 background: bool = False) -> Store:
    """Start ``binary`` (default: :func:`find_server`) and return it as a store of ``kind``, described by ``origin``.

    Call it from the main thread: the server is tied to the thread that spawned it. With ``background`` the
    store returns at once and a thread of its own starts the server and keeps it (see :func:`_start_behind`).
    """
    binary = binary or find_server()
    if binary is None:
        raise _no_binary()
    password = os.urandom(16).hex()
    if background:
        return _start_behind(queue, binary, kind, origin, password)
    proc: subprocess.Popen[bytes] | None = None
    client: redis.Redis | None = None
    workdir: Path | None = None
    try:  # a SIGTERM that lands anywhere from here on still removes the work dir
        workdir = Path(tempfile.mkdtemp(prefix="emq-dive-"))
        server = launch(binary, workdir, password)
        proc, client = server.proc, server.client
        store = Store(client=client, kind=kind, queue=queue, description="", native=False, owned=True)
        _describe(store, server, binary, origin)
        # newest first: the client, then the server (its directory went once it answered); in the try, for a signal
        store.on_close(lambda: stop_server(proc))
        store.on_close(client.close)
        store.close_at_exit()
    except BaseException:
        if client is not None:
            client.close()
        if proc is not None:
            stop_server(proc)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        raise
    store.exited = watch(proc)
    store.revive = lambda: _revive(store, binary, password, server.port, origin)
    return store


def _revive(store: Store, binary: str, password: str, port: int, origin: str) -> None:
    """Start a new server on the stopped one's port and password, held by a thread of its own (see
    :func:`_hold`); ``io`` waits for it, so the batch is set up on the new server."""
    name = Path(binary).name.removesuffix("-server")
    store.exited = threading.Event()
    store.starting = Future()
    store.description = f"starting {name} again…"
    _hold(store, binary, name, origin, password, port)


def _start_behind(queue: str, binary: str, kind: str, origin: str, password: str) -> Store:
    """A store whose server a thread of its own starts, holds while the store is open, and stops at close."""
    port = free_port()
    client = redis.Redis(host="127.0.0.1", port=port, password=password)
    name = Path(binary).name.removesuffix("-server")
    store = Store(client=client, kind=kind, queue=queue, description=f"starting {name}…",
                  native=_module_expected(), owned=True, starting=Future(), exited=threading.Event())
    store.close_at_exit()  # before the thread starts: an exit at any moment from here stops what it started
    store.revive = lambda: _revive(store, binary, password, port, origin)
    store.on_close(client.close)  # the closers run newest first: the client goes after the server
    _hold(store, binary, name, origin, password, port)
    return store


def _hold(store: Store, binary: str, name: str, origin: str, password: str, port: int) -> None:
    """Start the server on a thread of its own, which holds it until the store closes, then stops it.

    The thread spawns the server, so PR_SET_PDEATHSIG ties the server to it: it lives until ``close`` (or the
    process's death, SIGKILL included), and the app's start never waits for the module build or the server.
    The store's ``exited`` is set the moment the server exits, which reaps it at once.
    """
    started, exited = store.starting, store.exited
    assert started is not None and exited is not None
    stop = threading.Event()

    def hold() -> None:
        server: Launched | None = None
        workdir: Path | None = None
        try:
            if not stop.is_set():
                workdir = Path(tempfile.mkdtemp(prefix="emq-dive-"))
                server = launch(binary, workdir, password, port=port)
                server.client.close()  # the store's own client, made before the port was bound, serves from here
                _describe(store, server, binary, origin)
        except BaseException as err:
            started.set_exception(err if isinstance(err, StoreError) else StoreError(f"{name} did not start: {err}"))
        else:
            if server is not None:
                watch(server.proc, exited)
            started.set_result(None)
            stop.wait()
        finally:
            if server is not None:
                stop_server(server.proc)
            if workdir is not None:  # a start that failed left it; a started one is gone already
                shutil.rmtree(workdir, ignore_errors=True)

    keeper = threading.Thread(target=hold, name=f"emq-dive {name}", daemon=True)

    def release() -> None:
        stop.set()
        if keeper.ident is not None:  # a close that came before the start: there is nothing to wait for
            keeper.join(START_SECONDS + 10)

    store.on_close(release)  # before the start, so a SIGTERM that cuts the start short still waits for the thread
    keeper.start()
