"""Pilot tests: stepping the batch with the keys, checked against the engine and the store."""

from __future__ import annotations

from typing import Any

from emq_dive.engine.echo_mq import scripts
from emq_dive.engine.fates import read_state
from emq_dive.engine.stepper import NOT_REACHED, Reason
from tests.tui_support import NOW_MS, SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, shown


def active(store):
    return read_state(store.client, store.queue)[f"emq:{{{store.queue}}}:active".encode()]


@asynctest
async def test_first_frame_shows_the_handle_and_nothing_sent():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        assert screen.session.stepper.position == 0
        assert screen.step.source == "handle"
        text = shown(app)
        assert "Batches · dive 03 — Batch lease extension" in text
        assert "4 · EVALSHA" in text
        assert "embedded fakeredis" in text
        assert "step 0 of 4" in text
        assert "not read yet" in text
        assert "the command: EVALSHA" in text and scripts.extend_locks().sha[:8] in text
        assert active(store) == {b"JOB01": NOW_MS + 10_000, b"JOB02": NOW_MS + 10_000, b"JOB03": NOW_MS + 10_000}


@asynctest
async def test_right_steps_each_member_and_the_failed_list_grows():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        await press(app, pilot, "right")
        assert screen.session.stepper.position == 1
        assert active(store)[b"JOB01"] == NOW_MS + 30_000
        text = shown(app)
        assert f"now = {NOW_MS}" in text
        assert "failed after member 1: []" in text
        assert "re-scored to now+30000" in text
        await press(app, pilot, "right")
        member = screen.step.members[1]
        assert (member.reason, member.active) == (Reason.STALE, NOT_REACHED)
        text = shown(app)
        assert "failed after member 2: [JOB02]" in text
        assert "not evaluated" in text
        assert "joins failed (stale)" in text
        await press(app, pilot, "right", "right")
        assert screen.session.stepper.finished
        text = shown(app)
        assert "failed: [JOB02, JOB04]" in text
        assert "✓ run 1: the atomic run agrees" in text
        assert '["JOB02", "JOB04"]' in text
        assert "extend_locks returns ['JOB02', 'JOB04']" in text
        await press(app, pilot, "right")
        assert screen.session.stepper.position == 4


@asynctest
async def test_back_restores_the_store_through_the_engine():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        start = read_state(store.client, store.queue)
        await press(app, pilot, "right")
        after_one = read_state(store.client, store.queue)
        await press(app, pilot, "right", "right", "left", "left")
        assert dive(app).session.stepper.position == 1
        assert read_state(store.client, store.queue) == after_one
        await press(app, pilot, "left")
        assert read_state(store.client, store.queue) == start
        assert "step 0 of 4" in shown(app)


@asynctest
async def test_home_and_end():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        start = read_state(store.client, store.queue)
        await press(app, pilot, "end")
        assert dive(app).session.stepper.finished
        assert "step 4 of 4" in shown(app)
        await press(app, pilot, "home")
        assert dive(app).session.stepper.position == 0
        assert read_state(store.client, store.queue) == start


@asynctest
async def test_space_plays_and_pauses_without_sleeping():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        await press(app, pilot, "space")
        assert screen.playing
        assert "playing" in shown(app)
        screen._tick()
        await settle(app, pilot)
        assert screen.session.stepper.position == 1
        await press(app, pilot, "space")
        assert not screen.playing
        await press(app, pilot, "end")
        screen.playing = True
        screen._tick()
        await settle(app, pilot)
        assert not screen.playing


@asynctest
async def test_start_step_and_the_code_pane_follows_the_source():
    app = frozen_app(step=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        assert screen.session.stepper.position == 2
        text = shown(app)
        assert "extend_locks.lua" in text
        assert "24 >" in text
        assert "The two beats · the Lua script" in text


@asynctest
async def test_a_large_batch_shows_a_window_of_the_store():
    app = frozen_app(batch=("live", "stale") * 15)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        screen = dive(app)
        assert screen.session.stepper.finished
        view = screen.frame.view
        assert view.total == 30 and len(view.rows) == 8
        assert "members 23–30 of 30" in shown(app)


def layouts_of(screen: Any) -> list[int]:
    """A list the screen's layout passes append their step's index to, from now on."""
    layouts: list[int] = []
    refresh_layout = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        layouts.append(screen.step.index)
        refresh_layout(*args, **kwargs)

    screen._refresh_layout = counted
    return layouts


@asynctest
async def test_a_step_repaints_its_panes_without_laying_the_screen_out_again():
    """Each step, its section change included, is one repaint: nothing on screen changes size."""
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = dive(app)
        layouts = layouts_of(screen)
        for wire, section in ((4, "beat-two"), (6, "native")):
            if screen.wire != wire:
                await press(app, pilot, "w", "escape")
            await press(app, pilot, "home")
            layouts.clear()
            sections = set()
            while not screen.step.done:
                await press(app, pilot, "right")
                sections.add(screen.query_one("#lesson").section)
            await press(app, pilot, "left", "home")
            assert sections == {section} and screen.query_one("#lesson").section == "beat-one"
            assert layouts == [], (wire, layouts)


@asynctest
async def test_the_run_modes_step_without_laying_the_screen_out_again():
    """Singles keeps its three note rows from the handle on, and guard off keeps the height its resurrection
    note needed: stepping either again lays nothing out, on a small batch and on a long one."""
    for batch in (None, ("live", "stale", "live", "reaped") * 5):
        app = frozen_app(batch=batch)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            screen = dive(app)
            layouts = layouts_of(screen)
            for key in ("m", "m", "g"):  # singles, back to batch, then guard off
                await press(app, pilot, key, "end", "home")
                mode = screen.session.stepper.mode
                layouts.clear()
                while not screen.step.done:
                    await press(app, pilot, "right")
                assert layouts == [], (mode, len(screen.session.held), layouts)
                await press(app, pilot, "home")
