"""Errors that tell the truth: after a transient store error the next move re-runs the step on the store as it
is now, and when the server the app started dies the app says so and ``r`` starts a new one."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
from conftest import own_server, require_server, server_binary

from emq_dive.engine.stores import open_store
from emq_dive.engine.stores.spawned import open_spawned
from emq_dive.views.tui.screens.error import STOPPED, ErrorView
from tests.tui_support import SIZE, asynctest, dive, frozen_app, press, settle

pytestmark = pytest.mark.server


def _error_title(app) -> str:
    assert isinstance(app.screen, ErrorView), type(app.screen).__name__
    return str(app.screen.query_one("#error-title").content)


def _replies_received(app) -> list[object]:
    """Every reply the steps on screen carry, from the handle to the current step."""
    stepper = dive(app).session.stepper
    return [call.reply for step in stepper.steps[1: stepper.position + 1] for call in step.calls]


@pytest.mark.parametrize("after", [("r",), ("escape", "right")], ids=["r", "escape-then-step"])
@asynctest
async def test_after_an_oom_the_step_runs_again_on_the_store_as_it_is_now(tmp_path: Path, after) -> None:
    with own_server(tmp_path) as (port, client):
        store = open_store(f"redis://127.0.0.1:{port}/0")
        try:
            app = frozen_app(store, step=2)
            async with app.run_test(size=SIZE) as pilot:
                await settle(app, pilot)
                client.config_set("maxmemory", "1")  # every write is refused: the step's ZADD, the check's MULTI
                await press(app, pilot, "right")
                assert "OOM" in str(app.screen.query_one("#error-body").content)
                client.config_set("maxmemory", "0")  # the store has room again
                await press(app, pilot, *after)
                assert app.screen is dive(app)
                step = dive(app).frame.step
                assert step.index == (3 if after == ("r",) else 4) and step.error is None
                assert not any(isinstance(reply, Exception) for reply in _replies_received(app)), \
                    "a reply of the failed run is shown as the store's answer"
                await press(app, pilot, "end")
                agreement = dive(app).frame.agreement
                assert agreement is not None and agreement.agree, agreement
                await press(app, pilot, "q")
        finally:
            store.close()


@asynctest
async def test_after_a_timeout_r_runs_the_step_again_on_the_store_as_it_is_now(tmp_path: Path) -> None:
    with own_server(tmp_path) as (port, client):
        store = open_store(f"redis://127.0.0.1:{port}/0?socket_timeout=0.5")
        try:
            app = frozen_app(store, step=2)
            async with app.run_test(size=SIZE) as pilot:
                await settle(app, pilot)
                client.execute_command("CLIENT", "PAUSE", 60_000, "WRITE")  # the step's ZADD waits, then times out
                try:
                    await press(app, pilot, "right")
                    assert _error_title(app) == "The store is gone"
                finally:
                    client.execute_command("CLIENT", "UNPAUSE")
                await press(app, pilot, "r")
                assert app.screen is dive(app)
                step = dive(app).frame.step
                assert step.index == 3 and step.error is None
                assert not any(isinstance(reply, Exception) for reply in _replies_received(app))
                await press(app, pilot, "end")
                agreement = dive(app).frame.agreement
                assert agreement is not None and agreement.agree, agreement
                await press(app, pilot, "q")
        finally:
            store.close()


def _spawn(background: bool):
    require_server()
    binary = shutil.which("redis-server") or server_binary()
    assert binary is not None
    if background:
        store = open_spawned("dive-respawn", binary, background=True)
        store.wait_started()
        return store
    return open_store("server", queue="dive-respawn", server_binary=binary)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] == "Z"


@pytest.mark.parametrize("background", [False, True], ids=["spawned", "started-behind"])
@asynctest
async def test_a_dead_server_is_reaped_named_and_r_starts_a_new_one(background: bool) -> None:
    store = _spawn(background)
    try:
        app = frozen_app(store, step=1)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            dead = store.pid
            assert dead is not None and store.exited is not None
            os.kill(dead, signal.SIGKILL)
            assert store.exited.wait(10), "the dead server was not noticed"
            assert not _zombie(dead), "the dead server is left a zombie"
            await press(app, pilot, "right")
            assert _error_title(app) == STOPPED
            assert "start a new server" in str(app.screen.query_one("#error-keys").content)
            await press(app, pilot, "r")
            assert app.screen is dive(app), type(app.screen).__name__
            assert store.pid not in (None, dead) and not store.stopped
            assert dive(app).frame.step.index == 2 and dive(app).frame.step.error is None
            await press(app, pilot, "right")
            assert dive(app).frame.step.index == 3
            await press(app, pilot, "q")
        fresh = store.pid
    finally:
        store.close()
    assert fresh is not None and not Path(f"/proc/{fresh}").exists(), "the new server outlived the store's close"
