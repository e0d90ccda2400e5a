"""Pilot tests: the wire switch, the compare view, and a backend without the native twin."""

from __future__ import annotations

from emq_dive.engine.fates import read_state
from emq_dive.views.tui.widgets.code_pane import CodePane
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, shown


@asynctest
async def test_w_reruns_on_wire_6_from_the_same_start_and_compares():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        start = read_state(store.client, store.queue)
        await press(app, pilot, "right", "right", "w")
        screen = dive(app)
        assert screen.wire == 6 and screen.session.stepper.wire == 6
        assert screen.session.stepper.position == 2
        text = shown(app)
        assert "extend_locks · wire 4" in text and "EMQ.EXTENDS · wire 6" in text
        assert "stamped lease_epoch" in text
        await press(app, pilot, "escape")
        assert "6 · EMQ.EXTENDS" in shown(app)
        await press(app, pilot, "home")
        assert read_state(store.client, store.queue) == start
        await press(app, pilot, "end")
        text = shown(app)
        assert "step 5 of 5" in text and "the write pass" in text
        assert "lease_epoch" in text
        assert str(dive(app).query_one(CodePane).border_title).startswith("the native twin · ")  # its file's title
        await press(app, pilot, "w")
        await press(app, pilot, "escape")
        assert dive(app).wire == 4


@asynctest
async def test_start_on_wire_6():
    app = frozen_app(wire=6, step=1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert dive(app).session.stepper.wire == 6
        assert "EMQ.EXTENDS 2 emq:{dive-snap}:active" in shown(app)


@asynctest
async def test_a_backend_without_the_native_twin_says_why():
    store = frozen_store()
    store.native, store.native_reason = False, "the module is not loaded on this server"
    app = frozen_app(store, wire=6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert dive(app).wire == 4
        await press(app, pilot, "w")
        text = shown(app)
        assert "the module is not loaded on this server" in text
        await press(app, pilot, "escape")
        assert dive(app).wire == 4


@asynctest
async def test_a_big_batch_compares_in_counts_not_screenfuls():
    app = frozen_app(batch=("live", "stale") * 20)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "w")
        text = shown(app)
        assert "fates of 40 members: live ×20, stale ×20" in text
        assert ("returns ['JOB02', 'JOB04', 'JOB06', 'JOB08', 'JOB10', 'JOB12', 'JOB14', 'JOB16', "
                "… (20 ids in all)]") in text
        assert "… (86 arguments in all)" in text and "… (85 arguments in all)" in text
        assert "(20 items in all)]" in text
        assert "… and 8 more writes" in text
        assert "on JOB01, JOB03, JOB05, JOB07, JOB09, JOB11, JOB13, JOB15, … (20 in all)" in text
        assert "JOB40" not in text
        await press(app, pilot, "escape", "end")
        text = shown(app)
        assert "the reply: [\"JOB02\"" in text and "(20 items in all)]" in text
        assert "returns ['JOB02'" in text and "(20 ids)" in text


@asynctest
async def test_a_big_batch_s_command_names_only_the_arguments_it_shows():
    """The command's head reads as naming every argument would: the queue's base whole once, the shown ones
    shortened, the rest counted (only the shown ones are named, so a 10,000-member step does not name 20,000)."""
    from emq_dive.engine.echo_mq.render import MAX_ARGS, wire_text
    from emq_dive.views.tui.widgets.shorthand import Shorthand
    from emq_dive.views.tui.widgets.wire_pane import WirePane

    app = frozen_app(batch=("live", "stale") * 20)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        pane = dive(app).query_one(WirePane)
        frame = pane.frame
        assert frame is not None and len(frame.step.command) > MAX_ARGS
        whole = wire_text(Shorthand(frame.view.base, frame.step.now).args(frame.step.command), MAX_ARGS)
        assert pane.entries()[0].plain == f"the command: {whole}"
        assert "emq:{dive-snap}:active emq:{q}: " in whole and "… (86 arguments in all)" in whole
