"""The app's missions: the list (M), a mission's start on a worker, the bar, and the goal checked after each move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ....course.mission_goals import Mission
from ....present.session import Frame, Session
from ..widgets.try_row import TryRow
from .dive_messages import FrameReady

if TYPE_CHECKING:  # the missions' checks load with the first mission, not with the dive's first frame
    from textual.app import App

    from ....engine.fates import Answer
    from ....present import missions as plan
    from ....present.mission_check import Seen
    from ..widgets.mission_bar import MissionBar
    from .dive import DiveScreen


class MissionMoves:
    """Starts missions on the dive's store and checks the one under way against every frame and verbs' answers."""

    def __init__(self, app: App[Any], session: Session) -> None:
        self.app = app
        self.session = session
        self.lesson = session.lesson
        """The lesson as it opened: a mission's start puts its batch back, whatever the sandbox made of it."""
        self._watching = False
        self._tracker: plan.Missions | None = None

    @property
    def tracker(self) -> plan.Missions:
        """The lesson's missions and the one under way, made when the learner first asks for one."""
        if self._tracker is None:
            from ....present import missions as plan

            self._tracker = plan.Missions(self.lesson, self.session.store)
        return self._tracker

    @property
    def _current_or_none(self) -> Mission | None:
        """The mission under way; None before any was asked for (the missions' modules stay unloaded)."""
        return self._tracker.current if self._tracker is not None else None

    @property
    def _dive(self) -> DiveScreen:
        return self.app.dive  # type: ignore[attr-defined]

    def _bar(self) -> MissionBar:
        from ..widgets.mission_bar import MissionBar

        dive = self._dive
        found = dive.query(MissionBar)
        if found:
            return found.first()
        bar = MissionBar()
        dive.mount(bar, before=dive.query_one(TryRow))
        return bar

    def open_list(self) -> None:
        """Push the missions list; the one chosen starts."""
        from .missions import MissionList

        def chosen(number: int | None) -> None:
            if number is not None:
                self.start(number)

        done, counted = self.tracker.count()
        self.app.push_screen(MissionList(self.tracker.entries(), done, counted), chosen)

    def start(self, number: int) -> None:
        """Start mission ``number`` (from 1) from its start state, or say why it cannot start here."""
        try:
            mission = self.tracker.by_number(number)
            self.tracker.begin(mission)
        except (IndexError, ValueError) as refused:
            self.app.notify(str(refused), title="missions", severity="warning", timeout=8)
            return
        self._run_start(mission)

    def _run_start(self, mission: Mission) -> None:
        dive = self._dive
        if not self._watching:
            self._watching = True
            self.app.watch(dive, "frame", self._frame, init=False)
        self._bar().say(self.tracker.bar(), False)
        dive.playing = False
        dive.busy = f"setting up the mission {mission.title!r}…"
        session, lesson = self.session, self.lesson

        def work() -> None:
            from ....present import missions as plan

            with session.store.io():
                frame = plan.start(session, lesson, mission)
            dive.post_message(FrameReady(dive.moves.adopt(frame)))

        dive.run_worker(work, thread=True, group="store", exit_on_error=False, name="start the mission")

    def _frame(self, frame: Frame | None) -> None:
        if frame is not None and self._current_or_none is not None:
            self._said(self.tracker.observe(self.tracker.seen(self.session, frame)))

    def answers(self, answers: Sequence[Answer]) -> None:
        """Check the mission under way against verbs' answers (a fate's run, a wire compare)."""
        if self._current_or_none is not None:
            from ....present.mission_check import Seen

            self.observe(Seen(answers=tuple(answers)))

    def observe(self, seen: Seen) -> None:
        """Check the mission under way against what any other move left (the console's sends, say)."""
        if self._current_or_none is not None:
            self._said(self.tracker.observe(seen))

    def _said(self, met: plan.Met | None) -> None:
        self._bar().say(self.tracker.bar(), self.tracker.met_now)
        if met is None:
            return
        self.app.notify(met.words, title="mission met ✓", timeout=12)
        if met.unsaved:
            self.app.notify(met.unsaved, title="progress not saved", severity="warning", timeout=10)

    def _current(self) -> Mission | None:
        mission = self._current_or_none
        if mission is None:
            self.app.notify("no mission is under way: M lists them", title="missions", timeout=4)
        return mission

    def hint(self) -> None:
        """Say the hint of the mission under way."""
        if (mission := self._current()) is not None:
            self.app.notify(mission.hint, title=f"hint · {mission.title}", timeout=12)

    def reset(self) -> None:
        """Put the mission's start state back and check it from its first part again."""
        if (mission := self._current()) is not None:
            self.tracker.begin(mission)
            self._run_start(mission)

    def goal(self) -> None:
        """Show what the store or the reply must look like once the goal is met."""
        if (mission := self._current()) is not None:
            from ....present.mission_words import goal_lines
            from .mission_goal import MissionGoal

            self.app.push_screen(MissionGoal(mission.title, goal_lines(mission)))
