"""Snapshot tests: the dive's screens on a frozen embedded store, at a fixed size and theme."""

from __future__ import annotations

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from emq_dive.fates import FATES
from tests.tui_support import SIZE, frozen_app, frozen_store, press, settle


def settled(*keys: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(app, pilot)
        await press(app, pilot, *keys)
    return run_before


def test_first_frame(snap_compare):
    assert snap_compare(frozen_app(), terminal_size=SIZE, run_before=settled())


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_each_step(snap_compare, step):
    assert snap_compare(frozen_app(step=step), terminal_size=SIZE, run_before=settled())


def test_wire_6_write_pass(snap_compare):
    assert snap_compare(frozen_app(wire=6, step=5), terminal_size=SIZE, run_before=settled())


def test_compare_view(snap_compare):
    assert snap_compare(frozen_app(step=2), terminal_size=SIZE, run_before=settled("w"))


@pytest.mark.parametrize("fate", ["stale", "wrongtype", "unpaired", "restricted"])
def test_fate_view(snap_compare, fate):
    index = [f.key for f in FATES].index(fate)
    keys = ("f", *["down"] * index, "enter")
    assert snap_compare(frozen_app(), terminal_size=SIZE, run_before=settled(*keys))


def test_fate_picker(snap_compare):
    assert snap_compare(frozen_app(), terminal_size=SIZE, run_before=settled("f", "down", "down"))


def test_error_view(snap_compare):
    store = frozen_store()
    store.client = redis.Redis(unix_socket_path="/nonexistent/emq-dive.sock", retry=Retry(NoBackoff(), 0))
    assert snap_compare(frozen_app(store), terminal_size=SIZE, run_before=settled())


def test_narrow_80x24(snap_compare):
    assert snap_compare(frozen_app(step=2), terminal_size=(80, 24), run_before=settled())


def test_too_small_60x20(snap_compare):
    assert snap_compare(frozen_app(step=2), terminal_size=(60, 20), run_before=settled())
