"""What the dive's store moves post back to the screen: each a result a worker made, never a request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ....engine.stepper import Event
from ....present.session import Frame

if TYPE_CHECKING:  # the fates' modules load when a fate first runs
    from ....engine.fates import FateRun, WireCompare


@dataclass
class FrameReady(Message):
    """A worker finished a store move; ``frame`` is what the screen shows now."""

    frame: Frame


@dataclass
class Compared(Message):
    """The wire switch ran the batch on both wires."""

    compared: WireCompare
    frame: Frame


@dataclass
class FateRan(Message):
    """A fate's four verbs ran and the lesson batch was set up again."""

    run: FateRun
    frame: Frame


@dataclass
class Refused(Message):
    """A move the engine refused (a mode where it does not run, a reaper with nothing to reap): why, in words."""

    reason: str


@dataclass
class Reaped(Message):
    """The reaper was asked to race the holder; ``asked`` is its waiting move."""

    asked: Event
    frame: Frame
