"""The foreign-data guarantee, on its own: on a URL server full of look-alike keys, a full run in every fate and mode,
then every way out (quit, Ctrl+C, SIGTERM, SIGHUP), leaves every key that is not the run's byte for byte as it was.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from conftest import own_server, require_native
from serve_support import poll

from emq_dive.course import lessons
from emq_dive.engine import fate_table
from emq_dive.engine.stepper.modes import ModeRefused
from emq_dive.engine.stores import open_store
from emq_dive.present.session import Session

ROOT = Path(__file__).resolve().parent.parent
LESSON = lessons.load("batches-03")
LOOK_ALIKES = ["emq:{dive-00000000}:active", "emq:{dive-*}:active", "emq:{dive-?}:active", "emq:{dive-[0-9]}:active",
               "emq:{dive-00000000}:", "emq:{dive-00000000}:job:JOB01", "emq:{dive-ffffffff}:pending",
               "emq:{q}:active", "emq:{q}:job:JOB01", "emq:dive-00000000:active", "{dive-00000000}", "plain"]
"""Keys named like a dive's, or like the course's, that no run owns; each db gets every one."""


def _db(port: int, db: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, db=db)


def _seed(port: int) -> None:
    for db in (0, 1):
        other = _db(port, db)
        for number, key in enumerate(LOOK_ALIKES):
            kind = number % 5
            if kind == 0:
                other.zadd(key, {"JOB01": 1_700_000_000_000, "JOB02": 5})
            elif kind == 1:
                other.hset(key, mapping={"attempts": "1", "state": "active", "db": str(db)})
            elif kind == 2:
                other.set(key, f"a string in db {db}")
            elif kind == 3:
                other.rpush(key, "a", "b")
            else:
                other.sadd(key, "x", "y")
            if number % 3 == 0:
                other.pexpire(key, 3_600_000)
        other.xadd("emq:{dive-00000000}:events", {"e": "1"})
        other.close()


def _snapshot(client: redis.Redis) -> dict[tuple[int, bytes], tuple[bytes, bool]]:
    """Every key in db 0 and db 1: its DUMP, and whether it has a TTL."""
    out = {}
    port = client.connection_pool.connection_kwargs["port"]
    for db in (0, 1):
        other = _db(port, db)
        for key in other.scan_iter(count=1000):
            dumped = other.dump(key)
            assert dumped is not None
            out[(db, key)] = (dumped, other.pttl(key) > 0)
        other.close()
    return out


@contextlib.contextmanager
def _seeded(tmp_path: Path) -> Iterator[tuple[int, redis.Redis, dict]]:
    from emq_dive.engine.native.build import build_module
    with own_server(tmp_path, "--loadmodule", str(build_module())) as (port, client):
        _seed(port)
        yield port, client, _snapshot(client)


def _runs_keys(client: redis.Redis, before: dict) -> set[bytes]:
    return {key for key in client.scan_iter(count=1000) if (0, key) not in before}


def _assert_untouched(client: redis.Redis, before: dict) -> None:
    after = {where: seen for where, seen in _snapshot(client).items() if where in before}
    assert after.keys() == before.keys(), f"foreign keys gone: {sorted(before.keys() - after.keys())}"
    changed = sorted(where for where in before if after[where] != before[where])
    assert not changed, f"foreign keys changed: {changed}"


@pytest.mark.server
def test_a_full_run_in_every_fate_and_mode_leaves_every_foreign_key_as_it_was(tmp_path: Path) -> None:
    with _seeded(tmp_path) as (port, client, before):
        store = require_native(open_store(f"redis://127.0.0.1:{port}/0"))
        assert store.native, "wire 6 runs too: the server has the EMQ module"
        try:
            session = Session(store, LESSON, wire=4)
            with store.io():
                session.open(0)
                for wire in (4, 6):
                    session.switch(wire)
                    for run_mode, guard_off in (("batch", False), ("singles", False), ("batch", True)):
                        try:
                            session.set_mode(run_mode, guard_off)
                        except ModeRefused:
                            continue
                        frame = session.goto(1)
                        with contextlib.suppress(Exception):  # a reaper with nothing to reap says so
                            session.reap()
                        frame = session.goto(frame.step.count)
                        session.goto(0)
                    session.set_mode("batch", False)
                for fate in fate_table.FATES:
                    session.run_fate(fate.key)
                    if fate.member:
                        session.apply(0, fate.key)
                        frame = session.goto(session.frame().step.count)
                        session.goto(0)
            assert _runs_keys(client, before), "the run wrote its own keys"
        finally:
            store.close()
        assert not _runs_keys(client, before), "the close deleted the run's keys"
        _assert_untouched(client, before)


def _plain(port: int, tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--plain", "--backend",
                             f"redis://127.0.0.1:{port}/0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


class _Pty:
    """The TUI on a pseudo-terminal, its output drained so it never blocks."""

    def __init__(self, port: int, tmp_path: Path) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--backend",
                                      f"redis://127.0.0.1:{port}/0"], stdin=slave, stdout=slave, stderr=slave,
                                     cwd=tmp_path, start_new_session=True, close_fds=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"})
        os.close(slave)
        self.master, self.screen = master, bytearray()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(self.master, 65536):
                self.screen += chunk

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)


EXITS = {
    "quit": None,
    "ctrl+c": signal.SIGINT,
    "sigterm": signal.SIGTERM,
    "sighup": signal.SIGHUP,
}


@pytest.mark.server
@pytest.mark.parametrize("ui", ["plain", "tui"])
@pytest.mark.parametrize("how", list(EXITS))
def test_every_way_out_leaves_every_foreign_key_as_it_was(tmp_path: Path, ui: str, how: str) -> None:
    with _seeded(tmp_path) as (port, client, before):
        if ui == "plain":
            app: subprocess.Popen[str] | _Pty = _plain(port, tmp_path)
            proc = app.proc if isinstance(app, _Pty) else app
            assert proc.stdin is not None
            proc.stdin.write("\n\nw\n\nf\n1\n1\n\n")  # steps, the wire, a fate on member 1, a step
            proc.stdin.flush()
        else:
            app = _Pty(port, tmp_path)
            proc = app.proc
        poll(lambda: _runs_keys(client, before) or proc.poll() is not None, "the run's keys on the server", 30)
        assert proc.poll() is None, "the app exited early"
        if ui == "tui":
            poll(lambda: b"Batch" in app.screen, "the first frame", 30)  # type: ignore[union-attr]
            app.send(b"\x1b[C\x1b[Cw\x1b[C")  # type: ignore[union-attr]
        signum = EXITS[how]
        if signum is None:
            if isinstance(app, _Pty):
                app.send(b"q")
            else:
                assert proc.stdin is not None
                proc.stdin.write("q\n")
                proc.stdin.flush()
        else:
            proc.send_signal(signum)
        try:
            proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        _assert_untouched(client, before)
        left = _runs_keys(client, before)
        assert not left, f"{how} left the run's keys"
