"""The plain mode's state and voice: the session, the frame on show, and saying a paragraph or reading a line."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, TextIO

from ....present.console import Console
from ....present.reset import Baseline
from ....present.session import Frame, Session
from ....tools import cost
from ..locals_text import step_locals
from ..recorder import Recorder
from . import lesson as plain_lesson
from . import words as plain_words


class Style(Protocol):
    """How a paragraph's opening words are marked: not at all, or in bold on a terminal that shows it."""

    def head(self, text: str) -> str:
        """``text`` marked as the start of a paragraph."""
        ...


class NoStyle:
    """No escape codes at all: for pipes, files, screen readers and NO_COLOR."""

    def head(self, text: str) -> str:
        return text


class Bold:
    """Bold openings on a terminal; the words alone carry every meaning."""

    def head(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m"


def style_for(stream: TextIO, environ: Mapping[str, str]) -> Style:
    """Bold only on a terminal, and never with NO_COLOR set or TERM=dumb."""
    isatty = getattr(stream, "isatty", None)
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb" or not (isatty and isatty()):
        return NoStyle()
    return Bold()


class Dive:
    """What every plain command works on: the session, the frame on show, the lesson section, and the streams."""

    def __init__(self, session: Session, out: TextIO, style: Style, recorder: Recorder,
                 path_problem: Callable[[str], str | None], prompt: bool = False,
                 clock: cost.Clock = time.perf_counter) -> None:
        self.session = session
        self.out = out
        self.style = style
        self.recorder = recorder
        self.path_problem = path_problem
        self.prompt = prompt
        self.clock = clock
        """The cost view's clock (``c``); a test brings its own."""
        self.frame: Frame | None = None
        self.section = 0
        """The lesson section ``[`` and ``]`` browse from; it follows the step's code as the lesson pane does."""
        self.quitting = False
        self._lines: Iterator[str] = iter(())
        self.console, self.baseline = Console(session), Baseline.of(session)
        """The console (``:``) with its history, and the lesson's batch as it opened, which ``R`` puts back."""
        self.listeners: list[Callable[[object], None]] = []
        """Who hears what each move left (a frame, a fate's run, a wire compare): the missions."""

    def noticed(self, seen: object) -> None:
        """Tell the listeners what a move left."""
        for listen in self.listeners:
            listen(seen)

    def say(self, text: str) -> None:
        """Print one paragraph and a blank line after it."""
        print(text, file=self.out, end="\n\n", flush=True)

    def show(self, frame: Frame) -> None:
        """Say ``frame`` (a new lesson section first, then the step, then what the moves add) and record it."""
        old, self.frame = self.frame, frame
        if old is None or old.step.source != frame.step.source:
            self._follow(frame.step.source)
        self.recorder.frame(frame)
        said = plain_words.paragraph(frame, self.style)
        if frame.step.locals or old is None or old.step.source != frame.step.source:  # "no locals" said once a run
            said += " " + step_locals(frame.step)
        self.say(said)
        for said in plain_words.played_text(frame):
            self.say(said)
        self.noticed(frame)

    def keep(self, frame: Frame) -> None:
        """Hold ``frame`` as the one on show, without saying its step again (a move that changed no step)."""
        self.frame = frame
        self.recorder.frame(frame)

    def _follow(self, source: str) -> None:
        lesson = self.session.lesson
        index = plain_lesson.following(lesson, source)
        if index is not None and index != self.section:
            self.section = index
            self.say(f"The lesson goes with this step in section {index + 1} of {len(lesson.sections)}, "
                     f"{lesson.sections[index].title}: l {index + 1} reads it.")

    def ask(self, question: str) -> str | None:
        """Say ``question`` and read the next line, or None at the end of input."""
        self.say(question)
        return self.read()

    def read(self) -> str | None:
        """The next line typed, stripped, or None at the end of input (which also ends the dive)."""
        try:
            if self.prompt:
                print("> ", file=self.out, end="", flush=True)
            line = next(self._lines, None)
        except OSError:  # the terminal hung up (EIO): the end of input, as a closed window's SIGHUP is
            line = None
        if line is None:
            self.quitting = True
            return None
        return line.strip()

    def move(self, motion: Callable[[], Frame]) -> Frame:
        """Run one store move inside the store's lock, say the frame it ends on, and return it."""
        with self.session.store.io():
            frame = motion()
        self.show(frame)
        return frame

    def current(self) -> Frame:
        """The frame on show (the dive opens one before it reads a command)."""
        assert self.frame is not None
        return self.frame
