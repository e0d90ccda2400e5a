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
        rows = word_wrap(self._text(step), size.width)
        self.paint_rows(rows + [Text()] * (size.height - len(rows)))  # as tall as the pane: a step repaints a row

    def render(self) -> Text:
        return self._text(self.step)

    def _text(self, step: Step | None) -> Text:
        muted = self.get_component_rich_style("locals-pane--muted", partial=True)
        if step is None:
            return Text("waiting for the store…", style=muted)
        if not self.shown:
            return Text(step.no_locals, style=muted)
        changed = self.get_component_rich_style("locals-pane--changed", partial=True)
        base = "" if self.whole else base_of(step.command)
        width = max(len(one.name) for one in self.shown)
        flowing = self.flowing
        out = Text()
        room = max(8, self.content_size.width - width - 2)  # a value's columns; a longer one goes on under itself
        # a row under the code shows the changed ones first: the rest are the ones the step before showed
        shown = sorted(self.shown, key=lambda one: not one.changed) if flowing else self.shown
        for n, one in enumerate(shown):
            value = one.value
            if base:  # the queue's base as the lesson writes it; the border's foot says what {q} stands for
                value = value.replace(base, SHORT_BASE)
            mark = CHANGED if one.changed else " "
            if flowing:
                out.append(("  " if n else "") + f"{one.name}{mark if one.changed else ''}={value}",
                           style=changed if one.changed else "")
                continue
            out.append(("\n" if n else "") + f"{mark}{one.name.ljust(width)} ", style=changed if one.changed else "")
            out.append(("\n" + " " * (width + 2)).join(_rows(value, room)))
        return out


def _rows(value: str, room: int) -> list[str]:
    """``value`` in rows of at most ``room`` columns, broken after a space where one is near, else at ``room``."""
    rows: list[str] = []
    while len(value) > room:
        cut = value.rfind(" ", 0, room + 1)
        cut = cut + 1 if cut > room // 2 else room
        rows.append(value[:cut].rstrip())
        value = value[cut:]
    return [*rows, value]
