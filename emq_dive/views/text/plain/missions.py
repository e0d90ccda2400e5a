"""The plain mode's missions: the list, a mission started, its hint, reset and goal, and the line when it is met."""

from __future__ import annotations

from ....engine.fates import FateRun, WireCompare
from ....present import missions as plan
from ....present.mission_check import Seen
from ....present.mission_words import goal_lines, list_line
from ....present.session import Frame
from .state import Dive


class PlainMissions:
    """The missions of one plain dive: it hears every move the dive makes and says when the goal is met."""

    def __init__(self, dive: Dive) -> None:
        self.dive = dive
        self.lesson = dive.session.lesson
        self.tracker = plan.Missions(self.lesson, dive.session.store)
        dive.listeners.append(self.hear)

    def hear(self, seen: object) -> None:
        """Check the mission under way against what a move left."""
        if self.tracker.current is None:
            return
        if isinstance(seen, Frame):
            observed = self.tracker.seen(self.dive.session, seen)
        elif isinstance(seen, FateRun):
            observed = Seen(answers=(*seen.answers, *seen.raw_answers))
        elif isinstance(seen, WireCompare):
            observed = Seen(answers=(seen.scripted, seen.native))
        elif isinstance(seen, Seen):  # a move that made its own (the console's sends, say)
            observed = seen
        else:
            return
        met = self.tracker.observe(observed)
        if met is not None:
            self.dive.say(_upper(met.words))
            if met.unsaved:
                self.dive.say(f"Progress not saved: {met.unsaved}.")

    def start(self, number: int) -> None:
        """Start mission ``number`` from its start state, or say why not."""
        try:
            mission = self.tracker.by_number(number)
            self.tracker.begin(mission)
        except (IndexError, ValueError) as refused:
            self.dive.say(f"{_upper(str(refused))}.")
            return
        self.dive.say(f"Mission {number}, {mission.title}: {mission.goal} Its start state is set up; hint, reset "
                      "and goal help.")
        self.dive.move(lambda: plan.start(self.dive.session, self.lesson, mission))


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def of(dive: Dive) -> PlainMissions:
    """The dive's missions, made on first use."""
    for listen in dive.listeners:
        owner = getattr(listen, "__self__", None)
        if isinstance(owner, PlainMissions):
            return owner
    return PlainMissions(dive)


def missions(dive: Dive, _key: str, argument: str) -> None:
    """List the missions with their ticks (and why a skipped one is skipped), or start mission N."""
    here = of(dive)
    if argument:
        if not argument.isdigit():
            dive.say(f"{argument!r} is not a mission number: missions N starts mission N.")
            return
        here.start(int(argument))
        return
    done, counted = here.tracker.count()
    lines = [list_line(e.number, e.mission, e.done, e.skipped) for e in here.tracker.entries()]
    dive.say(f"Missions, {done} of {counted} done here; missions N starts one.\n" + "\n".join(lines))


def hint(dive: Dive, _key: str, _argument: str) -> None:
    """Say the hint of the mission under way."""
    mission = of(dive).tracker.current
    dive.say(f"Hint: {mission.hint}" if mission else "No mission is under way: missions lists them.")


def reset(dive: Dive, _key: str, _argument: str) -> None:
    """Put the mission's start state back."""
    here = of(dive)
    mission = here.tracker.current
    if mission is None:
        dive.say("No mission is under way: missions lists them.")
        return
    here.start(here.lesson.missions.index(mission) + 1)


def goal(dive: Dive, _key: str, _argument: str) -> None:
    """Say what the store or the reply must look like once the goal is met."""
    mission = of(dive).tracker.current
    dive.say("The goal: " + "\n".join(goal_lines(mission)) if mission else
             "No mission is under way: missions lists them.")
