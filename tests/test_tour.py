"""The tour in the TUI: each slide's move happens on the dive screen, its pane is marked and left in view, and the
tour is offered once, until it is finished or skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from emq_dive.course.tour_file import Opens, Slide, load_tour
from emq_dive.course.user_state import DATA_DIR, UserState
from emq_dive.present.tour import slide_text
from emq_dive.views.tui.screens.fate_picker import FatePicker
from emq_dive.views.tui.screens.tour import MARK, PANES, SEEN, TourScreen
from emq_dive.views.tui.widgets.lesson_pane import LessonPane
from emq_dive.views.tui.widgets.tour_panel import TourPanel
from emq_dive.views.tui.widgets.try_row import TryRow
from tests.tui_support import asynctest, frozen_app, lesson, press, record_notices, settle, showing

SLIDES = load_tour(lesson())
OFFER = "t a short tour (new here?)"
"""The Try it row's first offer while the tour is on offer."""


def _offered(app) -> bool:
    """True when the Try it row leads with the tour (and offers it once)."""
    keys = app.dive.query_one(TryRow).shown_keys()
    return keys[:1] == [OFFER] and keys.count(OFFER) == 1


def _check_slide(app, slide: Slide, before_wire: int) -> None:
    """The slide's move happened on the dive screen, its pane (and only it) is marked and not under the panel, and
    the panel reads the slide's values from the frame on screen."""
    dive, move = app.dive, slide.move
    tour = next(s for s in app.screen_stack if isinstance(s, TourScreen))
    assert tour.slide == slide
    if move.wire is not None:
        assert dive.wire == move.wire != before_wire or dive.wire == before_wire == move.wire
    if move.to_end:
        assert dive.step.done and dive.step.index == dive.step.count
    elif move.step is not None:
        assert dive.step.index == move.step
    if move.section is not None:
        assert dive.query_one(LessonPane).section == move.section
    if move.opens is Opens.FATES:
        assert isinstance(app.screen, FatePicker)
    marked = list(dive.query(f".{MARK}"))
    assert marked and marked == list(dive.query(PANES[slide.pane])), slide.title
    panel = tour.query_one(TourPanel)
    seen = [w for w in marked if showing(w)]
    assert seen, f"{slide.title}: its pane is not on screen"
    assert all(not w.region.overlaps(panel.region) for w in seen), f"{slide.title}: the panel covers its pane"
    section = dive.query_one(LessonPane).section
    assert panel.text == slide_text(slide, dive.frame, dive.session.lesson, section)
    assert panel.border_title == f"tour {SLIDES.index(slide) + 1}/{len(SLIDES)} · {slide.title}"


async def _walk(app, pilot) -> list[str]:
    """Take the tour from ``t`` to its last slide and past it; the title of each slide seen, in order."""
    await press(app, pilot, "t")
    seen = []
    for index, slide in enumerate(SLIDES):
        wire = app.dive.wire
        if index:
            await press(app, pilot, "right" if index % 2 else "n")
        _check_slide(app, slide, wire)
        seen.append(slide.title)
        while not isinstance(app.screen, TourScreen):  # the fate picker, the two wires' comparison
            await press(app, pilot, "escape")
    assert "→/n finish" in app.screen.query_one(TourPanel).border_subtitle
    await press(app, pilot, "n")
    assert not isinstance(app.screen, TourScreen) and not app.dive.query(f".{MARK}")
    return seen


def test_the_course_tour_covers_what_the_issue_asks() -> None:
    assert 6 <= len(SLIDES) <= 8
    moves = [s.move for s in SLIDES]
    assert any(m.opens is Opens.FATES for m in moves) and any(m.wire == 6 for m in moves)
    assert any(m.step is not None for m in moves) and any(m.section for m in moves)
    words = " ".join(s.body for s in SLIDES)
    for fact in ("KEYS[1]", "ARGV[1]", "TIME", "failed", "ZSCORE", "lease_epoch", "M opens the missions"):
        assert fact in words or fact in " ".join(s.title for s in SLIDES), fact


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@asynctest
async def test_the_tour_reaches_its_last_slide_making_each_move(size, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR, str(tmp_path))
    app = frozen_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert await _walk(app, pilot) == [s.title for s in SLIDES]
        assert app.dive.wire == 6
        await press(app, pilot, "left")  # the dive has its arrows back
        assert app.dive.step.index == app.dive.step.count - 1
        await press(app, pilot, "right")
    assert SEEN in UserState.from_environ().progress().flags


@asynctest
async def test_back_goes_to_the_previous_slide_and_makes_its_move_again(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR, str(tmp_path))
    app = frozen_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(app, pilot, "t", "n", "n", "n")
        assert app.dive.step.done
        await press(app, pilot, "p")
        _check_slide(app, SLIDES[2], 4)
        await press(app, pilot, "left", "left")
        _check_slide(app, SLIDES[0], 4)
        await press(app, pilot, "left")  # no slide before the first
        assert app.screen.at == 0
        await press(app, pilot, "escape")  # skipped
        assert not isinstance(app.screen, TourScreen) and not app.dive.query(f".{MARK}")
    assert SEEN in UserState.from_environ().progress().flags


@asynctest
async def test_offered_once_and_not_again_after_finishing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR, str(tmp_path))
    app = frozen_app()
    app.offer_tour = True
    said = record_notices(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert _offered(app) and not said, "offered in the row, not in a notice over the panes"
        await _walk(app, pilot)
        await settle(app, pilot)
        assert OFFER not in app.dive.query_one(TryRow).shown_keys()
    assert UserState.from_environ().progress().flags == {SEEN}
    again = frozen_app()  # a restart on the same data directory
    again.offer_tour = True
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(again, pilot)
        assert not _offered(again) and OFFER not in again.dive.query_one(TryRow).shown_keys()


@asynctest
async def test_not_offered_headless_by_default(tmp_path: Path, monkeypatch) -> None:
    """A screenshot, a transcript run or a test is headless: nothing is offered, so no frame changes."""
    monkeypatch.setenv(DATA_DIR, str(tmp_path))
    app = frozen_app()
    said = record_notices(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.offer_tour is None and not said and OFFER not in app.dive.query_one(TryRow).shown_keys()
    assert not (tmp_path / "progress.json").exists()


@asynctest
async def test_a_data_directory_that_cannot_be_written_says_so_and_the_dive_runs(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(DATA_DIR, str(blocked / "emq-dive"))
    app = frozen_app()
    app.offer_tour = True
    said = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert _offered(app)
        await press(app, pilot, "t", "escape")
        await settle(app, pilot)
        problem = [line for line in said if line.startswith("The tour will be offered again: cannot save into")]
        assert problem and str(blocked) in problem[0]
        await press(app, pilot, "home", "right")
        assert app.dive.step.index == 1
    assert blocked.read_text() == "not a directory"
