"""``emq-dive serve``: one app process and one store per browser tab, a cap on tabs, and nothing left when a tab goes.

The browser tests drive the system Chromium headless through Playwright; they run in CI and skip elsewhere only
when chromium is missing. The rest talk to the server over plain sockets and signals.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import signal
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis
from serve_browser import stat
from serve_support import (
    QUEUE,
    Screen,
    browser,
    dive_queues,
    drain,
    open_tab,
    poll,
    running_in,
    served,
    shared_url,
    tab_processes,
)

from emq_dive.cli import main
from emq_dive.views.web import server as web_server
from emq_dive.views.web.server import Tab, is_loopback

FAILED = re.compile(r"failed(?: after member \d+)?: \[([^\]]*)\]")


# -- the command line ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "says"), [
    (["nope"], "no lesson 'nope'"),
    (["--port", "x"], "'x' is not a whole number"),
    (["--port", "70000"], "70000 is not a TCP port"),
    (["--max-sessions", "0"], "0 is not at least 1"),
    (["--backend", "nowhere"], "unknown backend 'nowhere'"),
    (["--backend", "redis://:secret@127.0.0.1:1"], "cannot reach redis://***@127.0.0.1:1"),
])
def test_a_bad_argument_is_one_line_before_anything_is_served(capsys, args: list[str], says: str) -> None:
    try:
        status = main(["serve", *args])
    except SystemExit as exit_:
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2
    lines = [line for line in err.strip().splitlines() if "warning: the password in" not in line]
    assert says in err and len(lines) == 1, err
    assert "secret" not in err


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.1", True), ("localhost", True), ("LOCALHOST.", True), ("::1", True),
    ("[::1]", True), ("0.0.0.0", False), ("::", False), ("192.168.1.4", False), ("example.com", False), ("", False),
])
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_it_binds_loopback_by_default_and_warns_for_any_other_host(tmp_path: Path) -> None:
    with served(tmp_path) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert "at most 8 at once" in server.banner
        assert not server.err
    with served(tmp_path, "--host", "0.0.0.0") as server:
        poll(lambda: server.err, "the warning line")
        assert server.err[0].startswith("emq-dive serve: warning: 0.0.0.0 is not a loopback address")


def _get(url: str, **headers: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_a_loopback_server_answers_only_to_loopback_names_and_its_own_pages(tmp_path: Path) -> None:
    with served(tmp_path) as server:
        status, body = _get(server.url)
        assert status == 200 and "/ws" in body
        status, body = _get(server.url, Host="rebound.example:80")
        assert status == 403 and "only at a loopback address" in body
        handshake = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                     "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode()}
        status, _ = _get(server.url + "ws", Origin="http://evil.example", **handshake)
        assert status == 403
        assert not server.tabs()


# -- a tab that goes away, without a browser ------------------------------------------------------------------------


_open_tab, _queues = open_tab, dive_queues
"""Their former names here, which other test modules import."""


@pytest.fixture
def shared(_spawned) -> tuple[redis.Redis, str]:
    """The session's spawned redis-server as a shared URL server: a client of it, and its URL."""
    return shared_url(_spawned)


def _tab_with_keys(server, client: redis.Redis, sock: socket.socket, before: set[str]) -> tuple[int, str]:
    """(the tab app's pid, its queue) once it has written its batch to the shared server."""
    queues = poll(lambda: drain(sock) and dive_queues(client) - before, "the tab's batch on the shared server")
    (queue,) = queues
    (pid,) = poll(server.tabs, "the tab's app process")
    return pid, queue


@pytest.mark.server
@pytest.mark.parametrize("how", ["dropped", "hangup", "terminated"])
def test_a_tab_whose_connection_drops_or_whose_app_is_signalled_leaves_nothing(tmp_path: Path, shared, how: str
                                                                               ) -> None:
    client, url = shared
    with served(tmp_path, "--backend", url) as server:
        before = dive_queues(client)
        sock = open_tab(server.url)
        pid, queue = _tab_with_keys(server, client, sock, before)
        if how == "dropped":  # no close frame: the peer resets the connection, as a killed browser's does
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()
        else:
            os.kill(pid, signal.SIGHUP if how == "hangup" else signal.SIGTERM)
        poll(lambda: not server.tabs(), "the tab's app to exit")
        assert queue not in dive_queues(client)
        if how != "dropped":
            poll(lambda: not drain(sock), "the server to close the tab's connection")
            sock.close()
        assert server.proc.poll() is None


