"""The learner's missions in one dive: which can run on this store, the one under way, its start, and when it is met."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from ..course.lessons import Lesson
from ..course.mission_goals import Mission, Need
from ..course.user_state import StateProblem, UserState
from ..engine.stores.kinds import kind_of
from ..engine.stores.protocol import StoreLike
from .mission_check import Seen, Sent, holds
from .session import Frame, Session


def unsupported(mission: Mission, store: StoreLike) -> str:
    """Why ``store`` cannot support ``mission`` (it is skipped in the count), or empty when it can."""
    kind = kind_of(store)
    for need in mission.needs:
        if need is Need.ACL and not kind.keeps_acl:
            return f"{kind.words} keeps no ACL users or key patterns, so no restricted caller can be made here"
        if need is Need.NATIVE and not store.native:
            return f"wire 6 does not run here: {store.native_reason}"
        if need is Need.REAL_SERVER and not kind.real_server:
            return f"{kind.words} is not a server process, so it has no cached command time or Lua of its own"
    return ""


T = TypeVar("T")
APART = 4
"""How many of the console's latest commands sent one after another a goal about sends apart looks at."""


def _padded(values: tuple[T, ...], count: int) -> tuple[T | None, ...]:
    """``values`` cut or filled with None to ``count``, one per command."""
    return (*values[:count], *(None,) * (count - len(values)))


@dataclass(frozen=True)
class Met:
    """A mission just reached: which, the sentence of the lesson it proves, and why it was not saved (or empty)."""

    mission: Mission
    unsaved: str = ""

    @property
    def words(self) -> str:
        """What the app says when it is met."""
        return f"mission met: {self.mission.title}. This proves: {self.mission.proves}"


@dataclass(frozen=True)
class Entry:
    """One mission as the list shows it: its number from 1, done or not, and why it is skipped here."""

    number: int
    mission: Mission
    done: bool
    skipped: str


class Missions:
    """The lesson's missions on one store: the list, the one under way (its stages so far) and the progress."""

    def __init__(self, lesson: Lesson, store: StoreLike, state: UserState | None = None) -> None:
        self.lesson = lesson
        self.store = store
        self.state = state if state is not None else UserState.from_environ()
        self.current: Mission | None = None
        self.stage = 0
        """How many of the current mission's stages have been met, in order."""
        self.met_now = False
        self._apart: Sent | None = None
        """The console's sends one after another (not in a MULTI) since the last block or start, newest last."""
        self._done: set[str] = set(self.state.progress().done(lesson.id))

    def entries(self) -> tuple[Entry, ...]:
        """Every mission of the lesson, numbered, with its tick and its reason to be skipped."""
        return tuple(Entry(i, m, m.id in self._done, unsupported(m, self.store))
                     for i, m in enumerate(self.lesson.missions, 1))

    def count(self) -> tuple[int, int]:
        """(done, counted): the missions this store supports, and how many of them are done."""
        counted = [e for e in self.entries() if not e.skipped]
        return sum(e.done for e in counted), len(counted)

    def by_number(self, number: int) -> Mission:
        """Mission ``number`` (from 1); IndexError says which numbers there are."""
        missions = self.lesson.missions
        if not 1 <= number <= len(missions):
            raise IndexError(f"there is no mission {number}: the missions are 1 to {len(missions)}"
                             if missions else "this lesson has no missions")
        return missions[number - 1]

    def begin(self, mission: Mission) -> None:
        """Make ``mission`` the one under way, from its first stage; raises ValueError when the store cannot run it."""
        skipped = unsupported(mission, self.store)
        if skipped:
            raise ValueError(f"mission {mission.title!r} is skipped here: {skipped}")
        self.current, self.stage, self.met_now, self._apart = mission, 0, False, None

    def stop(self) -> None:
        """Leave the mission under way."""
        self.current, self.stage, self.met_now, self._apart = None, 0, False, None

    def observe(self, seen: Seen) -> Met | None:
        """Check the mission under way against what an action left; a Met once its last stage holds (recorded as
        done through the user's state, or with the reason it could not be)."""
        mission = self.current
        if mission is None or self.met_now:
            return None
        if seen.sent is not None:
            seen = replace(seen, sent=self._in_turn(seen.sent))
        while self.stage < len(mission.stages) and holds(mission.stages[self.stage], seen):
            self.stage += 1
        if self.stage < len(mission.stages):
            return None
        self.met_now = True
        self._done.add(mission.id)
        try:
            self.state.mark_done(self.lesson.id, mission.id)
        except StateProblem as problem:
            return Met(mission, str(problem))
        return Met(mission)

    def _in_turn(self, sent: Sent) -> Sent:
        """``sent`` joined to the sends just before it when neither went in a MULTI (the goal "sent apart" is about
        several sends), keeping the newest ``APART`` commands; a block starts the run afresh."""
        if sent.multi:
            self._apart = None
            return sent
        before = self._apart or Sent(())
        parts = (before, sent)
        commands = tuple(c for part in parts for c in part.commands)
        deadlines = tuple(d for part in parts for d in _padded(part.deadlines, len(part.commands)))
        replies = tuple(r for part in parts for r in _padded(part.replies, len(part.commands)))
        self._apart = Sent(commands[-APART:], False, deadlines[-APART:], replies[-APART:])
        return self._apart

    def seen(self, session: Session, frame: Frame) -> Seen:
        """What ``frame`` leaves to check for the mission under way (its run's calls only when a goal reads them)."""
        mission = self.current
        return seen_frame(session, frame, calls=mission is not None and any(s.unread for s in mission.stages))

    def bar(self) -> str:
        """The mission bar's line: the goal under way and its stage, or met."""
        mission = self.current
        if mission is None:
            return ""
        stages = len(mission.stages)
        part = f" · part {min(self.stage + 1, stages)} of {stages}" if stages > 1 and not self.met_now else ""
        state = "met ✓" if self.met_now else mission.route.value + " gets you there"
        return f"mission · {mission.title}{part}: {mission.goal}  ({state})"


def start(session: Session, lesson: Lesson, mission: Mission) -> Frame:
    """Put the mission's start state in place (the lesson's own batch or the mission's fates, its mode, guard and
    wire) and set the batch up afresh; store I/O, so run it from a worker inside ``store.io()``."""
    begin = mission.start
    session.lesson = replace(lesson, batch=begin.batch or lesson.batch,
                             members=() if begin.batch else lesson.members)
    session.fates = tuple(begin.batch or lesson.batch)
    session.run_mode, session.guard_off = begin.mode, begin.guard_off
    session.wire = begin.wire if begin.wire == 4 or session.store.native else 4
    session.predicting = False
    return session.open(0)


def seen_frame(session: Session, frame: Frame, calls: bool = True) -> Seen:
    """What a frame leaves to check; with ``calls``, every call of its run up to its step (when the run is still the
    one the frame came from), which only a goal about what the run read needs."""
    if not calls:
        return Seen(frame=frame)
    stepper = session.stepper
    index = frame.step.index
    kept = stepper.steps.kept(index) if stepper is not None and 0 < index < len(stepper.steps) else None
    if stepper is not None and kept is not None and kept.calls is frame.step.calls:  # the run's own step
        run_calls = tuple(stepper.steps.calls(index))
    else:
        run_calls = frame.step.calls
    return Seen(frame=frame, run_calls=run_calls)
