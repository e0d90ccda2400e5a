"""Step a batch lease extension member by member against a live store, and check it against the atomic run."""

from .driver import DRIVERS, Driver, ModeRefused, Outcome, ReplayMismatch, register
from .lua_driver import LUA_MARKS
from .model import Agreement, Call, Event, Member, Step
from .modes import MODES, Mode
from .outcome import (
           NOT_REACHED,
           REMOVED,
           Checked,
           Errored,
           Failed,
           NotReached,
           Passed,
           Raised,
           Reason,
           Removed,
           Verdict,
)
from .predict import Check, Judged, Prediction, Predictions, choices, decided_by
from .race import NothingToReap
from .stepper import Stepper
from .whatif import REMOVED_LINE, REMOVED_TEXT, WHAT_IF_MARKS, what_if_script

__all__ = ["DRIVERS", "LUA_MARKS", "MODES", "NOT_REACHED", "REMOVED", "REMOVED_LINE", "REMOVED_TEXT",
           "WHAT_IF_MARKS", "Agreement", "Call", "Check", "Checked", "Driver", "Errored", "Event", "Failed", "Judged",
           "Member", "Mode", "ModeRefused", "NotReached", "NothingToReap", "Outcome", "Passed", "Prediction",
           "Predictions", "Raised", "Reason", "Removed", "ReplayMismatch", "Step", "Stepper", "Verdict", "choices",
           "decided_by", "register", "what_if_script"]