@pytest.mark.server
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_a_server_that_stops_or_is_killed_ends_every_tab_and_its_store(tmp_path: Path, shared, signum: int) -> None:
    client, url = shared
    with served(tmp_path, "--backend", url) as server:
        before = dive_queues(client)
        socks = [open_tab(server.url) for _ in range(2)]
        queues = poll(lambda: all(drain(s) for s in socks) and len(dive_queues(client) - before) == 2 and
                      dive_queues(client) - before, "both tabs' batches")
        status = server.stop(signum)
        assert status == (-signal.SIGKILL if signum == signal.SIGKILL else 0)
        # a SIGKILLed server cannot end its tabs: the kernel's SIGTERM to each orphan does, and each closes its store
        poll(lambda: not tab_processes(server.tmpdir), "the tab apps to exit")
        assert not queues & dive_queues(client)
        for sock in socks:
            sock.close()


@pytest.mark.server
def test_a_tab_past_the_cap_is_told_so_on_its_terminal_and_closed(tmp_path: Path, shared) -> None:
    client, url = shared
    with served(tmp_path, "--backend", url, "--max-sessions", "1") as server:
        before = dive_queues(client)
        first = open_tab(server.url)
        _tab_with_keys(server, client, first, before)
        heard = bytearray()
        second = open_tab(server.url, heard)
        second.setblocking(True)
        while chunk := second.recv(4096):
            heard += chunk
        assert b"at most 1 dive(s) at once" in heard
        assert b"\x88" in heard and (1013).to_bytes(2, "big") in heard, "a close frame, code 1013: try again later"
        assert len(server.tabs()) == 1 and len(dive_queues(client) - before) == 1
        second.close()
        first.close()


STUBBORN = """
import pathlib, signal, sys, time
if sys.argv[1] == "sigterm too":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("__GANGLION__", flush=True)
pathlib.Path(sys.argv[2]).touch()
time.sleep(60)
"""


@pytest.mark.parametrize(("ignores", "ended_by"), [("the quit", signal.SIGTERM), ("sigterm too", signal.SIGKILL)])
def test_a_tab_app_that_ignores_the_quit_is_terminated_then_killed(monkeypatch, tmp_path: Path, ignores: str,
                                                                   ended_by: int) -> None:
    monkeypatch.setattr(web_server, "QUIT_SECONDS", 0.3)
    monkeypatch.setattr(web_server, "KILL_SECONDS", 0.3)
    from textual_serve.download_manager import DownloadManager
    ready = tmp_path / "ready"

    async def discard(data: object) -> None:
        pass

    async def nothing() -> None:
        pass

    async def scenario() -> tuple[int | None, int | None]:
        command = f"exec {sys.executable} -c '{STUBBORN}' '{ignores}' {ready}"
        tab = Tab(command, write_bytes=discard, write_str=discard, close=nothing, download_manager=DownloadManager())
        await tab.start(80, 24)
        deadline = time.monotonic() + 20
        while not ready.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert ready.exists(), "the stand-in app did not start"
        await tab.close()
        await tab.close()  # a second close waits for the same end
        return tab.pid, tab._process.returncode if tab._process else None

    pid, status = asyncio.run(scenario())
    assert status == -ended_by
    assert pid is not None and not Path(f"/proc/{pid}").exists()


# -- in a real browser ---------------------------------------------------------------------------------------------


def _failed_ids(text: str) -> list[str]:
    found = FAILED.search(text)
    assert found, f"no failed list on screen:\n{text}"
    return [part.strip() for part in found.group(1).split(",") if part.strip()]


