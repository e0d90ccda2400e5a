"""The diff from the course's script to the learner's, drawn as a unified diff."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ....engine.stepper.user_script import diff


class ScriptDiff(Static, can_focus=True):
    """Shows what the learner changed in a course script, line by line, or that nothing differs."""

    DEFAULT_CSS = """
    ScriptDiff { height: 1fr; overflow-y: auto; border: round $secondary; padding: 0 1; }
    """

    def show(self, name: str, course: str, yours: str) -> list[str]:
        """Draw the diff of ``yours`` against the course's ``name``.lua; returns its lines."""
        lines = diff(name, course, yours)
        text = Text()
        for line in lines or [f"your {name}.lua is the course's, line for line"]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else \
                "cyan" if line.startswith("@@") else ""
            text.append(line + "\n", style=style)
        self.update(text)
        return lines
