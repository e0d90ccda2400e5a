"""Snapshot tests: the dive's screens on a frozen embedded store, at a fixed size and theme."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from emq_dive.engine.fates import FATES
from tests.tui_support import SIZE, frozen_app, frozen_store, press, settle

SNAPSHOTS = Path(__file__).resolve().parent / "__snapshots__" / "test_snapshots"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def named_fakeredis() -> dict[str, str]:
    """Each snapshot SVG that names a fakeredis version (the frozen header's store), and that version."""
    named = {}
    for svg in sorted(SNAPSHOTS.glob("*.svg")):
        found = set(re.findall(r"fakeredis&#160;(\d+\.\d+\.\d+)", svg.read_text("utf-8")))
        assert len(found) <= 1, f"{svg.name} names more than one fakeredis: {sorted(found)}"
        if found:
            named[svg.name] = found.pop()
    return named


def pinned_fakeredis() -> str:
    """The fakeredis version the test extra pins."""
    extra = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["optional-dependencies"]["test"]
    pins = [re.fullmatch(r"fakeredis(\[[a-z,]+\])?==(\S+)", spec.replace(" ", "")) for spec in extra]
    found = [pin[2] for pin in pins if pin is not None]
    assert len(found) == 1, "the test extra pins no single fakeredis version, though the snapshots name one"
    return found[0]


def test_the_snapshots_name_the_fakeredis_the_test_extra_pins():
    named = named_fakeredis()
    assert named, "the frozen header names the store's fakeredis version, so the snapshots should"
    pinned = pinned_fakeredis()
    wrong = {name: seen for name, seen in named.items() if seen != pinned}
    assert not wrong, f"the test extra pins fakeredis {pinned}, but these snapshots name another: {wrong}"


@pytest.fixture(autouse=True)
def _the_pinned_fakeredis(request):
    """A snapshot test runs only under the fakeredis its SVG names; under another it fails with that one line."""
    if request.node.name.startswith("test_the_snapshots_name"):
        return
    installed, pinned = version("fakeredis"), pinned_fakeredis()
    if installed != pinned:
        pytest.fail(f"the snapshots name fakeredis {pinned} (the test extra's pin); {installed} is installed: "
                    "install the pin, or regenerate and review the snapshots and move the pin with them")


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


SIZES = [(80, 24), (120, 40), (200, 50)]
"""The sizes issue 18 makes every screen whole at."""
OTHER_SIZES = [size for size in SIZES if size != SIZE]
"""Where the first frame and the fate picker are shot besides SIZE, which the tests above already shoot."""


def size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", OTHER_SIZES, ids=size_id)
def test_first_frame_at(snap_compare, size):
    assert snap_compare(frozen_app(), terminal_size=size, run_before=settled())


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_singles_run(snap_compare, size):
    assert snap_compare(frozen_app(), terminal_size=size, run_before=settled("m", "right", "right", "right", "right"))


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_reaper_race(snap_compare, size):
    async def run_before(pilot) -> None:
        await settled("right", "k", "end")(pilot)
        pilot.app.clear_notifications()  # k's notice is a passing toast; the picture is of the race itself
        await settle(pilot.app, pilot)
    assert snap_compare(frozen_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", OTHER_SIZES, ids=size_id)
def test_fate_picker_at(snap_compare, size):
    assert snap_compare(frozen_app(), terminal_size=size, run_before=settled("f", "down", "down"))
