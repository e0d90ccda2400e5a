"""The store pane: active with deadlines relative to now, pending, and each shown member's row."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive

from ....engine.echo_mq.render import clip, relative
from ....present.session import Frame
from .scrolled import ScrolledLines
from .shorthand import SHORT_TAG, Shorthand, tag_of


def _epoch(value: str | None, width: int) -> str:
    """A lease_epoch (a 40-hex run id) as its two ends, ``0000…0000``, or its start when narrower."""
    if value is None or len(value) <= width:
        return clip(value, width)
    if width >= 9:
        half = (width - 1) // 2
        return f"{value[:half]}…{value[-half:]}"
    return value[: max(1, width - 1)] + "…"


def row_columns(ids: list[str], width: int, groups: tuple[str, ...] = ()) -> tuple[int, int, int, int]:
    """The widths of the rows table's columns (id, attempts, group, lease_epoch) in ``width`` cells: the group
    column holds its longest value whole (the epoch, an identifier, is the one shortened)."""
    attempts, group = 9, max([6, *(len(name) + 1 for name in groups)])
    first = max([4, *map(len, ids)]) + 2
    if first + attempts + group + len("lease_epoch") > width:
        first -= 1
    return first, attempts, group, max(5, width - first - attempts - group)


class StorePane(ScrolledLines):
    """What the store holds after the step, the keys the step wrote marked; where it is taller than the pane, it
    scrolls (tab focuses it), kept where the learner left it unless a changed line would be out of sight."""

    DEFAULT_CSS: ClassVar[str] = """
    StorePane {
        width: 36;
        height: 100%;
        border: round $primary 50%;
        border-title-color: $text-primary;
    }
    StorePane:focus { border: round $accent; }
    StorePane > .store-pane--key { text-style: bold; color: $text-primary; }
    StorePane > .store-pane--changed { background: $warning 30%; text-style: bold; }
    StorePane > .store-pane--muted { color: $text-muted; }
    StorePane > .store-pane--both { background: $error 40%; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"store-pane--key", "store-pane--changed", "store-pane--muted",
                                                "store-pane--both"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose store view is drawn (the watcher repaints only the lines that changed)."""
    whole: reactive[bool] = reactive(False, repaint=False)
    """True when keys and deadlines are shown whole, not as ``emq:{q}:`` and ``now+30000``."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.border_title = "store"
        self._members = ""

    def watch_frame(self, frame: Frame | None) -> None:
        if frame is not None:
            view = frame.view
            shown = f"{view.first + 1}–{view.first + len(view.rows)} of {view.total}"
            self._members = f"members {shown}" if view.total > len(view.rows) else ""
        self.lines = list(self._draw().split("\n", allow_blank=True))
        first = next((y for y, line in enumerate(self.lines) if "←" in line.plain), None)
        height = max(1, self.content_size.height)
        if first is not None and not self.top <= first < self.top + height:
            self.top = first  # a line the step changed is kept in sight
        self.top = self._valid(self.top)
        self._scrolled()

    def watch_whole(self) -> None:
        if self.is_mounted:
            self.lines = list(self._draw().split("\n", allow_blank=True))
            self._scrolled()

    def scroll_hint(self) -> str:
        """The members on show of a big batch, and what of the pane is out of sight."""
        return " · ".join(part for part in (self._members, super().scroll_hint()) if part)

    def lay_out(self) -> None:
        super().lay_out()
        self.lines = list(self._draw().split("\n", allow_blank=True))
        self._scrolled()

    def _draw(self) -> Text:
        frame = self.frame
        style = self.role_style
        if frame is None:
            return Text("reading…", style=style("store-pane--muted"))
        view, now = frame.view, frame.step.now
        out = Text(no_wrap=True, overflow="ellipsis")
        width = self.text_width
        groups = tuple(value for row in view.rows if row.kind == "hash"
                       for field, value in row.fields if field == "group" and value)
        first, attempts, group, epoch = row_columns([entry.id for entry in view.active], width, groups)
        # each run of padding ends the cell before it, so no text run starts with spaces (SVG viewers drop them)
        names = Shorthand(view.base, now, self.whole)
        if not self.whole:  # the queue's hashtag whole once; every key after it as the lesson writes it
            out.append(f"{SHORT_TAG} is ", style=style("store-pane--muted"))
            out.append(tag_of(names.key(view.base)) + "\n", style=style("store-pane--key"))
        if view.placement is not None:  # on a cluster: the slot and node of every key shown
            out.append(view.placement.text(None if self.whole else SHORT_TAG) + "\n", style=style("store-pane--muted"))
        active = f"{names.key(view.base + 'active')} ({view.active_count})"
        out.append(active, style=style("store-pane--key"))
        said = "score = deadline" if now is not None and not self.whole else "score as stored"
        gap = "  " if len(active) + 2 + len(said) <= width else "\n"  # on a line of its own where it does not fit
        out.append(gap + said + "\n", style=style("store-pane--muted"))
        # an id the store holds in active and in pending at once: what the membership guard exists to prevent
        both = {entry.id for entry in view.active if entry.score is not None} & set(view.pending)
        for entry in view.active:
            score = entry.score
            line = entry.id.ljust(first) + ("not a member" if score is None else str(score) if self.whole
                                            else relative(score, now))
            if entry.id in both:
                out.append(line + "  ← pending too", style=style("store-pane--both"))
            elif entry.changed:
                out.append(line + "  ← ZADD", style=style("store-pane--changed"))
            else:
                out.append(line, style=style("store-pane--muted") if entry.score is None else "")
            out.append("\n")
        pending = f"{names.key(view.base + 'pending')} ({view.pending_count})"
        ids = " ".join(view.pending) or "(empty)"
        out.append(pending + ("  " if len(pending) + 2 + len(ids) <= width else "\n  "), style=style("store-pane--key"))
        for i, job_id in enumerate(view.pending):
            out.append((" " if i else "") + job_id, style=style("store-pane--both") if job_id in both else "")
        out.append(("" if view.pending else "(empty)") + "\n")
        out.append("rows".ljust(first), style=style("store-pane--key"))
        out.append("attempts".ljust(attempts) + "group".ljust(group)
                   + ("lease_epoch" if epoch >= 11 else "epoch") + "\n", style=style("store-pane--muted"))
        for row in view.rows:
            if row.kind == "hash":
                values = dict(row.fields)
                text = (row.id.ljust(first) + clip(values.get("attempts"), attempts - 1).ljust(attempts)
                        + clip(values.get("group"), group - 1).ljust(group)
                        + _epoch(values.get("lease_epoch"), min(epoch, 9)))
            elif row.kind == "none":
                text = row.id.ljust(first) + "(no row)"
            else:
                text = row.id.ljust(first) + f"a {row.kind}: {row.text!r}"
            if row.changed:
                room = width - len(text)
                marker = "  ← HSET" if room >= 8 else " ←" if room >= 2 else ""
                out.append(text + marker, style=style("store-pane--changed"))
            else:
                out.append(text)
            out.append("\n")
        out.rstrip()
        return out
