"""Reset (R): the lesson's batch back from any state, asking once when something would be lost, never when not."""

from __future__ import annotations

import io

from emq_dive.cli import output_problem
from emq_dive.course.lessons import load
from emq_dive.course.sandbox import SandboxBatch, SandboxMember
from emq_dive.engine.stores import snapshot
from emq_dive.present import reset
from emq_dive.present.console import Console
from emq_dive.present.session import Session
from emq_dive.views.text.plain.dive import NoStyle, PlainDive
from emq_dive.views.text.recorder import Recorder
from emq_dive.views.tui.screens.console_screen import ConsoleScreen
from emq_dive.views.tui.screens.dive import DiveScreen
from emq_dive.views.tui.screens.reset_confirm import ResetConfirm
from emq_dive.views.tui.widgets.console_prompt import ConsolePrompt
from tests.tui_support import SIZE, asynctest, frozen_app, press, settle

LESSON = load("batches-03")


def store_of(app) -> snapshot.Snapshot:
    store = app.dive.session.store
    return snapshot.take(store.client, store.queue)


@asynctest
async def test_r_on_a_pristine_batch_resets_without_asking():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        held, seq = app.dive.session.held, app.dive.moves.seq
        await press(app, pilot, "R")
        assert isinstance(app.screen, DiveScreen), "nothing to lose: no confirmation"
        assert app.dive.session.held is not held and app.dive.moves.seq == seq + 1, "the batch was set up again"
        assert app.dive.target == 0


@asynctest
async def test_r_after_steps_a_guard_off_run_and_a_console_write_asks_once_and_puts_the_batch_back():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pristine = store_of(app)
        await press(app, pilot, "g", "right", "right")
        await press(app, pilot, "colon")
        app.screen.query_one(ConsolePrompt).value = "EVALSHA $sha 2 $active $base 99000 JOB03 1"
        await press(app, pilot, "enter", "escape")
        assert store_of(app) != pristine
        await press(app, pilot, "R")
        confirm = app.screen
        assert isinstance(confirm, ResetConfirm)
        assert confirm.question == ("Reset to the lesson's batch? This drops the guard-off what-if, the run so far "
                                    "(step 2), the console's writes.")
        await press(app, pilot, "n")
        assert isinstance(app.screen, DiveScreen) and app.dive.target == 2, "n keeps it as it was"
        await press(app, pilot, "R", "y")
        assert isinstance(app.screen, DiveScreen), "asked once"
        session = app.dive.session
        assert app.dive.target == 0 and not session.guard_off and session.run_mode == "batch"
        assert app.dive.frame.played.mode == "batch"
        assert store_of(app) == pristine, "the lesson's batch, as it was set up at the start"
        assert reset.losses(session, app.baseline, Console(session)) == ()
        await press(app, pilot, "R")
        assert isinstance(app.screen, DiveScreen), "and now there is nothing to lose"


@asynctest
async def test_r_puts_the_lessons_batch_back_after_a_sandbox_run_and_a_fate():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pristine = store_of(app)
        edited = SandboxBatch((SandboxMember("A1", "live"), SandboxMember("A2", "gone")), 45_000)
        app.dive.moves.restart(edited)
        await settle(app, pilot)
        assert [job for job, _ in app.dive.session.held] == ["A1", "A2"]
        app.dive.moves.apply(0, "stale")
        await settle(app, pilot)
        await press(app, pilot, "R")
        assert isinstance(app.screen, ResetConfirm) and "the sandbox's edited batch" in app.screen.question
        await press(app, pilot, "enter")
        session = app.dive.session
        assert session.lesson == LESSON and session.fates == tuple(LESSON.batch)
        assert [job for job, _ in session.held] == ["JOB01", "JOB02", "JOB03", "JOB04"]
        assert store_of(app) == pristine


@asynctest
async def test_r_in_the_console_types_an_r_and_does_not_reset():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right", "colon", "R")
        assert isinstance(app.screen, ConsoleScreen) and app.screen.query_one(ConsolePrompt).value == "R"
        assert app.dive.target == 1


def test_losses_name_each_thing_a_reset_drops(fake_store):
    session = Session(fake_store, LESSON)
    baseline = reset.Baseline.of(session)
    with fake_store.io():
        session.open(0)
    assert reset.losses(session, baseline) == ()
    with fake_store.io():
        session.apply(1, "live")
    assert reset.losses(session, baseline) == ("the fates given to members",)
    with fake_store.io():
        session.set_mode("singles", False)
        session.goto(1)
    assert reset.losses(session, baseline) == ("the fates given to members", "the singles run mode",
                                               "the run so far (step 1)")
    with fake_store.io():
        reset.reset(session, baseline)
    assert reset.losses(session, baseline) == () and session.fates == tuple(LESSON.batch)
    with fake_store.io():
        session.reap()
    assert reset.losses(session, baseline) == ("the reaper's race",)


def plain_on(store, lines: str) -> str:
    out = io.StringIO()
    dive = PlainDive(Session(store, LESSON), out, NoStyle(), Recorder(LESSON.heading, store.description),
                     output_problem)
    assert dive.run(iter(lines.splitlines(keepends=True))) == 0
    return out.getvalue()


def test_plain_r_asks_when_something_would_be_lost_and_not_otherwise(fake_store):
    said = plain_on(fake_store, "R\n\n\nR\nn\nR\ny\n")
    paragraphs = said.split("\n\n")
    assert paragraphs.count("Reset to the lesson's batch.") == 2
    assert "Reset to the lesson's batch? This drops the run so far (step 2). y resets, n keeps it." in paragraphs
    assert "Kept as it was." in paragraphs
    assert paragraphs.index("Reset to the lesson's batch.") < paragraphs.index("Kept as it was."), \
        "the first R, on the pristine batch, reset without asking"
    assert paragraphs[-2].startswith("Step 0 of 4 on wire 4")
