"""The batch table: one row per member, its three checks as read, and its verdict; only visible rows are drawn."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..render import deadline, text
from ..session import Frame
from ..stepper import NOT_EVALUATED, Member, Step
from .style import foreground
from .wire_lines import lapsed

COLUMNS = (("#", 2), ("id", 5), ("token", 5), ("row? HGET", 11), ("token?", 13), ("in active?", 13),
           ("verdict", 20))
VERDICTS = {
    "live": ("live: re-scored in the write pass", "live: write pass re-scores", "live: re-scored later"),
    "not-written": ("not written: the command was refused", "not written: command refused", "not written: refused"),
    "error": ("the run stops here",),
}
"""Each verdict's phrasings, longest first: a cell shows the longest that fits its column."""


def verdict(member: Member, now: int | None, width: int) -> tuple[str, str]:
    """The verdict column's text and role, phrased to fit ``width`` cells."""
    if member.outcome == "re-scored":
        return f"re-scored → {deadline(member.new_score, now)}", "ok"
    if member.outcome == "failed":
        return f"joins failed ({member.reason})", "bad"
    if member.outcome == "raised":
        return f"raises {member.raised} ({member.error_class})", "bad"
    phrasings = VERDICTS.get(member.outcome)
    if phrasings is None:
        return "", ""
    role = {"live": "note", "not-written": "dim"}.get(member.outcome, "bad")
    return next((p for p in phrasings if len(p) <= width), phrasings[-1]), role


def cells(member: Member, now: int | None, width: int = 40) -> list[tuple[str, str]]:
    """Each column's text and its style role (``dim``, ``ok``, ``bad``, ``note`` or empty); the verdict fits
    ``width`` cells."""
    out = [(str(member.index + 1), "dim"), (member.id, ""), (member.token, "")]
    if not member.ran:
        return [*out, ("", ""), ("", ""), ("", ""), ("waiting", "dim")]
    att = member.attempts
    if att == NOT_EVALUATED:
        out.append((NOT_EVALUATED, "dim"))
    elif member.outcome == "error":
        out.append((f"{text(att).split(' ', 1)[0]} ✗", "bad"))  # the whole message is in the step bar and wire
    elif att is None:
        out.append(("nil ✗", "bad"))
    else:
        out.append((f'"{text(att)}" ✓', "ok"))
    if member.token_ok == NOT_EVALUATED:
        out.append((NOT_EVALUATED, "dim"))
    elif member.token_ok:
        out.append((f'"{text(att)}"="{member.token}" ✓', "ok"))
    else:
        out.append((f'"{text(att)}"≠"{member.token}" ✗', "bad"))
    if member.score == NOT_EVALUATED:
        out.append((NOT_EVALUATED, "dim"))
    elif member.score is None:
        out.append(("nil ✗", "bad"))
    else:
        out.append((f"{deadline(member.score, now)} ✓", "note" if lapsed(member, now) else "ok"))
    out.append(verdict(member, now, width))
    return out


