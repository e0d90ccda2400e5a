"""A reaper racing the holder: the protocol's own reaper move, asked at any step, landing where the server lets it."""

from __future__ import annotations

from dataclasses import dataclass

import redis

from ..echo_mq import keyspace, moves
from .driver import Interlude
from .model import Event, Step
from .timeline import Timeline


class NothingToReap(ValueError):
    """The reaper has no member to race at this step; the message says why, for the screen."""


@dataclass
class Request:
    """One reap the learner asked for: whose lease lapses, at which deadline, and where it landed."""

    job_id: str
    lapse_ms: int
    """The member's deadline in active when the reaper was asked: the reaper moves it if its score is still there."""
    asked_at: int
    """The step on screen when it was asked."""
    server_now_ms: int = 0
    """The server's clock (TIME) when the reaper was asked."""
    landed_in: int | None = None
    """The step it landed in, once it has."""
    after_commands: int = 0
    """How many holder commands had gone to the server when it landed."""
    moved: bool = False


class Race:
    """The reaper's requests of one run, kept in step with the run's position; its moves go in the undo log."""

    def __init__(self, client: redis.Redis, queue: str, timeline: Timeline) -> None:
        self._client = client
        self._queue = queue
        self._timeline = timeline
        self.requests: list[Request] = []

    def ask(self, step: Step, one_command: bool) -> Event:
        """Queue a reap of the next member not yet checked that holds a lease in active."""
        if step.done:
            raise NothingToReap("the run is over: step back to race the reaper against the holder")
        asked = {request.job_id for request in self.requests}
        for member in step.members:
            if member.ran or member.id in asked:
                continue
            deadline = moves.deadline(self._client, self._queue, member.id)
            if deadline is None:
                continue
            request = Request(member.id, deadline, step.index, moves.server_now_ms(self._client))
            self.requests.append(request)
            return self._waits(request, one_command)
        raise NothingToReap("no member still to be checked holds a lease in active, so the reaper has nothing "
                            "to move")

    def waiting(self) -> list[Request]:
        """The requests that have not landed yet, in the order they were asked."""
        return [request for request in self.requests if request.landed_in is None]

    def land(self, step: int, after_commands: int) -> list[Event]:
        """Land every waiting request inside ``step`` (opened in the timeline), each through moves.reap."""
        active = keyspace.queue_key(self._queue, "active").encode()
        pending = keyspace.queue_key(self._queue, "pending").encode()
        events = []
        for request in self.waiting():
            self._timeline.before_reap(active, pending, request.job_id.encode())
            request.moved = bool(moves.reap(self._client, self._queue, request.lapse_ms, only=[request.job_id]))
            request.landed_in, request.after_commands = step, after_commands
            events.append(self._lands(request, moves.deadline(self._client, self._queue, request.job_id)))
        return events

    def rewind(self, position: int) -> None:
        """Forget what happened after ``position``: later requests go, later landings wait again."""
        self.requests = [request for request in self.requests if request.asked_at <= position]
        for request in self.requests:
            if request.landed_in is not None and request.landed_in > position:
                request.landed_in, request.moved = None, False

    def interlude(self) -> Interlude:
        """For an unstepped run of the same list: land each landed request after the same number of commands."""
        landed = [request for request in self.requests if request.landed_in is not None]

        def between(sent: int) -> None:
            for request in landed:
                if request.after_commands == sent:
                    moves.reap(self._client, self._queue, request.lapse_ms, only=[request.job_id])
        return between

    def waits_at(self, position: int, one_command: bool) -> list[Event]:
        """The reaper's ``waits`` events asked at step ``position``."""
        return [self._waits(request, one_command) for request in self.requests if request.asked_at == position]

    @staticmethod
    def _waits(request: Request, one_command: bool) -> Event:
        job = request.job_id
        found = lapse_words(request)
        if one_command:
            text = (f"{found}; it waits: the server runs the batch as one command, so nothing else runs until it "
                    "returns")
        else:
            text = f"{found}; it moves it before the holder's next call"
        return Event("reaper", "waits", request.asked_at, text, job)

    @staticmethod
    def _lands(request: Request, score: int | None) -> Event:
        job = request.job_id
        if request.moved:
            text = f"the reaper lands: {job}'s score was still {request.lapse_ms}, so it moved {job} to pending"
        elif score is not None:
            text = (f"the reaper lands: it found {job} extended to {score}, past the deadline {request.lapse_ms} it "
                    "reaps at, and left it")
        else:
            text = f"the reaper lands: {job} is no longer in active, so there was nothing to move"
        assert request.landed_in is not None
        return Event("reaper", "lands", request.landed_in, text, job, request.moved)


def forced(request: Request) -> bool:
    """True when the lease still had time to run on the server's clock, so the lesson forces the lapse."""
    return request.lapse_ms > request.server_now_ms


def lapse_words(request: Request) -> str:
    """What the reaper found when asked: a lease past its deadline, or one the lesson forces to lapse, and why."""
    job, deadline, now = request.job_id, request.lapse_ms, request.server_now_ms
    if not forced(request):
        return (f"the reaper finds {job}'s lease lapsed: its deadline {deadline} has passed on the server's clock "
                f"(now {now}, {now - deadline} ms ago)")
    return (f"forced: the reaper treats {job}'s lease as lapsed: its deadline {deadline} is still "
            f"{deadline - now} ms away on the server's clock (now {now}), and a reaper reaps only a lease whose "
            "deadline has passed, so the lesson moves the reaper's clock to that deadline to show what a lapse "
            "in the middle of the batch does")
