"""The race timeline: the holder's commands and the reaper's moves in two lanes, in the order the store saw them."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive

from ....present.session import Frame
from .shown import Shown
from .word_wrap import word_wrap

MARKS = {"sends": "▶", "returns": "◀", "call": "▶", "waits": "◷", "lands": "✦"}
"""Each event kind's mark on the timeline."""
SHOWN = 7
"""How many of the latest events the timeline draws."""
LANES = ("holder", "reaper")
GUTTER = 3
"""Cells of the step number before the lanes."""
SEPARATOR = " │ "


def lane_widths(width: int) -> tuple[int, int]:
    """The holder's and the reaper's lane widths in ``width`` cells: the reaper's words are the longer."""
    room = max(2, width - GUTTER - len(SEPARATOR))
    holder = max(1, room * 2 // 5)
    return holder, max(1, room - holder)


class RaceTimeline(Shown):
    """Shown once the learner has asked the reaper (k) in this run: each event in its actor's lane, wrapped whole."""

    DEFAULT_CSS: ClassVar[str] = """
    RaceTimeline {
        height: auto; padding: 0 1; display: none;
        border: round $warning 50%; border-title-color: $text-warning;
    }
    RaceTimeline > .race-timeline--holder { color: $text-primary; }
    RaceTimeline > .race-timeline--reaper { color: $text-warning; text-style: bold; }
    RaceTimeline > .race-timeline--lane { color: $text-secondary; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"race-timeline--holder", "race-timeline--reaper",
                                             "race-timeline--lane"}
    ROLES = "race-timeline"

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose run's race is drawn."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.border_title = "the race · holder ▶ and reaper ✦, in the store's order"

    def lines(self) -> list[tuple[str, str]]:
        played = self.frame.played if self.frame is not None else None
        if played is None or not any(event.actor == "reaper" for event in played.race):
            return []
        return [(f"{event.step:>2} {MARKS.get(event.kind, '·')} {event.text}", event.actor)
                for event in played.race[-SHOWN:]]

    def laid_rows(self, lines: list[tuple[str, str]], width: int) -> list[Text]:
        """The lanes' heading, then each event wrapped whole in its actor's lane, its step in the gutter."""
        if width <= 0 or not lines:
            return []
        widths = lane_widths(width)
        lane_style = self.role_style("race-timeline--lane")
        rows = [self._row("", [Text(name, style=lane_style) for name in LANES], widths, lane_style)]
        for line, actor in lines:
            lane = LANES.index(actor) if actor in LANES else 0
            text = Text(line[GUTTER:], style=self.role_style(f"race-timeline--{actor}"), end="")
            for n, part in enumerate(word_wrap(text, widths[lane])):
                cells = [Text(), Text()]
                cells[lane] = part
                rows.append(self._row(line[:GUTTER] if n == 0 else "", cells, widths, lane_style))
        return rows

    @staticmethod
    def _row(gutter: str, cells: list[Text], widths: tuple[int, int], lane_style: Style) -> Text:
        row = Text(f"{gutter:<{GUTTER}}", end="")
        for n, (cell, width) in enumerate(zip(cells, widths, strict=True)):
            cell = cell.copy()
            cell.truncate(width, pad=n == 0)
            row.append_text(cell)
            if n == 0:
                row.append(SEPARATOR, style=lane_style)
        return row

    def watch_frame(self) -> None:
        self.redraw()
