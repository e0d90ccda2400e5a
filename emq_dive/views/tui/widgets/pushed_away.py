"""The line that says which panes the notes above have pushed out of the stepping column's sight, and how to see
them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.widgets import Static


def pushed_words(names: Sequence[str]) -> str:
    """What the line says for the panes ``names`` out of sight below (empty when none is)."""
    if not names:
        return ""
    return f"↓ below, out of room: {', '.join(names)} · the wheel or tab shows {'it' if len(names) == 1 else 'them'}"


class PushedAway(Static):
    """Docked under the stepping column: shown only while a pane is out of sight below it."""

    DEFAULT_CSS: ClassVar[str] = """
    PushedAway { dock: bottom; height: auto; padding: 0 1; background: $warning 20%; color: $text-warning;
                 display: none; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self._said = ""

    def say(self, names: Sequence[str]) -> None:
        """Name the panes ``names`` out of sight (none hides the line); a change only repaints or lays out."""
        said = pushed_words(names)
        if said == self._said:
            return
        self._said = said
        self.update(said)
        self.display = bool(said)
