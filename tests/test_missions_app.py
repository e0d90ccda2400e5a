"""Pilot tests: the missions list, a mission started, reached by its keys (and not by wrong ones), hint, reset, goal."""

from __future__ import annotations

import itertools

import pytest
from textual.widgets import OptionList

from emq_dive.course.user_state import UserState
from emq_dive.engine.fates import FATES
from emq_dive.engine.stores import open_store
from emq_dive.views.tui.screens.fate_picker import FatePicker
from emq_dive.views.tui.screens.fate_view import FateView
from emq_dive.views.tui.screens.mission_goal import MissionGoal
from emq_dive.views.tui.screens.missions import MissionList
from emq_dive.views.tui.widgets.mission_bar import MissionBar
from tests.tui_support import FROZEN, SIZE, asynctest, dive, frozen_app, lesson, press, settle

NUMBERS = {m.id: i for i, m in enumerate(lesson().missions, 1)}


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("EMQ_DIVE_DATA_DIR", str(tmp_path / "state"))


def ticking():
    ticks = itertools.count()
    return open_store("fakeredis", clock=lambda: FROZEN + next(ticks) * 0.003, queue="dive-snap", run_id="0" * 40)


def done_ids() -> frozenset[str]:
    return UserState.from_environ().progress().done("batches-03")


def bar_text(app) -> str:
    return str(dive(app).query_one(MissionBar).render())


async def begin(app, pilot, mission_id: str) -> None:
    """Open the list with M and choose the mission with the arrows and Enter."""
    await press(app, pilot, "M")
    assert isinstance(app.screen, MissionList)
    app.screen.query_one(OptionList).highlighted = NUMBERS[mission_id] - 1
    await press(app, pilot, "enter")
    assert app.screen is dive(app)
    assert app.missions.tracker.current is not None and app.missions.tracker.current.id == mission_id
    await settle(app, pilot)


async def run_fate(app, pilot, key: str) -> None:
    await press(app, pilot, "f")
    assert isinstance(app.screen, FatePicker)
    await press(app, pilot, *["down"] * [f.key for f in FATES].index(key), "enter")
    assert isinstance(app.screen, FateView)


@asynctest
async def test_the_list_ticks_done_missions_and_marks_skipped_ones():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "M")
        options = app.screen.query_one(OptionList)
        prompts = {o.id: str(o.prompt) for o in options.options}
        assert len(prompts) == len(lesson().missions)
        noperm = prompts[str(NUMBERS["noperm"])]
        assert "skipped here:" in noperm and "ACL" in noperm
        assert options.get_option(str(NUMBERS["noperm"])).disabled
        assert "·" in prompts["1"] and "✓" not in prompts["1"]


@asynctest
async def test_resurrect_by_the_guard_off_and_not_by_the_end_alone():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "resurrect")
        assert dive(app).query_one(MissionBar).has_class("-on") and "Resurrection" in bar_text(app)
        await press(app, pilot, "end")
        assert not app.missions.tracker.met_now and "resurrect" not in done_ids()
        await press(app, pilot, "home", "g", "end")
        assert app.missions.tracker.met_now and "resurrect" in done_ids()
        assert dive(app).query_one(MissionBar).has_class("-met")


@asynctest
async def test_deadlines_differ_by_singles_and_not_by_the_batch():
    app = frozen_app(ticking())
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "deadlines-differ")
        await press(app, pilot, "end")
        assert not app.missions.tracker.met_now
        await press(app, pilot, "home", "m", "end")
        assert app.missions.tracker.met_now and "deadlines-differ" in done_ids()


@asynctest
async def test_single_stale_by_the_stale_fate_and_not_by_gone():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "single-stale")
        await run_fate(app, pilot, "gone")
        assert not app.missions.tracker.met_now
        await press(app, pilot, "escape")
        await run_fate(app, pilot, "stale")
        assert app.missions.tracker.met_now and "single-stale" in done_ids()


@asynctest
async def test_lease_epoch_on_wire_6_and_not_on_wire_4():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "lease-epoch")
        await press(app, pilot, "end")
        assert not app.missions.tracker.met_now
        await press(app, pilot, "w", "escape", "end")
        assert dive(app).frame.wire == 6
        assert app.missions.tracker.met_now and "lease-epoch" in done_ids()


@asynctest
async def test_reaper_between_single_calls_and_not_in_a_batch():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "reaper-between")
        await press(app, pilot, "right", "k", "end")
        assert not app.missions.tracker.met_now, "in a batch the reaper waits for the one command"
        await press(app, pilot, "r")
        await press(app, pilot, "m", "right", "k", "end")
        assert app.missions.tracker.met_now and "reaper-between" in done_ids()


