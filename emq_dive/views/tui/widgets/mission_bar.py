"""The mission bar: the goal of the mission under way, above the Try it row, and whether it is met."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Static


class MissionBar(Static):
    """One row (it wraps where the screen is narrow) with the mission's goal; hidden while no mission runs."""

    DEFAULT_CSS: ClassVar[str] = """
    MissionBar { height: auto; padding: 0 1; background: $boost; color: $text; display: none; }
    MissionBar.-on { display: block; }
    MissionBar.-met { background: $success 30%; }
    """

    def say(self, line: str, met: bool) -> None:
        """Show ``line`` (empty hides the bar), marked met or under way."""
        self.set_class(bool(line), "-on")
        self.set_class(met, "-met")
        self.update(line)
