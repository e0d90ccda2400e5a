"""The dive as lines of text: commands from stdin, one short paragraph per step, for screen readers and pipes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import ClassVar, Protocol, TextIO

from ..fate_table import FATES
from ..fates import FateRun, WireCompare
from ..session import Frame, Session
from . import words
from .transcript import Recorder, default_name

MEMBER_FATES = tuple(fate for fate in FATES if fate.member)
"""The fates ``f`` offers: those a single member of the batch can be given."""

KEYS = "Enter steps, b goes back, w switches the wire, f gives a member a fate, x [FILE] writes the transcript, " \
       "h is this help, q quits."


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


def paragraph(frame: Frame, style: Style) -> str:
    """One step in sentences: the member, each check and its verdict, now, failed so far, and the end."""
    step = frame.step
    head = style.head(f"Step {step.index} of {step.count} on wire {frame.wire}:")
    member = words.current_member(step)
    if step.index == 0:
        said = [f"the handle built the command for {words.members_text(frame)}.", "Nothing is sent yet."]
    elif member is not None:
        row, token, active, verdict = words.checks(member, step.now)
        said = [f"member {member.index + 1} of {len(step.members)}, {member.id}, token {member.token}.",
                f"Row check, HGET attempts: {row}.", f"Token check: {token}.", f"Active check, ZSCORE: {active}.",
                f"Verdict: {verdict or 'none'}."]
    else:
        said = [f"{step.title}."]
    written = words.writes(step)
    if step.index and (written or member is None):
        said.append("Writes: " + ("; ".join(words.write_text(call, step.now) for call in written) or "none") + ".")
    said += [f"The shared {words.now_text(step)}.", f"{_capital(words.failed_text(step))}."]
    said += [f"Note: {note}." for note in step.notes]
    if step.done:
        said.append(f"{_capital(words.reply_words(step))}.")
        if frame.answer:
            said.append(f"extend_locks {frame.answer}.")
        if frame.agreement is not None:
            said.append(f"{_capital(words.agreement_text(frame.agreement))}.")
    return " ".join([head, *said])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def compared_text(compared: WireCompare) -> str:
    """A wire switch's comparison of both twins in one paragraph."""
    said = []
    for answer in (compared.scripted, compared.native):
        said.append(f"{answer.verb} on wire {answer.wire} " + (answer.unavailable or answer.summary(8)) + ".")
    said += [f"{_capital(note)}." for note in compared.differences if note != compared.native.unavailable]
    return " ".join(["Both wires ran the batch from the same start.", *said])


def fate_text(run: FateRun) -> str:
    """A fate's four verbs in one paragraph."""
    said = [f"Fate {run.fate.key}, {run.fate.title}:"]
    said += [f"{answer.verb} {answer.unavailable or answer.summary(8)}." for answer in run.answers]
    if run.note:
        said.append(f"Note: {run.note}.")
    return " ".join(said)