@asynctest
async def test_the_mission_option_opens_on_it_and_hint_reset_goal_answer():
    app = frozen_app(mission=NUMBERS["resurrect"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.missions.tracker.current is not None and app.missions.tracker.current.id == "resurrect"
        await press(app, pilot, "g")
        assert dive(app).frame.played.what_if
        await press(app, pilot, "r")
        assert not dive(app).frame.played.what_if and dive(app).frame.step.index == 0, "r puts the start back"
        await press(app, pilot, "h")
        assert any("ZSCORE guard" in n.message for n in app._notifications)
        await press(app, pilot, "G")
        assert isinstance(app.screen, MissionGoal)
        assert "pending" in "\n".join(app.screen.lines)
        await press(app, pilot, "escape")
        assert app.screen is dive(app)


@asynctest
async def test_progress_survives_a_restart_of_the_app():
    app = frozen_app(mission=NUMBERS["resurrect"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "g", "end")
        assert app.missions.tracker.met_now
    again = frozen_app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        await press(again, pilot, "M")
        prompt = str(again.screen.query_one(OptionList).get_option(str(NUMBERS["resurrect"])).prompt)
        assert "✓" in prompt


async def give(app, pilot, fate: str, member: int) -> None:
    """Run ``fate``'s four verbs, then give it to ``member`` (from 0) in the fate view."""
    await run_fate(app, pilot, fate)
    await press(app, pilot, *["down"] * (member + 1), "enter")
    assert app.screen is dive(app)


@pytest.mark.parametrize(("mission_id", "right", "wrong"), [
    ("native-writes-nothing", "wrongtype", "live"),
    ("unpaired", "unpaired", "bad-lease"),
])
@asynctest
async def test_fate_run_missions_by_their_fate_and_not_by_another(mission_id, right, wrong):
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, mission_id)
        await run_fate(app, pilot, wrong)
        assert not app.missions.tracker.met_now
        await press(app, pilot, "escape")
        await run_fate(app, pilot, right)
        assert app.missions.tracker.met_now and mission_id in done_ids()


@pytest.mark.parametrize(("mission_id", "right", "wrong"), [
    ("token-check", "stale", "gone"),
    ("group-unread", "lane", "live"),
])
@asynctest
async def test_member_fate_missions_by_the_fate_given_and_not_by_another(mission_id, right, wrong):
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, mission_id)
        await give(app, pilot, wrong, 1)
        await press(app, pilot, "end")
        assert not app.missions.tracker.met_now
        await give(app, pilot, right, 1)
        await press(app, pilot, "end")
        assert app.missions.tracker.met_now and mission_id in done_ids()


@asynctest
async def test_predict_all_by_right_guesses_and_not_with_a_miss():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "predict-all")
        # the lesson's batch: live, stale, live, reaped → 1 re-scored, 3 stale, 1, 4 not in active
        await press(app, pilot, "p", "right", "2", "right", "3", "right", "1", "right", "4", "end")
        assert dive(app).frame.step.done and not app.missions.tracker.met_now
        await press(app, pilot, "r")
        await press(app, pilot, "p", "right", "1", "right", "3", "right", "1", "right", "4", "end")
        assert dive(app).frame.played.score == (4, 4)
        assert app.missions.tracker.met_now and "predict-all" in done_ids()


@asynctest
async def test_token_above_by_the_sandbox_and_not_by_a_stale_fate():
    from tests.test_app_sandbox import submit

    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await begin(app, pilot, "token-above")
        await give(app, pilot, "stale", 0)
        await press(app, pilot, "end")
        assert not app.missions.tracker.met_now, "a stale fate's token is below the attempts"
        await press(app, pilot, "r", "e")
        await submit(app, pilot, "token", "9")
        await press(app, pilot, "r")
        assert app.screen is dive(app) and app.session.held[0][1] == 9
        await press(app, pilot, "end")
        assert app.missions.tracker.met_now and "token-above" in done_ids()


@asynctest
async def test_a_state_that_cannot_be_saved_says_so_and_the_dive_runs_on(monkeypatch):
    monkeypatch.setenv("EMQ_DIVE_STATE_OFF", "this tab saves nothing")
    app = frozen_app(mission=NUMBERS["resurrect"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "g", "end")
        assert app.missions.tracker.met_now
        notes = [(n.title, n.message) for n in app._notifications]
        assert any(title == "progress not saved" and "this tab saves nothing" in message for title, message in notes)
        assert any(title == "mission met ✓" and "This proves:" in message for title, message in notes)
        await press(app, pilot, "home")
        assert dive(app).frame.step.index == 0, "the dive runs on"
