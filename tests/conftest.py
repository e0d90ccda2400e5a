"""Shared fixtures: a frozen embedded store, and a real server that runs in CI and skips elsewhere only with a reason."""

from __future__ import annotations

import dataclasses
import os
import shutil

import pytest

from emq_dive.stores import Store, fresh_queue, open_store

FROZEN = 1_700_000_000.0
"""The embedded store's clock in tests: 2023-11-14 22:13:20 UTC, forever."""

IN_CI = bool(os.environ.get("CI"))


def server_binary() -> str | None:
    """The real server the tests may spawn, or None."""
    return shutil.which("valkey-server") or shutil.which("redis-server")


def require_server() -> None:
    """Skip outside CI when no server is installed; in CI a missing server is a failure."""
    if server_binary() is None:
        if IN_CI:
            pytest.fail("CI must run the real-server tests, but no valkey-server or redis-server is on PATH")
        pytest.skip("no valkey-server or redis-server on PATH (install redis-server to run this test)")


@pytest.fixture
def fake_store():
    """A fresh embedded store with a frozen clock and a pinned run_id."""
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="f" * 40)
    yield store
    store.close()


@pytest.fixture(scope="session")
def _spawned():
    require_server()
    store = open_store("server")
    yield store
    store.close()


@pytest.fixture
def server_store(_spawned: Store):
    """The session's spawned real server, seen through a fresh queue of its own; its keys go at teardown."""
    store = dataclasses.replace(_spawned, queue=fresh_queue(), _closers=[])
    yield store
    keys = store.own_keys()
    if keys:
        store.client.delete(*keys)
    store.close()


@pytest.fixture(params=["fakeredis", pytest.param("server", marks=pytest.mark.server)])
def any_store(request):
    """Each backend in turn: the frozen embedded store, then the spawned real server."""
    return request.getfixturevalue("fake_store" if request.param == "fakeredis" else "server_store")
