"""The batch table: one row per member, its three checks as read, and its verdict; only visible rows are drawn."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip

from ....engine.stepper import Member, Step, Verdict
from ....present.session import Frame
from ....present.step_words import WAITING, check_text, verdict_text, verdict_tier
from .framed import Framed
from .scrolled import thumb
from .style import foreground
from .wire_lines import lapsed

COLUMNS = (("#", 2), ("id", 5), ("token", 5), ("row? HGET", 11), ("token?", 13), ("in active?", 13),
           ("verdict", 20))
TITLES = {"batch": "the batch · row? → token? → in active? (checked in order)",
          "singles": "the calls · row? → token? → in active? (each against its call's own now)",
          "guard-off": "the what-if batch · row? → token? (its in active? check is removed)"}
"""The table's title by run mode."""


def verdict(member: Member, now: int | None, width: int, tier: int = 0) -> tuple[str, str]:
    """The verdict column's text and role, in every view's words, phrased to fit ``width`` cells (in the
    ``tier``-th wording or a shorter one)."""
    return verdict_text(member, now, width, tier)


def cells(member: Member, now: int | None, width: int = 40, tier: int = 0) -> list[tuple[str, str]]:
    """Each column's text and its style role (``dim``, ``ok``, ``bad``, ``note`` or empty); the verdict fits
    ``width`` cells."""
    out = [(str(member.index + 1), "dim"), (member.id, ""), (member.token, "")]
    if not member.ran:
        return [*out, ("", ""), ("", ""), ("", ""), (WAITING, "dim")]
    out += [check_text(member, which, now, brief=True) for which in range(3)]
    active, role = out[-1]
    if role == "ok" and lapsed(member, now):
        out[-1] = (active, "note")
    out.append(verdict(member, now, width, tier))
    return out


def tiers(members: list[Member], now: int | None, width: int) -> dict[Verdict, int]:
    """The wording each verdict takes in a column ``width`` cells wide: the shortest any of ``members`` needs, so
    two members that fail alike are worded alike (``joins failed (stale)`` beside ``failed: not-active`` is not)."""
    out: dict[Verdict, int] = {}
    for member in members:
        if member.ran and member.verdict is not None:
            tier = verdict_tier(member, now if member.now is None else member.now, width)
            out[member.verdict] = max(out.get(member.verdict, 0), tier)
    return out