@pytest.mark.browser
def test_a_tab_steps_the_dive_switches_the_wire_and_leaves_nothing_when_closed(tmp_path: Path) -> None:
    with served(tmp_path) as server, browser() as chromium:
        tab = Screen(chromium, server.url)
        assert tab.open().status == 200
        first = tab.settled("step 0 of 4", "the dive's first screen")
        assert "failed: [] · nothing sent yet" in first and "Batch lease extension" in first
        for step in range(1, 5):
            tab.press("ArrowRight")
            shown = tab.settled(f"step {step} of 4", f"step {step}")
        assert shown != first and "nothing sent yet" not in shown
        failed = _failed_ids(shown)
        assert failed, "the lesson's batch has members that fail"
        for job in failed:
            assert re.search(rf"{job} .*joins failed \(", shown), f"{job} is listed failed but its row says otherwise"
        tab.press("w")
        compared = tab.settled("EMQ.EXTENDS · wire 6", "the compare view")
        listed = repr(failed)
        assert compared.count(f"returns {listed}") == 2, "both wires return the failed list the steps built"
        assert len(server.tabs()) == 1
        tab.close()
        poll(lambda: not server.tabs(), "the closed tab's app to exit")
        assert server.proc.poll() is None


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize("backend", ["url", "server"])
def test_two_tabs_get_separate_stores_and_closing_them_leaves_nothing(tmp_path: Path, shared, backend: str) -> None:
    client, url = shared
    before = dive_queues(client)
    with served(tmp_path, "--backend", url if backend == "url" else "server") as server, browser() as chromium:
        tabs = [Screen(chromium, server.url) for _ in range(2)]
        for tab in tabs:
            tab.open()
        screens = [tab.settled("step 0 of 4", "a tab's first screen") for tab in tabs]
        queues = [set(QUEUE.findall(text)) for text in screens]
        assert all(len(q) == 1 for q in queues) and queues[0] != queues[1], queues
        pids = poll(lambda: len(server.tabs()) == 2 and server.tabs(), "two tab apps")
        assert len(set(pids)) == 2
        stores = [line for text in screens for line in text.splitlines()[:1]]
        if backend == "server":  # each tab spawned a server of its own, on its own port
            ports = {found.group(1) for text in stores if (found := re.search(r"127\.0\.0\.1:(\d+)", text))}
            assert len(ports) == 2, stores
            owners = [parent for pid in running_in(server.tmpdir) if (found := stat(pid)) and (parent := found[1])
                      in pids]  # the warm spares' servers run there too, each its own spare's
            assert sorted(owners) == sorted(pids), "a server of its own runs for each tab"
            before_spares = {pid for pid in running_in(server.tmpdir) if (found := stat(pid)) and found[1] not in pids}
        else:
            assert (queues[0] | queues[1]) <= dive_queues(client) - before
        tabs[0].press("ArrowRight")
        assert "step 1 of 4" in tabs[0].settled("step 1 of 4", "tab one's step")
        assert "step 0 of 4" in tabs[1].text(), "a key in one tab moves only that tab's dive"
        for tab in tabs:
            tab.close()
        poll(lambda: not server.tabs(), "both tabs' apps to exit")
        if backend == "url":
            assert not (queues[0] | queues[1]) & dive_queues(client)
        else:
            spawned = set(running_in(server.tmpdir)) - before_spares
            poll(lambda: not spawned & set(running_in(server.tmpdir)), "the tabs' spawned servers to go")


@pytest.mark.browser
def test_max_sessions_refuses_the_next_tab_with_a_page_and_frees_the_session_when_a_tab_closes(tmp_path: Path
                                                                                               ) -> None:
    with served(tmp_path, "--max-sessions", "1") as server, browser() as chromium:
        first = Screen(chromium, server.url)
        first.open()
        first.settled("step 0 of 4", "the first tab's dive")
        second = Screen(chromium, server.url)
        refused = second.open()
        assert refused.status == 503
        assert "All dive sessions are in use" in second.page.content()
        assert "at most 1 dive(s) at once" in second.page.inner_text("body")
        assert len(server.tabs()) == 1
        first.close()
        poll(lambda: not server.tabs(), "the first tab's app to exit")
        # its session is free once the server has seen the process go, a moment after /proc has
        poll(lambda: _get(server.url)[0] == 200, "the first tab's session to be free")
        assert second.open().status == 200
        second.settled("step 0 of 4", "the second tab's dive, once a session is free")
        second.close()


# -- the seams: textual-serve's private parts, and no import circle ------------------------------------------------


def test_the_textual_serve_parts_we_lean_on_are_still_there() -> None:
    from emq_dive.views.web import seam
    gone = seam.moved()
    assert not gone, ("textual-serve moved what emq-dive leans on: "
                      + "; ".join(f"{name}, used for {seam.USED[name]}" for name in gone)
                      + ". Update emq_dive/views/web/seam.py (and the textual-serve bound in pyproject.toml).")


def test_the_seam_names_a_part_that_went(monkeypatch) -> None:
    from textual_serve.server import Server

    from emq_dive.views.web import seam
    monkeypatch.delattr(Server, "_make_app")
    assert seam.moved() == ["textual_serve.server.Server._make_app"]


def test_only_the_seam_reaches_into_textual_serve() -> None:
    web = Path(web_server.__file__).parent
    for path in web.glob("*.py"):
        if path.name != "seam.py":
            text = path.read_text(encoding="utf-8")
            assert "._process" not in text and "_make_app" not in text, f"{path.name} reaches past the seam"


def test_a_tab_runs_its_lesson_below_the_cli() -> None:
    """No cli → web → child → cli circle: the tab's child and the CLI both call emq_dive.launch."""
    import ast

    web = Path(web_server.__file__).parent
    package = web.parent.parent
    for path in [*sorted(web.glob("*.py")), package / "launch.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {name for name in imported if name.split(".")[-1] == "cli"}, f"{path.name} imports the CLI"
    child = (web / "child.py").read_text(encoding="utf-8")
    assert "from ...launch import" in child
