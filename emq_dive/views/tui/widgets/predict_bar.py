"""The predict bar: the question before a step, each guess judged by the check that decided it, the score."""

from __future__ import annotations

from typing import ClassVar

from textual.reactive import reactive

from ....engine.stepper import Check
from ....present.session import Frame
from .shown import Shown

LABELS = {Check.RESCORED: "re-scored", Check.NO_ROW: "fails: no row", Check.STALE: "fails: stale token",
          Check.NOT_ACTIVE: "fails: not in active", Check.WRONGTYPE: "WRONGTYPE", Check.REFUSED: "refused"}
"""What each guess key offers."""


def question(frame: Frame) -> str:
    """The prompt for the member the next step decides, with every choice and its key."""
    played = frame.played
    if played is None or played.asks is None:
        return ""
    job = frame.step.members[played.asks].id
    keys = " · ".join(f"{n} {LABELS[check]}" for n, check in enumerate(played.choices, 1))
    return f"what will the next step decide for {job}?  {keys}"


class PredictBar(Shown):
    """Shown while predict mode is on (p): asks before a member's step, then says right or wrong and why."""

    DEFAULT_CSS: ClassVar[str] = """
    PredictBar { height: auto; padding: 0 1; background: $boost; display: none; }
    PredictBar > .predict-bar--ask { color: $text-accent; text-style: bold; }
    PredictBar > .predict-bar--ok { color: $text-success; }
    PredictBar > .predict-bar--bad { color: $text-error; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"predict-bar--ask", "predict-bar--ok", "predict-bar--bad"}
    ROLES = "predict-bar"
    WRAP = True

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose guesses are judged."""
    asking: reactive[bool] = reactive(False, repaint=False)
    """True while the screen waits for a digit before it steps."""

    def watch_frame(self) -> None:
        self.redraw()

    def watch_asking(self) -> None:
        self.redraw()

    def lines(self) -> list[tuple[str, str]]:
        frame = self.frame
        lines: list[tuple[str, str]] = []
        played = frame.played if frame is not None else None
        if frame is None or played is None or not played.predicting:
            return []
        right, judged = played.score
        if self.asking or played.asks is not None:
            lines.append((("press a key: " if self.asking else "→ asks first: ") + question(frame), "ask"))
        shown = [j for j in played.judged if j.right is not None]
        if frame.step.done:
            lines.append((f"score: {right} of {judged} predictions right", "ask"))
            lines += [(f"✗ {j.prediction.job_id}: you said {LABELS[j.prediction.guess]}, but {j.actual}: "
                       f"{j.actual.explains}", "bad") for j in shown if not j.right and j.actual is not None]
        elif shown:
            last = shown[-1]
            lines.append((f"{last.prediction.job_id}: you said {LABELS[last.prediction.guess]}, "
                          f"{'right' if last.right else 'wrong'}: {last.actual} decided it",
                          "ok" if last.right else "bad"))
        if not lines:
            lines.append((f"predict mode: step to a member to be asked first · predicted {right}/{judged}", "ask"))
        return lines
