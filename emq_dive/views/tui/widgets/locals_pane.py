"""The locals pane: the stepped script's Lua locals at the step's last call line, as the server's debugger prints
them, the ones that changed since the step before marked."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive

from ....engine.stepper import Step
from ....engine.stepper.lua_locals import Local
from ....present.session import Frame
from .rows import Rows
from .shorthand import SHORT_BASE, SHORT_TAG, base_of, tag_of
from .word_wrap import word_wrap

CHANGED = "*"
"""The mark beside a local whose value changed since the step before (or that came into scope)."""


class LocalsPane(Rows):
    """Shows ``Step.script_locals``: one ``name = value`` row each (a flowing row when the screen is short); a step
    repaints only the rows and the border row it changed."""

    DEFAULT_CSS: ClassVar[str] = """
    LocalsPane {
        height: 1fr;
        padding: 0 1;
        border: round $primary 50%;
        border-title-color: $text-primary;
        text-wrap: wrap;
    }
    LocalsPane > .locals-pane--changed { color: $text-warning; text-style: bold; }
    LocalsPane > .locals-pane--muted { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"locals-pane--changed", "locals-pane--muted"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step's locals are shown."""
    whole: reactive[bool] = reactive(False, repaint=False)
    """True when the queue's keys are shown whole, not as ``emq:{q}:`` (``v``)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.shown: tuple[Local, ...] = ()
        """The locals on show, each with its changed mark (what a test reads)."""
        self.border_title = "locals"

    @property
    def step(self) -> Step | None:
        """The step on show."""
        return self.frame.step if self.frame is not None else None

    def watch_frame(self) -> None:
        self._draw()

    def watch_whole(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self.forget_rows()
        self._draw()

    @property
    def flowing(self) -> bool:
        """True when the pane has fewer rows than locals (a row under the code on a short or narrow screen): the
        locals then flow one after another, wrapped."""
        rows = self.content_size.height
        return 0 < rows < len(self.shown)

    def _draw(self) -> None:
        step = self.step
        self.shown = step.script_locals if step is not None else ()
        base = base_of(step.command) if step is not None and not self.whole else ""
        self.set_border(title=f"locals · line {step.locals[-1].line}" if step is not None and step.locals
                        else "locals", subtitle=f"{SHORT_TAG} is {tag_of(base)}" if base and self.shown else "")
        size = self.content_size
        if not size:
            self.refresh()  # not laid out yet: the first paint draws it from render()
            return
        rows = self._laid(step, size.width)
        self.paint_rows(rows + [Text()] * (size.height - len(rows)))  # as tall as the pane: a step repaints a row

    def render(self) -> Text:
        return Text("\n").join(self._laid(self.step, self.content_size.width))

    def _laid(self, step: Step | None, width: int) -> list[Text]:
        """The pane's rows, ``width`` cells wide at most (unwrapped at no width)."""
        width = width or 1_000
        muted = self.role_style("locals-pane--muted")
        if step is None:
            return word_wrap(Text("waiting for the store…", style=muted), width)
        if not self.shown:  # the reason whole, in fewer words where the pane's rows cannot hold its every word
            rows = word_wrap(Text(step.no_locals, style=muted), width)
            fits = len(rows) <= self.content_size.height or not self.content_size.height
            return rows if fits else word_wrap(Text(step.no_locals_brief, style=muted), width)
        changed = self.role_style("locals-pane--changed")
        base = "" if self.whole else base_of(step.command)
        # the queue's base as the lesson writes it; the border's foot says what {q} stands for
        values = [one.value.replace(base, SHORT_BASE) if base else one.value for one in self.shown]
        if self.flowing:  # a row under the code shows the changed ones first: the rest are the step before's
            flow = Text()
            order = sorted(range(len(values)), key=lambda k: not self.shown[k].changed)
            for n, k in enumerate(order):
                one = self.shown[k]
                flow.append(("  " if n else "") + f"{one.name}{CHANGED if one.changed else ''}={values[k]}",
                            style=changed if one.changed else "")
            return word_wrap(flow, width)
        names = max(len(one.name) for one in self.shown)
        room = max(8, width - names - 2)  # a value's columns; a longer one goes on under itself
        rows = []
        for one, value in zip(self.shown, values, strict=True):
            first, *rest = _rows(value, room)
            row = Text(f"{CHANGED if one.changed else ' '}{one.name.ljust(names)} ",
                       style=changed if one.changed else "")
            row.append(first)
            rows += [row, *(Text(" " * (names + 2) + more) for more in rest)]
        if names + 2 + 8 > width:  # narrower than a name and a few columns of value: wrapped again
            return [part for row in rows for part in word_wrap(row, width)]
        return rows


def _rows(value: str, room: int) -> list[str]:
    """``value`` in rows of at most ``room`` columns, broken after a space where one is near, else at ``room``."""
    rows: list[str] = []
    while len(value) > room:
        cut = value.rfind(" ", 0, room + 1)
        cut = cut + 1 if cut > room // 2 else room
        rows.append(value[:cut].rstrip())
        value = value[cut:]
    return [*rows, value]
