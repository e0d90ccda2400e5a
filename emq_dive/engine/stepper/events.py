"""The holder's side of the race timeline: what each step's client command did, in the store's own words."""

from __future__ import annotations

from collections.abc import Sequence

from ..echo_mq.render import reply_text
from .driver import Driver, Outcome
from .model import Event, Member


def holder_events(index: int, driver: Driver, outcome: Outcome, members: Sequence[Member]) -> tuple[Event, ...]:
    """The holder's events of step ``index``: a batch sends at its first step and returns at its last; each single
    call is one event of its own."""
    verb = driver.command[0].decode() if driver.command else "nothing"
    if not driver.one_command:
        if not outcome.members:
            return ()
        member = outcome.members[0]
        said = f"(error) {member.error}" if member.error else reply_text(outcome.reply)
        return (Event("holder", "call", index, f"call {index}: {verb} {member.id} → {said}", member.id),)
    events = []
    if index == 1:
        events.append(Event("holder", "sends", index, f"the holder sends {verb} for {len(members)} members: the "
                            "server runs it as one command, so nothing else runs until it returns"))
    if outcome.done:
        said = f"(error) {outcome.error}" if outcome.error is not None else reply_text(outcome.reply)
        events.append(Event("holder", "returns", index, f"{verb} returns {said}"))
    return tuple(events)
