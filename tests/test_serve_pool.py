"""``emq-dive serve``'s warm pool: a tab is a process forked from the pool's parent with its own store, and a pool
parent that dies takes its spares, its tabs and their stores with it, after which each tab starts its own process.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from conftest import require_embedded_valkey
from serve_browser import comm, descendants, stat
from serve_support import drain, open_tab, poll, running_in, served

from emq_dive.views.web.warm import NAME, SPARE_NAME

pytestmark = pytest.mark.server


def _named(server, name: str) -> list[int]:
    return [pid for pid in descendants(server.pid) if comm(pid) == name]


def _started_by_server(server, name: str) -> list[int]:
    """The processes named ``name`` whose parent is the server itself."""
    return [pid for pid in _named(server, name) if (seen := stat(pid)) and seen[1] == server.pid]


def test_a_tab_is_forked_from_the_pool_and_a_dead_pool_leaves_nothing_then_tabs_start_their_own(tmp_path: Path
                                                                                               ) -> None:
    require_embedded_valkey()
    with served(tmp_path, "--warm", "2") as server:
        # a spare is named as the parent for the moment between its fork and its own name: the parent is the one
        # the server started
        (parent,) = poll(lambda: _started_by_server(server, NAME), "the pool's parent")
        poll(lambda: len(_named(server, SPARE_NAME)) == 2, "two spares")
        first = open_tab(server.url)
        (tab,) = poll(lambda: drain(first) and server.tabs(), "the first tab's process")
        found = stat(tab)
        assert found is not None and found[1] == parent, "the tab is a spare the pool's parent forked"
        poll(lambda: len(_named(server, SPARE_NAME)) == 2, "the spare that became a tab replaced")
        # the kill comes once every store is up, so each of the three stops a running server
        stores = poll(lambda: len(found := [pid for pid in running_in(server.tmpdir) if comm(pid) == "valkey-server"])
                      == 3 and found, "the tab's and the two spares' embedded Valkeys")
        os.kill(parent, signal.SIGKILL)
        # the kernel's SIGTERM reaches each spare and tab, and each stops the Valkey it started
        poll(lambda: not (set(stores) & set(running_in(server.tmpdir))), "every Valkey the pool's processes ran")
        poll(lambda: not server.tabs() and not _named(server, SPARE_NAME), "the tab and the spares to exit")
        poll(lambda: not drain(first), "the server to close the orphaned tab's connection")
        first.close()
        second = open_tab(server.url)
        (own,) = poll(lambda: drain(second) and server.tabs(), "a tab started without the pool")
        found = stat(own)
        assert found is not None and found[1] == server.pid, "with the pool gone, the server starts the tab itself"
        second.close()
        poll(lambda: not server.tabs(), "the second tab to exit")
        assert server.proc.poll() is None


def test_a_spare_cut_short_while_its_store_starts_leaves_no_work_dir_and_no_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spare that a signal ends just after its store began to start (the launcher's SystemExit, before it holds
    the store) leaves by ``os._exit``, which skips the exit handlers: it still closes that store on its way out."""
    import socket

    from emq_dive.engine.stores import open_store, spawned
    from emq_dive.views.web import warm
    require_embedded_valkey()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(spawned.tempfile, "tempdir", None)  # re-read TMPDIR

    def cut_short(args: object, sock: object, parent: int) -> int:
        open_store("valkey", background=True)
        poll(lambda: list(tmp_path.glob("emq-dive-*")), "the starting server's work dir")  # the start is under way
        raise SystemExit(143)

    monkeypatch.setattr(warm, "_spare", cut_short)
    ours, theirs = socket.socketpair()
    try:
        pid, sock = warm.Spares(None, theirs).fork()
        sock.close()
        _, status = os.waitpid(pid, 0)
    finally:
        ours.close()
        theirs.close()
    assert os.waitstatus_to_exitcode(status) == 143
    assert not list(tmp_path.glob("emq-dive-*")), "the work dir of the cut start is removed"
    assert not running_in(tmp_path), "no server of the cut start still runs"
