"""Back after a console write: put back what the write replaced, on a worker that posts the frame to the dive."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from weakref import WeakKeyDictionary

from textual.message import Message
from textual.worker import Worker

from ....present.session import Frame, Session, with_seq
from .dive_messages import FrameReady

if TYPE_CHECKING:
    from ....present.console import Console  # loaded by ``console_of``, when the console is first used

_CONSOLES: WeakKeyDictionary[Session, Console] = WeakKeyDictionary()
"""Each session's console, made on first use: its history and what its writes replaced."""


@dataclass
class ConsoleUndone(Message):
    """Back put back what the newest console write replaced."""

    frame: Frame


class Numbered(Protocol):
    """The dive's store moves as far as back goes: the newest move's number."""

    seq: int


class Host(Protocol):
    """The dive screen as back sees it: its session, whether a batch-wide move is under way, and its moves."""

    session: Session
    busy: str
    target: int
    frame: Frame | None

    @property
    def moves(self) -> Numbered: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(self, work: Callable[[], None], name: str | None = "", group: str = "default",
                   description: str = "", exit_on_error: bool = True, start: bool = True, exclusive: bool = False,
                   thread: bool = False) -> Worker[None]: ...


def console_of(session: Session) -> Console:
    """The console of ``session``, one per session."""
    console = _CONSOLES.get(session)
    if console is None:
        from ....present.console import Console

        console = _CONSOLES[session] = Console(session)
    return console


def settled(host: Host) -> bool:
    """True when no move is under way on ``host``: no batch-wide move, and the step asked for is the one on screen."""
    frame = host.frame
    return not host.busy and frame is not None and host.target == frame.step.index


def back(host: Host) -> bool:
    """Undo the newest console write when one stands at the step on screen, on a worker; True when it does (so back
    does not also step back)."""
    console = _CONSOLES.get(host.session)  # no console yet: no write to undo (and its modules stay unloaded)
    if console is None or not settled(host) or not console.undoable():
        return False
    seq, session = host.moves.seq, host.session

    def run() -> None:
        with session.store.io():
            frame = console.undo()
        host.post_message(FrameReady(with_seq(frame, seq)))
        host.post_message(ConsoleUndone(frame))

    host.run_worker(run, thread=True, group="console", exclusive=True, exit_on_error=False)
    return True
