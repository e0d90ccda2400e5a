"""SIGTERM and SIGHUP end the app as ``q`` does, at once, on a URL server: no key of the run is left there.

The TUI and ``--plain`` run in a pseudo-terminal against a redis-server of the test's own (conftest's
``own_server``); SIGHUP comes after the terminal's master side is closed, as when a terminal window closes.
"""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest
import redis
from conftest import own_server

from emq_dive.engine.stores import open_at_exit
from emq_dive.engine.stores.clean import clean

ROOT = Path(__file__).resolve().parent.parent
EXIT_SECONDS = 2.0
"""The issue's bound: the app is gone this long after the signal, with nothing typed."""
START_SECONDS = 60.0


class Pty:
    """``emq-dive batches-03 --backend URL`` (and ``extra``) on the slave side of a pty; what it draws is kept."""

    def __init__(self, url: str, *extra: str) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm-256color", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "emq_dive", "batches-03", "--backend", url, *extra],
                                     cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master: int | None = master
        self.screen = bytearray()
        self.seen = threading.Condition()
        self._reader = threading.Thread(target=self._drain, args=(master,), daemon=True)
        self._reader.start()

    def _drain(self, master: int) -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            with self.seen:
                self.screen += chunk
                self.seen.notify_all()
            if not chunk:
                return

    def wait_for(self, text: bytes, seconds: float = START_SECONDS) -> None:
        """Block until ``text`` reaches the terminal (woken by each chunk read, no polling sleep)."""
        with self.seen:
            if not self.seen.wait_for(lambda: text in self.screen or self.proc.poll() is not None, seconds):
                pytest.fail(f"{text!r} never reached the terminal: {bytes(self.screen)[-1500:]!r}")
        assert self.proc.poll() is None, f"the app exited early: {bytes(self.screen)[-1500:]!r}"

    def send(self, keys: bytes) -> None:
        assert self.master is not None
        os.write(self.master, keys)

    def hang_up(self) -> None:
        """Close the terminal, as a closed window does, before the kernel's SIGHUP."""
        if self.master is not None:
            os.close(self.master)
            self.master = None
        self._reader.join(timeout=5)

    def exited_within(self, seconds: float) -> int:
        """The exit status, failing when the app is still running ``seconds`` after now."""
        try:
            return self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the app still runs {seconds:.0f} s on: {bytes(self.screen)[-1500:]!r}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.hang_up()


def _dive_keys(client: redis.Redis) -> list[bytes]:
    return sorted(client.scan_iter(match="emq:*", count=1000))


@pytest.fixture
def server(tmp_path: Path):
    """A redis-server of this test's own: (its URL, a client on it)."""
    with own_server(tmp_path) as (port, client):
        yield f"redis://127.0.0.1:{port}/0", client


@pytest.mark.server
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("mode", ["tui", "plain"])
def test_a_signal_ends_the_app_at_once_and_leaves_no_key(server, signum: int, mode: str) -> None:
    url, client = server
    foreign = _seed_foreign(client)
    term = Pty(url, *(["--plain"] if mode == "plain" else []))
    try:
        term.wait_for(b"Batch" if mode == "tui" else b"Step 0 of")
        if mode == "tui":
            term.wait_for(b"JOB04")  # the batch is set up: its keys are on the server
        assert len(_dive_keys(client)) > len(foreign), "the run wrote its queue before the signal"
        if signum == signal.SIGHUP:
            term.hang_up()
        term.proc.send_signal(signum)
        code = term.exited_within(EXIT_SECONDS)
    finally:
        term.close()
    # a hung-up terminal may end --plain's input (EOF, EIO) before the kernel's SIGHUP does: either way it quits
    assert code in ((128 + signum, 0) if mode == "plain" and signum == signal.SIGHUP else (128 + signum,)), \
        bytes(term.screen)[-1500:]
    assert sorted(_dive_keys(client)) == sorted(foreign), "the run left its keys on the server"
    assert {key: (client.dump(key), client.pttl(key)) for key in foreign} == foreign, "a foreign key changed"


LOOK_ALIKES = (b"emq:{dive-00000000}:active", b"emq:{dive-*}:active", b"emq:{dive-11111111}:dive-owner")


def _seed_foreign(client: redis.Redis) -> dict[bytes, tuple[bytes, int]]:
    """Keys that look like a dive's but are not the run's: each with its DUMP and PTTL."""
    for key in LOOK_ALIKES:
        client.rpush(key, b"theirs") if key.endswith(b"active") else client.set(key, b"not ours")
    return {key: (client.dump(key), client.pttl(key)) for key in LOOK_ALIKES}


