"""A view of the run's shared timeline keeps what it showed when the run steps back, and only a live view that the
rewind changes pays to copy it."""

from __future__ import annotations

import gc

from emq_dive.engine.stepper.views import Grown, Handed, Prefix


class Counted:
    """A view that counts how often it was asked to keep what it shows."""

    def __init__(self) -> None:
        self.kept = 0

    def keep(self) -> None:
        self.kept += 1


def test_a_rewind_has_only_the_live_views_at_or_past_its_mark_keep() -> None:
    handed: Handed[Counted] = Handed()
    views = [handed.add(Counted(), mark) for mark in (0, 1, 2, 2, 3)]
    dropped = handed.add(Counted(), 3)
    del dropped
    gc.collect()
    handed.keep(2)
    assert [view.kept for view in views] == [0, 0, 1, 1, 1]
    handed.keep(2)
    assert [view.kept for view in views] == [0, 0, 1, 1, 1], "a kept view is no longer tracked"
    handed.keep(0)
    assert [view.kept for view in views] == [1, 1, 1, 1, 1]


def test_a_view_handed_at_a_high_mark_holds_one_mark_and_marks_with_none_alive_are_swept() -> None:
    handed: Handed[Counted] = Handed()
    live = handed.add(Counted(), 100_000)
    assert list(handed._marks) == [100_000], "no list for each mark below it"
    for mark in range(200):
        handed.add(Counted(), mark)  # each dies at once
    assert len(handed._marks) < 80 and 100_000 in handed._marks
    handed.keep(50_000)
    assert live.kept == 1 and 100_000 not in handed._marks


def test_the_dead_views_of_one_mark_are_swept_as_more_are_added() -> None:
    handed: Handed[Counted] = Handed()
    for _ in range(1000):
        handed.add(Counted(), 5)  # each dies at once: no frame holds it
    live = handed.add(Counted(), 5)
    assert len(handed._marks[5]) < 20
    handed.keep(5)
    assert live.kept == 1


def test_a_prefix_held_across_a_rewind_shows_what_it_showed_and_a_shorter_one_still_reads_through() -> None:
    grown: Grown[str] = Grown()
    grown.grow(["JOB02"])
    grown.grow([])
    grown.grow(["JOB04"])
    early, late = grown.at(1), grown.at(3)
    assert isinstance(late, Prefix)
    grown.rewind(3)
    grown.grow(["JOB03"])
    assert list(late) == ["JOB02", "JOB04"], "the held prefix keeps the id the rewind cut"
    assert list(early) == ["JOB02"]
    assert list(grown.at(3)) == ["JOB02", "JOB03"]
    assert early._items is grown._items, "a prefix the rewind did not cut still reads the shared list"


def test_a_long_move_makes_only_the_steps_that_are_read_and_they_show_what_a_step_at_a_time_shows(fake_store,
                                                                                                   monkeypatch):
    from emq_dive.engine.stepper import Stepper
    from emq_dive.engine.stepper.step_log import StepMaker
    from tests.test_stepper import build, same_step

    held = build(fake_store, ["live", "stale", "gone", "live"] * 10).held
    made: list[int] = []
    make = StepMaker.__call__
    monkeypatch.setattr(StepMaker, "__call__", lambda self, index, kept: made.append(index) or make(self, index, kept))
    stepper = Stepper(fake_store, held, 30_000)
    stepper.end()
    assert made == [40], "End makes the one step it ends on"
    assert stepper.steps[17] is stepper.steps[17], "a step read again is the one made before"
    assert made == [40, 17]
    read = [stepper.steps[index] for index in range(41)]
    stepper.home()
    for index in range(1, 41):
        same_step(stepper.forward(), read[index], clock_too=False)
    assert stepper.current.index == 40 and stepper.finished


def test_the_race_read_from_the_steps_that_hold_events_is_the_race_read_step_by_step(fake_store):
    from emq_dive.engine.stepper import Stepper
    from tests.test_stepper import build

    stepper = Stepper(fake_store, build(fake_store, ["live"] * 10).held, 30_000)

    def walked() -> tuple:
        one = stepper.driver.one_command
        events = list(stepper.race.waits_at(0, one))
        for step in stepper.steps[1: stepper.position + 1]:
            events += [*step.events, *stepper.race.waits_at(step.index, one)]
        return tuple(events)

    seen = []
    for index in range(1, 11):
        stepper.forward()
        if index in (2, 5):
            stepper.reap_next()
        seen.append(stepper.race_events())
        assert seen[-1] == walked()
    assert [event.kind for event in seen[-1]] == ["sends", "waits", "waits", "returns", "lands", "lands"]
    stepper.back()
    stepper.back()
    assert stepper.race_events() == walked() == seen[7]
