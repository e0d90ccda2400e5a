"""The dive as lines of text: commands from stdin, one short paragraph per step, for screen readers and pipes."""

from __future__ import annotations

from collections.abc import Iterator

from . import missions as plain_missions
from .commands import BY_KEY, help_text
from .state import Bold, Dive, NoStyle, Style, style_for

__all__ = ["Bold", "NoStyle", "PlainDive", "Style", "style_for"]

GREETING = "Enter steps, h lists every command, q quits."


class PlainDive(Dive):
    """Reads commands line by line and answers each with a paragraph; every value comes from the session's store."""

    def run(self, lines: Iterator[str], start: int = 0, mission: int | None = None) -> int:
        """Open the batch at ``start`` (or on ``mission``), then answer commands until ``q`` or the end of input; the
        exit status."""
        self._lines = lines
        self.say(f"{self.session.lesson.heading}, on {self.session.store.description}. {GREETING}")
        self.move(lambda: self.session.open(start))
        if mission is not None:
            plain_missions.of(self).start(mission)
        while not self.quitting and (line := self.read()) is not None:
            self.answer(line)
        return 0

    def answer(self, line: str) -> None:
        """Do the command ``line`` names, or say it is none."""
        key, _, argument = (":", "", line[1:].strip()) if line.startswith(":") else line.partition(" ")  # :CMD as : CMD
        command = BY_KEY.get(key) or BY_KEY.get(key.lower())  # E (your script) is not e (the sandbox)
        if command is None:
            self.say(f"Unknown command {line!r}. {help_text()}")
            return
        command.run(self, key, argument.strip())