class BatchTable(ScrollView, can_focus=False):
    """Draws one line per member with the Line API, so a step redraws only what is on screen."""

    DEFAULT_CSS: ClassVar[str] = """
    BatchTable {
        height: auto;
        max-height: 12;
        border: round $primary 50%;
        border-title-color: $text-primary;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    BatchTable > .batch-table--header { text-style: bold; color: $text-primary; }
    BatchTable > .batch-table--current { background: $accent 25%; }
    BatchTable > .batch-table--dim { color: $text-disabled; text-style: italic; }
    BatchTable > .batch-table--ok { color: $text-success; }
    BatchTable > .batch-table--bad { color: $text-error; }
    BatchTable > .batch-table--note { color: $text-warning; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"batch-table--header", "batch-table--current", "batch-table--dim",
                                             "batch-table--ok", "batch-table--bad", "batch-table--note"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step's members are drawn (the watcher repaints only the rows that changed)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._cache: dict[tuple[int, Member, bool, int | None, int], Strip] = {}
        self._widths: tuple[int, int] = (-1, 5)
        self.border_title = "the batch · row? → token? → in active? (checked in order)"

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        step = self.step
        return 1 + (len(step.members) if step else 1)

    @property
    def step(self) -> Step | None:
        """The step on show."""
        return self.frame.step if self.frame is not None else None

    def watch_frame(self, old_frame: Frame | None, frame: Frame | None) -> None:
        old, step = (f.step if f is not None else None for f in (old_frame, frame))
        if step is None:
            return
        width = self.scrollable_content_region.width
        full = old is None or old.now != step.now
        if old is None or len(old.members) != len(step.members) or self.virtual_size.width != width:
            self._cache.clear()
            self.virtual_size = Size(width, len(step.members) + 1)
            self.refresh(layout=True)
            full = True
        top = self.scroll_offset.y
        current = self._current(step)
        if current is not None:
            self.scroll_to_region_row(current + 1)
        if full or old is None or self.scroll_offset.y != top:
            self.refresh()
        else:
            self._repaint_rows(old, step)

    def _repaint_rows(self, old: Step, step: Step) -> None:
        """Repaint the visible rows whose member or current mark changed: O(visible rows), not O(members)."""
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        width = self.scrollable_content_region.width
        was, now = self._current(old), self._current(step)
        changed = []
        for y in range(1, height):
            index = top + y - 1
            if index >= len(step.members):
                break
            before, after = old.members[index], step.members[index]
            if (index == was) != (index == now) or (before is not after and before != after):
                changed.append(Region(0, y, width, 1))
        if changed:
            self.refresh(*changed)

    def on_resize(self) -> None:
        if self.step is not None:
            self.virtual_size = Size(self.scrollable_content_region.width, len(self.step.members) + 1)

    def scroll_to_region_row(self, row: int) -> None:
        """Keep ``row`` of the virtual table in view."""
        height = self.scrollable_content_region.height
        if height <= 1:
            return
        top = self.scroll_offset.y
        if row < top + 1 or row >= top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)

    @staticmethod
    def _current(step: Step) -> int | None:
        if step.index == 0 or not step.members:
            return None
        return min(step.index, len(step.members)) - 1

    def _columns(self) -> list[tuple[str, int]]:
        members = self.step.members if self.step else ()
        if self._widths[0] != len(members):
            self._widths = (len(members), max((len(m.id) for m in members), default=5))
        widths = [len(str(len(members))), self._widths[1]]
        columns = [(name, max(width, widths[i])) if i < 2 else (name, width)
                   for i, (name, width) in enumerate(COLUMNS[:-1])]
        fixed = sum(width + 1 for _, width in columns)
        last = max(COLUMNS[-1][1], self.scrollable_content_region.width - fixed - 1)
        return [*columns, (COLUMNS[-1][0], last)]

    def _row(self, member: Member, current: bool, now: int | None) -> Strip:
        columns = self._columns()
        key = (member.index, member, current, now, columns[-1][1])
        strip = self._cache.get(key)
        if strip is None:
            base = self.rich_style + (self.get_component_rich_style("batch-table--current") if current else Style())
            segments = []
            for (shown, role), (_, width) in zip(cells(member, now, columns[-1][1]), columns, strict=True):
                style = base + (foreground(self.get_component_rich_style(f"batch-table--{role}")) if role else Style())
                cell = Text(shown, no_wrap=True, overflow="ellipsis")
                cell.truncate(width, overflow="ellipsis", pad=True)
                segments.append(Segment(cell.plain + " ", style))
            strip = Strip(segments)
            self._cache[key] = strip
            if len(self._cache) > 4096:
                self._cache.clear()
        return strip

    def render_line(self, y: int) -> Strip:
        step = self.step
        width = self.scrollable_content_region.width
        if y == 0:
            style = self.get_component_rich_style("batch-table--header")
            header = "".join(f"{name:<{w}.{w}} " for name, w in self._columns())
            return Strip([Segment(header, self.rich_style + style)]).crop_extend(0, width, self.rich_style)
        index = self.scroll_offset.y + y - 1
        if step is None or index >= len(step.members):
            return Strip.blank(width, self.rich_style)
        member = step.members[index]
        strip = self._row(member, index == self._current(step), step.now)
        return strip.crop_extend(0, width, self.rich_style)
