"""The plain mode's console (``: COMMAND``) and reset (``R``): the TUI's policy and moves, said as lines."""

from __future__ import annotations

from ....engine.echo_mq.console import Refusal
from ....present import reset as resets
from ....present.console import Failed, Outcome
from ....present.console_block import Blocked, Executed, block_words
from ....present.console_seen import seen_sent
from .state import Dive

YES = ("y", "yes")


def said(outcome: Outcome) -> str:
    """What the plain mode says for one console line: the reply as redis-cli prints it, or the one line of refusal."""
    if isinstance(outcome, Refusal):
        return f"Refused, nothing sent: {outcome.reason}."
    if isinstance(outcome, Failed):
        return f"Not answered: {outcome.reason}."
    if isinstance(outcome, Blocked):
        said = block_words(outcome)
        return f"{outcome.typed.strip()}: {said[:1].upper()}{said[1:]}."
    if isinstance(outcome, Executed):
        after = " b undoes the whole block." if outcome.undoable else ""
        note = f" ({outcome.note})" if outcome.note else ""
        return (f"EXEC sent MULTI, {', '.join(line.name for line in outcome.queued) or 'nothing'}, EXEC in one "
                f"transaction; it answered{note}:{after}\n" + "\n".join(outcome.lines))
    after = " b undoes it." if outcome.undoable else ""
    note = f" ({outcome.note})" if outcome.note else ""
    return f"{outcome.line.name} answered{note}:{after}\n" + "\n".join(outcome.lines)


def console(dive: Dive, _key: str, argument: str) -> None:
    """Send one console line to the dive's store (the lesson's EVALSHA, the native verbs, reads of its keys), or
    open, send or drop a MULTI block of them."""
    local = dive.console.local(argument)
    if local is not None:  # refused, a block word or a queued line, before the store's lock: nothing is sent
        dive.say(said(local))
        return
    with dive.session.store.io():
        outcome, frame = dive.console.run(argument)
    dive.recorder.console(outcome)
    dive.say(said(outcome))
    if frame is not None:
        dive.keep(frame)
    seen = seen_sent(outcome, frame)
    if seen is not None:
        dive.noticed(seen)


def undo(dive: Dive) -> bool:
    """Put back what the console's newest write replaced, when one stands at this step; True when it did."""
    if not dive.console.undoable():
        return False
    with dive.session.store.io():
        frame = dive.console.undo()
    dive.keep(frame)
    dive.say("Back put back what the console's write replaced; s says the store.")
    return True


def reset(dive: Dive, _key: str, _argument: str) -> None:
    """Put the lesson's batch back, asking once (y or n) when something would be lost."""
    lost = resets.losses(dive.session, dive.baseline, dive.console)
    if lost:
        answer = dive.ask(f"{resets.question(lost)} y resets, n keeps it.")
        if answer is None or answer.lower() not in YES:
            dive.say("Kept as it was.")
            return
    dive.say("Reset to the lesson's batch.")
    dive.move(lambda: resets.reset(dive.session, dive.baseline))
