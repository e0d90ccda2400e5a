"""Issue 18 §1: the dive swept at 80×24, 120×40 and 200×50 through every run mode, both wires and every fate, stepped
to the end: no visible text ends in … or runs into a pane's edge (identifiers excepted), no pane is pushed off the
screen without a line saying how to see it, and no note has rows cut off below."""

from __future__ import annotations

import pytest

from emq_dive.engine.fates import FATES
from emq_dive.views.tui.screens.fate_picker import FatePicker
from emq_dive.views.tui.screens.fate_view import FateView
from tests.sweep_support import cuts
from tests.tui_support import asynctest, dive, frozen_app, press, settle

SIZES = [(80, 24), (120, 40), (200, 50)]
MEMBER_FATES = (*(fate.key for fate in FATES if fate.member and fate.key != "wrongtype"), "wrongtype")
"""Every member fate in one batch (the WRONGTYPE row last: in a batch it stops the run)."""
MODES = {"batch": (), "singles": ("m",), "guard off": ("g",), "reaper": ("right", "k"), "predict": ("p",)}
"""The keys that put a fresh run in each mode (the reaper is asked after the first step)."""


async def sweep(app, pilot, keys: tuple[str, ...]) -> dict[str, str]:
    """Enter a mode with ``keys`` and step to the end (answering predict mode's questions), reading every screen;
    each cut found, and where it was first seen."""
    seen: dict[str, str] = {}

    def look(where: str) -> None:
        for cut in cuts(app):
            seen.setdefault(cut, where)

    await settle(app, pilot)
    look("the first frame")
    await press(app, pilot, *keys)
    look(f"after {' '.join(keys) or 'nothing'}")
    screen = dive(app)
    if app.screen is not screen:  # an offer (g on wire 6): read it, then take it
        look(type(app.screen).__name__)
        await press(app, pilot, "y")
    for _ in range(len(screen.step.members) + 4):
        if screen.step.done:
            break
        await press(app, pilot, "right")
        if screen.asking:
            look(f"asked before step {screen.step.index + 1}")
            await press(app, pilot, "1")
        look(f"step {screen.step.index}")
    assert screen.step.done, "the sweep stepped to the end"
    return seen


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("wire", [4, 6])
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@asynctest
async def test_no_text_is_cut_in_any_mode_on_either_wire(size, wire, mode):
    found: dict[str, str] = {}
    for batch in (None, MEMBER_FATES):  # the lesson's own batch, then one member of every fate
        app = frozen_app(wire=wire, batch=batch)
        async with app.run_test(size=size) as pilot:
            for cut, where in (await sweep(app, pilot, MODES[mode])).items():
                found.setdefault(cut, f"{'the lesson' if batch is None else 'every fate'}'s batch, {where}")
    assert not found, "\n".join(f"{where}: {cut}" for cut, where in found.items())


@asynctest
async def test_no_text_is_cut_in_the_fate_picker_or_any_fates_view_at_any_size():
    found: dict[str, str] = {}

    async def look(where: str) -> None:
        for size in SIZES:  # each fate runs once; its view is read at every size
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            for cut in cuts(app):
                found.setdefault(cut, f"{where} at {size[0]}×{size[1]}")

    app = frozen_app()
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(app, pilot)
        for at, fate in enumerate(FATES):
            await press(app, pilot, "f", *["down"] * at)
            assert isinstance(app.screen, FatePicker)
            if at in (0, len(FATES) - 1):
                await look("the fate picker")
            await press(app, pilot, "enter")
            assert isinstance(app.screen, FateView)
            await look(f"the {fate.key} fate")
            await press(app, pilot, "escape")
    assert not found, "\n".join(f"{where}: {cut}" for cut, where in found.items())
