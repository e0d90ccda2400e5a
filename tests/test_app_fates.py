"""Pilot tests: the fate picker, the four verbs' answers, and giving a fate to a batch member."""

from __future__ import annotations

from emq_dive.engine import fates
from emq_dive.engine.fates import FATES
from emq_dive.engine.fates.availability import NEEDS_CLUSTER, NOT_OWNED
from emq_dive.engine.stepper import Reason
from emq_dive.views.tui.screens.fate_picker import FatePicker
from emq_dive.views.tui.screens.fate_view import FateView
from tests.tui_support import SIZE, asynctest, dive, frozen_app, frozen_store, press, settle, shown


async def pick(app, pilot, key):
    await press(app, pilot, "f")
    assert isinstance(app.screen, FatePicker)
    keys = [f.key for f in FATES]
    await press(app, pilot, *["down"] * keys.index(key), "enter")
    assert isinstance(app.screen, FateView)


@asynctest
async def test_the_picker_lists_every_fate_with_the_lessons_words():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "f")
        marks = picker_marks(app)  # the list scrolls: read every option, not only those on screen
        for fate in FATES:
            assert fate.key in marks[fate.key] and fate.title in marks[fate.key]
        assert app.session.lesson.fates["gone"].split()[0] in marks["gone"]
        await press(app, pilot, "escape")
        assert app.screen is dive(app)


def picker_marks(app) -> dict[str, str]:
    """Each fate the open picker lists, and its option's text."""
    from textual.widgets import OptionList

    options = app.screen.query_one(OptionList)
    return {option.id: str(option.prompt) for option in options.options}


@asynctest
async def test_the_picker_marks_each_fate_this_store_cannot_run_with_the_reason():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "f")
        marks = picker_marks(app)
        unavailable = {key: text for key, text in marks.items() if "(unavailable here:" in text}
        assert set(unavailable) == {"restricted", "no-hashtag"}
        assert f"(unavailable here: {store.acl_reason})" in unavailable["restricted"]
        assert f"(unavailable here: {NEEDS_CLUSTER})" in unavailable["no-hashtag"]
        await press(app, pilot, "escape")
        store.acl = True  # a server with ACLs the app did not start: still no users created on it
        await press(app, pilot, "f")
        assert f"(unavailable here: {NOT_OWNED})" in picker_marks(app)["restricted"]


def test_a_fate_the_picker_marks_runs_no_verb_and_says_the_same_reason():
    store = frozen_store()
    for key, reason in (("restricted", store.acl_reason), ("no-hashtag", NEEDS_CLUSTER)):
        run = fates.run_fate(store, key)
        assert run.held == () and {answer.unavailable for answer in run.answers} == {reason}
    store.close()


@asynctest
async def test_a_member_fate_shows_four_real_answers_and_can_be_given_to_a_member():
    store = frozen_store()
    app = frozen_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "right")
        await pick(app, pilot, "gone")
        run = app.screen.run
        assert [a.verb for a in run.answers] == ["extend_lock", "extend_locks", "EMQ.EXTEND", "EMQ.EXTENDS"]
        text = shown(app)
        assert "raises Gone: EMQGONE" in text
        assert "returns ['JOBX']" in text
        assert "EMQ.EXTENDS · wire 6" in text
        assert dive(app).session.stepper.position == 1
        await press(app, pilot, "enter")
        assert isinstance(app.screen, FateView), "enter gives nothing before a member is highlighted"
        await press(app, pilot, "down", "enter")
        screen = dive(app)
        assert app.screen is screen
        assert screen.session.fates == ("gone", "stale", "live", "reaped")
        assert screen.session.stepper.position == 0
        await press(app, pilot, "right")
        assert screen.step.members[0].reason is Reason.GONE
        assert "failed after member 1: [JOB01]" in shown(app)


@asynctest
async def test_a_wrongtype_member_stops_the_run_inside_the_app():
    app = frozen_app(batch=("live", "wrongtype", "live"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "end")
        screen = dive(app)
        assert screen.step.error and screen.step.error.startswith("WRONGTYPE")
        assert app.screen is screen
        assert "the run stops with an error: WRONGTYPE" in shown(app)


@asynctest
async def test_whole_call_fates_show_raw_answers_and_notes():
    app = frozen_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pick(app, pilot, "unpaired")
        text = shown(app)
        assert "as raw wire commands" in text
        assert "wrong number of arguments" in text
        assert "only the raw wire can send a trailing id" in text
        await press(app, pilot, "escape")
        await pick(app, pilot, "restricted")
        assert "fakeredis keeps no ACL key patterns" in shown(app)
        await press(app, pilot, "escape")
        await pick(app, pilot, "ill-formed")
        assert "IllFormed" in shown(app)