@pytest.mark.server
def test_a_quit_on_a_stalled_server_says_what_it_left_and_clean_deletes_it(tmp_path: Path) -> None:
    with own_server(tmp_path) as (port, client):
        url = f"redis://127.0.0.1:{port}/0"
        term = Pty(url)
        pid = int(client.info("server")["process_id"])
        try:
            term.wait_for(b"JOB04")
            os.kill(pid, signal.SIGSTOP)  # the server stalls: it holds every connection and answers nothing
            try:
                term.send(b"\x1b[C")  # a step the stalled server never answers
                term.send(b"q")
                code = term.exited_within(10)
            finally:
                os.kill(pid, signal.SIGCONT)
            term.hang_up()
        finally:
            term.close()
        assert code == 0
        told = [line for line in bytes(term.screen).decode(errors="replace").splitlines()
                if "could not delete the queue" in line]
        assert len(told) == 1, bytes(term.screen)[-1500:]
        assert f"emq-dive clean --backend {url}" in told[0]
        left = _dive_keys(client)
        assert left and all(0 < client.pttl(key) <= 15 * 60 * 1000 for key in left)
        queue = left[0].split(b":")[1].strip(b"{}").decode()
        assert f"emq:{{{queue}}}:*" in told[0]
        done = clean(client)
        assert [(found.queue, found.alive) for found, _ in done] == [(queue, False)]
        assert _dive_keys(client) == []


def test_the_signal_handlers_go_back_when_the_app_ends(fake_store) -> None:
    """The app's loop handlers are given back at unmount: a signal during the store's close finds the CLI's own."""
    import asyncio

    from emq_dive.course.lessons import load
    from emq_dive.views.tui.app import make_app

    mine = signal.getsignal(signal.SIGHUP)
    app = make_app(load("batches-03"), fake_store)

    async def run() -> object:
        async with app.run_test() as pilot:
            await pilot.pause()
            during = signal.getsignal(signal.SIGHUP)
        return during

    during = asyncio.run(run())
    assert during is not mine
    assert signal.getsignal(signal.SIGHUP) is mine


def test_a_close_ignores_a_second_signal_until_it_is_done(fake_store) -> None:
    """No signal cuts a close short: inside it SIGTERM and SIGHUP are ignored, then the handlers come back."""
    seen = []
    fake_store.on_close(lambda: seen.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP))))
    before = signal.getsignal(signal.SIGTERM)
    fake_store.close()
    assert seen == [(signal.SIG_IGN, signal.SIG_IGN)]
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.server
@pytest.mark.parametrize("mode", ["tui", "plain"])
def test_a_sigkilled_run_leaves_only_keys_that_expire_and_clean_finds_them(server, mode: str) -> None:
    url, client = server
    term = Pty(url, *(["--plain"] if mode == "plain" else []))
    try:
        term.wait_for(b"JOB04" if mode == "tui" else b"Step 0 of")
        term.proc.kill()  # no finally runs: the keys stay, but none without a TTL
        term.exited_within(EXIT_SECONDS)
    finally:
        term.close()
    left = _dive_keys(client)
    assert left and all(0 < client.pttl(key) <= 15 * 60 * 1000 for key in left), \
        {key: client.pttl(key) for key in left}
    done = clean(client)
    assert [found.alive for found, _ in done] == [False]
    assert _dive_keys(client) == []


@pytest.mark.server
def test_a_signal_just_after_the_markers_are_written_leaves_no_key(server, monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGHUP (the launcher's SystemExit) landing right after the owner markers are written, before the store is
    returned: the close registered to run at exit deletes them."""
    from emq_dive.engine.stores import url as url_store
    url, client = server
    before = {id(store) for store in open_at_exit()}

    def cut(self) -> None:
        assert _dive_keys(client), "the markers are on the server when the signal lands"
        raise SystemExit(129)

    monkeypatch.setattr(url_store.Keeper, "start", cut)
    with pytest.raises(SystemExit):
        url_store.open_url(url, "dive-0badcafe")
    monkeypatch.undo()
    cut = [store for store in open_at_exit() if id(store) not in before]
    assert cut, "the store's close is registered to run at exit before the first key is written"
    for store in cut:  # what the exit handler does for it (the others are the session's own, still in use)
        store.close()
    assert _dive_keys(client) == []


@pytest.mark.server
def test_a_closed_store_is_let_go_by_the_exit_handlers(server) -> None:
    """The close registered to run at exit is unregistered once the store closes, so a closed store is not kept
    alive until the process ends."""
    from emq_dive.engine.stores import url as url_store
    url, _ = server
    store = url_store.open_url(url, "dive-0c105ed0")
    assert any(held is store for held in open_at_exit())
    store.close()
    assert not any(held is store for held in open_at_exit())
