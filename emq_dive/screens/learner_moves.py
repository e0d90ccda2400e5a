"""The learner's own moves on the dive: the run mode (m), guard off (g), a racing reaper (k) and predict mode (p)."""

from __future__ import annotations

from textual.reactive import var

from ..session import Frame
from ..stepper import MODES
from ..stepper.modes import WHAT_IF_REFUSAL
from .store_moves import StoreMoves


class LearnerMoves(StoreMoves):
    """The actions behind the keys that make the learner act; each store move runs in one of StoreMoves' workers."""

    frame: var[Frame | None]
    playing: var[bool]
    busy: var[str]
    target: int
    asking: var[bool] = var(False)
    """True while predict mode waits for a digit before it runs the next step."""

    def _idle(self) -> Frame | None:
        """The frame on screen when no store move is in flight, else None (and a word to the learner)."""
        frame = self.frame
        if self.busy or frame is None or frame.played is None or frame.step.index != self.target:
            self.notify("the store is busy; one moment", severity="warning", timeout=2)
            return None
        return frame

    def _remode(self, run_mode: str, guard_off: bool, doing: str) -> None:
        self.playing, self.asking = False, False
        self.busy = doing
        self._set_mode(run_mode, guard_off, self._next_seq())

    def action_mode(self) -> None:
        """Cycle the run mode: one batch ⇄ N single calls of extend_lock, re-run from the start to the same step."""
        frame = self._idle()
        if frame is None or frame.played is None:
            return
        run_mode = "singles" if frame.played.mode != "singles" else "batch"
        if frame.played.what_if:
            self.notify(f"guard back on: {WHAT_IF_REFUSAL}", timeout=5)
        self._remode(run_mode, False, f"re-running the batch as {MODES[run_mode].label(len(frame.held))}…")

    def action_guard(self) -> None:
        """Turn the ZSCORE guard off (a what-if script, never the real one) or back on, wire 4 batch only."""
        frame = self._idle()
        if frame is None or frame.played is None:
            return
        on = not frame.played.what_if
        run_mode = "batch" if frame.played.mode == "guard-off" else frame.played.mode
        self._remode(run_mode, on, "running the what-if without the guard…" if on else "putting the guard back…")

    def action_reap(self) -> None:
        """Ask the reaper to reap the next member not yet checked, racing the holder; back undoes its move."""
        if self._idle() is not None:
            self.playing = False
            self._reap(self._next_seq())

    def action_predict(self) -> None:
        """Toggle predict mode: before each member's step, guess what will decide it."""
        frame = self._idle()
        if frame is not None and frame.played is not None:
            self.asking = False
            self._predict(not frame.played.predicting, self._next_seq())

    def action_guess(self, key: int) -> None:
        """Answer predict mode's question with choice ``key``, then run the step."""
        frame = self.frame
        played = frame.played if frame is not None else None
        if frame is None or played is None or played.asks is None or not self.asking:
            return
        if not 1 <= key <= len(played.choices):
            self.notify(f"choose 1 to {len(played.choices)}", severity="warning", timeout=2)
            return
        self.asking = False
        self.target = frame.step.index + 1
        self._guess(played.asks, played.choices[key - 1], self.target, self._next_seq())

    def on_store_moves_refused(self, message: StoreMoves.Refused) -> None:
        self.busy = ""
        self.notify(message.reason, title="not here", timeout=6)

    def on_store_moves_reaped(self, message: StoreMoves.Reaped) -> None:
        self.post_message(self.FrameReady(message.frame))
        self.notify(message.asked.text, title="the reaper", timeout=6)
