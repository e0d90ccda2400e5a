"""Step a batch lease extension member by member against a live store, and check it against the atomic run."""

from .driver import DRIVERS, Driver, Outcome, ReplayMismatch, register
from .lua_driver import LUA_MARKS
from .model import NOT_EVALUATED, Agreement, Call, Member, Step
from .stepper import Stepper

__all__ = ["DRIVERS", "LUA_MARKS", "NOT_EVALUATED", "Agreement", "Call", "Driver", "Member", "Outcome",
           "ReplayMismatch", "Step", "Stepper", "register"]