class BatchTable(Framed, can_focus=False):
    """Draws one line per member with the Line API, so a step redraws only what is on screen.

    A batch taller than the table scrolls itself (a thumb in its last column, the mouse wheel), keeping the
    current member in sight; moving the window repaints the table alone and lays nothing else out.
    """

    DEFAULT_CSS: ClassVar[str] = """
    BatchTable {
        height: auto;
        max-height: 12;
        border: round $primary 50%;
        border-title-color: $text-primary;
    }
    BatchTable > .batch-table--header { text-style: bold; color: $text-primary; }
    BatchTable > .batch-table--current { background: $accent 25%; }
    BatchTable > .batch-table--dim { color: $text-disabled; text-style: italic; }
    BatchTable > .batch-table--ok { color: $text-success; }
    BatchTable > .batch-table--bad { color: $text-error; }
    BatchTable > .batch-table--note { color: $text-warning; }
    BatchTable > .batch-table--thumb { background: $scrollbar; }
    BatchTable > .batch-table--track { background: $scrollbar-background; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"batch-table--header", "batch-table--current", "batch-table--dim",
                                             "batch-table--ok", "batch-table--bad", "batch-table--note",
                                             "batch-table--thumb", "batch-table--track"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step's members are drawn (the watcher repaints only the rows that changed)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._cache: dict[tuple[int, Member, bool, int | None, int, int], Strip] = {}
        self._tiers: tuple[tuple[Step, int, int], dict[Verdict, int]] | None = None
        self._styles: dict[tuple[str, bool], Style] = {}
        self._widths: tuple[int, int] = (-1, 5)
        self._laid: tuple[tuple[tuple[int, int], Size], list[tuple[str, int]]] | None = None
        """The columns, with the member count, id width and content size they were worked out for."""
        self.top = 0
        """The index of the first member on show."""
        self.border_title = TITLES["batch"]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        step = self.step
        return 1 + (len(step.members) if step else 1)

    @property
    def step(self) -> Step | None:
        """The step on show."""
        return self.frame.step if self.frame is not None else None

    @property
    def shown_rows(self) -> int:
        """How many members the table has room for under its header."""
        return max(0, self.content_size.height - 1)

    @property
    def scrolls(self) -> bool:
        """True when the batch has more members than the table has rows (the last column is the thumb)."""
        return self.step is not None and len(self.step.members) > self.shown_rows

    def watch_frame(self, old_frame: Frame | None, frame: Frame | None) -> None:
        old, step = (f.step if f is not None else None for f in (old_frame, frame))
        if step is None:
            return
        title = TITLES.get(step.mode, TITLES["batch"])
        if title != self.border_title:  # a new title repaints the whole table: only on a change of mode
            self.border_title = title
        # a batch's rows read their deadlines against the shared now; a single call's row against its own
        full = old is None or (old.now != step.now and not step.clocks)
        if old is None or len(old.members) != len(step.members):
            self._cache.clear()
            self.refresh(layout=True)
            full = True
        top = self.top
        current = self._current(step)
        if current is not None:
            self.keep_in_sight(current)
        if full or old is None or self.top != top or self._retiered(old):
            self.refresh()
        else:
            self._repaint_rows(old, step)

    def _retiered(self, old: Step) -> bool:
        """True when a verdict on show in both ``old`` and the step on show is worded otherwise now (a verdict
        that only one of them has is on a row that changed, which ``_repaint_rows`` repaints)."""
        before, after = self._window_tiers(old), self._window_tiers()
        return any(before[verdict] != after[verdict] for verdict in before.keys() & after.keys())

    def _repaint_rows(self, old: Step, step: Step) -> None:
        """Repaint the visible rows whose member or current mark changed: O(visible rows), not O(members)."""
        width = self.content_size.width
        was, now = self._current(old), self._current(step)
        changed = []
        for y in range(1, self.shown_rows + 1):
            index = self.top + y - 1
            if index >= len(step.members):
                break
            before, after = old.members[index], step.members[index]
            if (index == was) != (index == now) or (before is not after and before != after):
                changed.append(Region(0, y, width, 1))
        if changed:
            self.refresh(*changed)

    def keep_in_sight(self, index: int) -> None:
        """Move the window so member ``index`` is on show, centred when the window has to move."""
        height = self.shown_rows
        if height and not self.top <= index < self.top + height:
            self._move_window(index - height // 2)

    def _move_window(self, top: int) -> None:
        members = len(self.step.members) if self.step else 0
        top = max(0, min(top, members - self.shown_rows))
        if top != self.top:
            self.top = top
            self.refresh()

    def on_resize(self) -> None:
        step = self.step
        current = self._current(step) if step is not None else None
        self._move_window(self.top)
        if current is not None:
            self.keep_in_sight(current)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._move_window(self.top + 3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._move_window(self.top - 3)

    @staticmethod
    def _current(step: Step) -> int | None:
        if step.index == 0 or not step.members:
            return None
        return min(step.index, len(step.members)) - 1

    def _columns(self) -> list[tuple[str, int]]:
        members = self.step.members if self.step else ()
        if self._widths[0] != len(members):
            self._widths = (len(members), max((len(m.id) for m in members), default=5))
        key = (self._widths, self.content_size)  # a step asks for them once per row it repaints: worked out once
        if self._laid is None or self._laid[0] != key:
            widths = [len(str(len(members))), self._widths[1]]
            columns = [(name, max(width, widths[i])) if i < 2 else (name, width)
                       for i, (name, width) in enumerate(COLUMNS[:-1])]
            fixed = sum(width + 1 for _, width in columns)
            last = max(COLUMNS[-1][1], self._cells_width() - fixed - 1)
            self._laid = key, [*columns, (COLUMNS[-1][0], last)]
        return self._laid[1]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._styles.clear()

    def _style(self, role: str, current: bool) -> Style:
        """A cell's style for its ``role`` on a plain or the current row, looked up once per theme."""
        style = self._styles.get((role, current))
        if style is None:
            base = self.rich_style + (self.get_component_rich_style("batch-table--current") if current else Style())
            style = base + (foreground(self.get_component_rich_style(f"batch-table--{role}")) if role else Style())
            self._styles[(role, current)] = style
        return style

    def _window_tiers(self, step: Step | None = None) -> dict[Verdict, int]:
        """Each verdict's wording for the members on show of ``step`` (the step on show by default; see ``tiers``),
        worked out once per step, window and width."""
        step = self.step if step is None else step
        if step is None:
            return {}
        width = self._columns()[-1][1]
        if self._tiers is None or self._tiers[0][0] is not step or self._tiers[0][1:] != (self.top, width):
            shown = list(step.members[self.top : self.top + self.shown_rows])
            self._tiers = (step, self.top, width), tiers(shown, step.now, width)
        return self._tiers[1]

    def _row(self, member: Member, current: bool, now: int | None) -> Strip:
        columns = self._columns()
        tier = self._window_tiers().get(member.verdict, 0) if member.verdict is not None else 0
        key = (member.index, member, current, now, columns[-1][1], tier)
        strip = self._cache.get(key)
        if strip is None:
            segments = []
            for (shown, role), (_, width) in zip(cells(member, now, columns[-1][1], tier), columns, strict=True):
                style = self._style(role, current)
                cell = Text(shown, no_wrap=True, overflow="ellipsis")
                cell.truncate(width, overflow="ellipsis", pad=True)
                segments.append(Segment(cell.plain + " ", style))
            strip = Strip(segments)
            self._cache[key] = strip
            if len(self._cache) > 4096:
                self._cache.clear()
        return strip

    def _cells_width(self) -> int:
        """Cells a row has for its columns: the content width, less the thumb's column when the table scrolls."""
        return max(1, self.content_size.width - (1 if self.scrolls else 0))

    def render_line(self, y: int) -> Strip:
        strip = self._cells_line(y)
        if not self.scrolls or y == 0:
            return strip.crop_extend(0, self.content_size.width, self._style("", False))
        first, last = thumb(self.top, self.shown_rows, len(self.step.members) if self.step else 0)
        bar = self.get_component_rich_style("batch-table--thumb" if first <= y - 1 < last else "batch-table--track")
        return Strip.join([strip, Strip([Segment(" ", bar)], 1)])

    def _cells_line(self, y: int) -> Strip:
        step = self.step
        width = self._cells_width()
        plain = self._style("", False)
        if y == 0:
            style = self.get_component_rich_style("batch-table--header")
            header = "".join(f"{name:<{w}.{w}} " for name, w in self._columns())
            return Strip([Segment(header, plain + style)]).crop_extend(0, width, plain)
        index = self.top + y - 1
        if step is None or index >= len(step.members):
            return Strip.blank(width, plain)
        member = step.members[index]
        strip = self._row(member, index == self._current(step), step.now if member.now is None else member.now)
        return strip.crop_extend(0, width, plain)
