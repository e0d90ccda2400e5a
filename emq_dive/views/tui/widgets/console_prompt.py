"""The console's one-line prompt: an Input whose ↑ and ↓ walk the lines sent before."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

from ....present.console import History

PLACEHOLDER = "EVALSHA $sha 2 $active $base $lease JOB01 01 · ZRANGE $active 0 -1 WITHSCORES · HGETALL $job:JOB01"
"""What the empty prompt offers: the lesson's batch call and two reads."""


class ConsolePrompt(Input):
    """Where the learner types a console line; Enter submits it (Input.Submitted), ↑/↓ bring back earlier ones."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("up", "older", "older line", show=False),
                                             Binding("down", "newer", "newer line", show=False)]

    def __init__(self, history: History) -> None:
        super().__init__(placeholder=PLACEHOLDER, id="console-prompt")
        self.history = history

    def action_older(self) -> None:
        line = self.history.older()
        if line is not None:
            self.value = line
            self.cursor_position = len(line)

    def action_newer(self) -> None:
        self.value = self.history.newer()
        self.cursor_position = len(self.value)
