"""The plain mode's learner moves: run mode (m), guard off (g), a racing reaper (k), predict mode (p), a guess."""

from __future__ import annotations

from ....engine.stepper import ModeRefused, NothingToReap
from ....engine.stepper.modes import WHAT_IF_REFUSAL
from .state import Dive
from .words import choices_text, mode_label, question


def _remode(dive: Dive, run_mode: str, guard_off: bool) -> None:
    """Re-run the batch from its start in ``run_mode`` with the guard on or off, to the step on show."""
    session = dive.session
    try:
        with session.store.io():
            frame = session.set_mode(run_mode, guard_off)
    except ModeRefused as refused:
        dive.say(f"Not here: {refused}. Nothing changed.")
        return
    dive.say(f"Run mode: {mode_label(frame)}. The batch ran again from its start to step {frame.step.index}.")
    dive.show(frame)


def mode(dive: Dive, _key: str, _argument: str) -> None:
    """Cycle the run mode: one batch ⇄ N single calls of extend_lock, re-run from the start to the same step."""
    played = dive.current().played
    if played is None:
        return
    if played.what_if:
        dive.say(f"Guard back on: {WHAT_IF_REFUSAL}.")
    _remode(dive, "singles" if played.mode != "singles" else "batch", False)


def guard(dive: Dive, _key: str, _argument: str) -> None:
    """Turn the ZSCORE guard off (a what-if script, never the real one) or back on; wire 4 batch only."""
    played = dive.current().played
    if played is None:
        return
    _remode(dive, "batch" if played.mode == "guard-off" else played.mode, not played.what_if)


def reap(dive: Dive, _key: str, _argument: str) -> None:
    """Ask the reaper to reap the next member not yet checked, racing the holder; b undoes its move."""
    session = dive.session
    try:
        with session.store.io():
            asked, frame = session.reap()
    except NothingToReap as nothing:
        dive.say(f"The reaper: {nothing}.")
        return
    dive.keep(frame)
    dive.say(f"The reaper: {asked.text}. Enter steps on; the race is said after each step.")


def predict(dive: Dive, _key: str, _argument: str) -> None:
    """Turn predict mode on or off: before each member's step, say by number what will decide it."""
    played = dive.current().played
    if played is None:
        return
    on = not played.predicting
    with dive.session.store.io():
        frame = dive.session.predict(on)
    dive.keep(frame)
    now = frame.played
    if not on:
        dive.say("Predict mode off; the guesses made stay with their run.")
    elif now is not None and now.asks is None:
        right, judged = now.score
        dive.say(f"Predict mode on: before a member's step you are asked what will decide it "
                 f"({choices_text(now.choices)}). Step to a member to be asked. Predicted {right} of {judged}.")
    else:
        dive.say(f"Predict mode on: before each member's step you say what will decide it. {question(frame)}")


def guess(dive: Dive, key: str, argument: str) -> None:
    """Answer predict mode's question with the number typed, then run the step."""
    frame = dive.current()
    played = frame.played
    typed = f"{key} {argument}".strip()
    if played is None or played.asks is None:
        hint = "step to a member to be asked" if played is not None and played.predicting else \
            "p turns predict mode on"
        dive.say(f"Nothing asks for a number now: {hint}.")
        return
    if not typed.isdigit() or not 1 <= int(typed) <= len(played.choices):
        dive.say(f"{typed!r} is no choice, so the step waits for a guess: choose 1 to {len(played.choices)} "
                 f"({choices_text(played.choices)}), or p to stop predicting.")
        return
    check, member = played.choices[int(typed) - 1], played.asks
    dive.move(lambda: dive.session.guess(member, check, frame.step.index + 1))
