"""A real server the app starts itself: loopback only, a random password, no persistence."""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from ..echo_mq.connector import raw
from . import Store, StoreError

START_SECONDS = 10.0


def find_server() -> str | None:
    """The server binary: ``$EMQ_DIVE_SERVER`` when set, else ``valkey-server``, else ``redis-server``, on PATH."""
    chosen = os.environ.get("EMQ_DIVE_SERVER")
    if chosen:
        return shutil.which(chosen)
    return shutil.which("valkey-server") or shutil.which("redis-server")


def _die_with_parent() -> None:
    # the server gets SIGTERM when the thread that spawned it dies, even on SIGKILL of the app
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _module() -> tuple[Path | None, str]:
    """The EMQ module's path, or None and the reason wire 6 cannot run here."""
    try:
        from ..native.build import build_module
    except ImportError:
        return None, "the EMQ module is not part of this build"
    try:
        return build_module(), ""
    except RuntimeError as err:
        return None, str(err)


def _start(binary: str, workdir: Path, password: str, module: Path | None) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    config = workdir / "server.conf"
    lines = [f"port {port}", "bind 127.0.0.1", f"requirepass {password}", 'save ""',
             "appendonly no", f"dir {workdir}", "daemonize no", f"logfile {workdir / 'server.log'}"]
    if module is not None:
        lines.append(f"loadmodule {module}")
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o600)
    proc = subprocess.Popen([binary, str(config)], cwd=workdir, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent)
    return proc, port


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_ready(proc: subprocess.Popen[bytes], client: redis.Redis, log: Path) -> None:
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


def _describe(client: redis.Redis, binary: str, port: int, queue: str, module_reason: str) -> Store:
    """The store over a server that answers: its name and version from INFO, and whether EMQ.EXTENDS is there."""
    info = raw(client, "INFO", "server").decode()
    fields = {key: value for key, colon, value in (line.partition(":") for line in info.splitlines()) if colon}
    name = fields.get("server_name", Path(binary).name.removesuffix("-server")).strip()
    version = fields.get("valkey_version", fields.get("redis_version", "?")).strip()
    native = raw(client, "COMMAND", "INFO", "EMQ.EXTENDS") not in ([None], [])
    return Store(client=client, kind="server", queue=queue,
                 description=f"{name} {version} · spawned on 127.0.0.1:{port}",
                 native=native, native_reason="" if native else (module_reason or "no EMQ module"))


def open_spawned(queue: str, binary: str | None = None) -> Store:
    """Start ``binary`` (default: :func:`find_server`) and return it as a store.

    Call it from the main thread: the server is tied to the thread that spawned it.
    """
    binary = binary or find_server()
    if binary is None:
        chosen = os.environ.get("EMQ_DIVE_SERVER")
        raise StoreError(f"EMQ_DIVE_SERVER={chosen} is not an executable" if chosen else
                         "no valkey-server or redis-server on PATH: install one "
                         "(for example: apt-get install redis-server), or use --backend fakeredis")
    workdir = Path(tempfile.mkdtemp(prefix="emq-dive-"))
    password = os.urandom(16).hex()
    module, module_reason = _module()
    proc: subprocess.Popen[bytes] | None = None
    client: redis.Redis | None = None
    try:
        for attempt_module in ([module, None] if module else [None]):
            proc, port = _start(binary, workdir, password, attempt_module)
            client = redis.Redis(host="127.0.0.1", port=port, password=password)
            try:
                _wait_ready(proc, client, workdir / "server.log")
                # read once at start; gone now, so even a SIGKILLed app leaves no password on disk
                (workdir / "server.conf").unlink()
                break
            except StoreError as err:
                client.close()
                _stop(proc)
                if attempt_module is None:
                    raise
                module_reason = f"the server would not load the EMQ module: {err}"
        assert proc is not None and client is not None, "the last attempt either answered or raised"
        store = _describe(client, binary, port, queue, module_reason)
    except BaseException:
        if client is not None:
            client.close()
        if proc is not None:
            _stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    store.pid = proc.pid
    # closers run newest first: the client, then the server, then its directory
    store.on_close(lambda: shutil.rmtree(workdir, ignore_errors=True))
    store.on_close(lambda: _stop(proc))
    store.on_close(client.close)
    atexit.register(store.close)
    return store