class PlainDive:
    """Reads commands line by line and answers each with a paragraph; every value comes from the session's store."""

    def __init__(self, session: Session, out: TextIO, style: Style, recorder: Recorder,
                 path_problem: Callable[[str], str | None], prompt: bool = False) -> None:
        self.session = session
        self.out = out
        self.style = style
        self.recorder = recorder
        self.path_problem = path_problem
        self.prompt = prompt
        self.frame: Frame | None = None
        self._lines: Iterator[str] = iter(())

    def say(self, text: str) -> None:
        """Print one paragraph and a blank line after it."""
        print(text, file=self.out, end="\n\n", flush=True)

    def show(self, frame: Frame) -> None:
        """Say ``frame`` and record it for the transcript."""
        self.frame = frame
        self.recorder.frame(frame)
        self.say(paragraph(frame, self.style))

    def ask(self, question: str) -> str | None:
        """Say ``question`` and read the next line, or None at the end of input."""
        self.say(question)
        return self._read()

    def _read(self) -> str | None:
        try:
            if self.prompt:
                print("> ", file=self.out, end="", flush=True)
            line = next(self._lines, None)
        except OSError:  # the terminal hung up (EIO): the end of input, as a closed window's SIGHUP is
            return None
        return None if line is None else line.strip()

    def run(self, lines: Iterator[str], start: int = 0) -> int:
        """Open the batch at ``start``, then answer commands until ``q`` or the end of input; the exit status."""
        self._lines = lines
        self.say(f"{self.session.lesson.heading}, on {self.session.store.description}. {KEYS}")
        self.move(lambda: self.session.open(start))
        while (line := self._read()) is not None:
            command, _, argument = line.partition(" ")
            if command == "q":
                break
            action = self.actions.get(command.lower())
            if action is None:
                self.say(f"Unknown command {line!r}. {KEYS}")
            else:
                action(self, argument.strip())
        return 0

    def move(self, motion: Callable[[], Frame]) -> None:
        """Run one store move inside the store's lock and say the frame it ends on."""
        with self.session.store.io():
            frame = motion()
        self.show(frame)

    def forward(self, _: str) -> None:
        """Run the next step."""
        frame = self.frame
        if frame is not None and frame.step.done:
            self.say("The run is over. b goes back, w runs it on the other wire, f gives a member a fate.")
            return
        self.move(lambda: self.session.goto((frame.step.index if frame else 0) + 1))

    def back(self, _: str) -> None:
        """Undo the last step in the store."""
        frame = self.frame
        if frame is None or frame.step.index == 0:
            self.say("At the handle already; nothing was sent, so there is nothing to undo.")
            return
        self.move(lambda: self.session.goto(frame.step.index - 1))

    def wire(self, _: str) -> None:
        """Run the batch on both wires from the start, then carry on on the other one."""
        other = 6 if self.session.wire == 4 else 4
        if other == 6 and not self.session.store.native:
            self.say(f"Wire 6 is not on this backend: {self.session.store.native_reason}. Staying on wire 4.")
        with self.session.store.io():
            compared, frame = self.session.switch(other)
        self.recorder.compared(compared)
        self.say(compared_text(compared))
        self.show(frame)

    def fate(self, _: str) -> None:
        """Pick a member fate by number, see the four verbs on it, then give it to a member or not."""
        listed = "; ".join(f"{i} {fate.key}, {fate.title}" for i, fate in enumerate(MEMBER_FATES, 1))
        answer = self.ask(f"Fates: {listed}. Type a number, or Enter to go back.")
        keys = [fate.key for fate in MEMBER_FATES]
        chosen = keys.index(answer) if answer in keys else _choice(answer, len(keys))
        if chosen is None:
            self.say("No fate chosen.")
            return
        key = MEMBER_FATES[chosen].key
        with self.session.store.io():
            ran, frame = self.session.run_fate(key)
        self.recorder.fate_ran(ran)
        self.say(fate_text(ran))
        self.frame = frame
        members = "; ".join(f"{i} {job}, now {fate}" for i, ((job, _), fate) in
                            enumerate(zip(frame.held, frame.fates, strict=True), 1))
        index = _choice(self.ask(f"Give {key} to which member? {members}. Type a number, or Enter to keep the "
                                 "batch as it is."), len(frame.held))
        if index is None:
            self.say("The batch is as it was.")
            self.show(frame)
            return
        self.move(lambda: self.session.apply(index, key))

    def transcript(self, argument: str) -> None:
        """Write the transcript of everything so far, to ``argument`` or a file named after the run."""
        path = argument or default_name(self.session.lesson.id, self.session.store.queue)
        problem = self.path_problem(path)
        if problem:
            self.say(f"Cannot write the transcript: {problem}.")
            return
        try:
            written = self.recorder.write(path)
        except OSError as err:
            self.say(f"Cannot write the transcript: {err.strerror or err}.")
            return
        self.say(f"The transcript so far is in {Path(os.path.abspath(written))}.")

    def help(self, _: str) -> None:
        """Say the keys."""
        self.say(KEYS)

    actions: ClassVar[Mapping[str, Callable[[PlainDive, str], None]]] = {
        "": forward, "b": back, "w": wire, "f": fate, "x": transcript, "h": help, "?": help}


def _choice(answer: str | None, count: int) -> int | None:
    """A 1-based number typed in answer, as an index below ``count``, or None."""
    if answer is None or not answer.isdigit():
        return None
    number = int(answer)
    return number - 1 if 1 <= number <= count else None
