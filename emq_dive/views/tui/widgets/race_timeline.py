"""The race timeline: the holder's commands and the reaper's moves, in the order the store saw them."""

from __future__ import annotations

from typing import ClassVar

from textual.reactive import reactive

from ....present.session import Frame
from .shown import Shown

MARKS = {"sends": "▶", "returns": "◀", "call": "▶", "waits": "…", "lands": "✦"}
"""Each event kind's mark on the timeline."""
SHOWN = 7
"""How many of the latest events the timeline draws (its height, inside the border)."""


class RaceTimeline(Shown):
    """Shown once the learner has asked the reaper (k) in this run: one line per event, holder left, reaper right."""

    DEFAULT_CSS: ClassVar[str] = """
    RaceTimeline {
        height: auto; max-height: 9; padding: 0 1; display: none;
        border: round $warning 50%; border-title-color: $text-warning;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    RaceTimeline > .race-timeline--holder { color: $text-primary; }
    RaceTimeline > .race-timeline--reaper { color: $text-warning; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"race-timeline--holder", "race-timeline--reaper"}
    ROLES = "race-timeline"
    WRAP = False

    frame: reactive[Frame | None] = reactive(None, always_update=True)
    """The frame whose run's race is drawn."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.border_title = "the race · holder ▶ and reaper ✦, in the store's order"

    def lines(self) -> list[tuple[str, str]]:
        played = self.frame.played if self.frame is not None else None
        if played is None or not any(event.actor == "reaper" for event in played.race):
            return []
        return [(f"{event.step:>2} {MARKS.get(event.kind, '·')} {event.actor:<6} {event.text}", event.actor)
                for event in played.race[-SHOWN:]]

    def watch_frame(self) -> None:
        self.redraw()
