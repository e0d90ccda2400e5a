"""The lesson pane: the dive's own text, one section at a time, following the code that runs."""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.reactive import reactive, var
from textual.widget import MountError, Widget

from ..stepper import Step


def plain_fences(body: str) -> str:
    """Name bare code fences ``text``, so the Markdown widget does not guess a lexer (which loads every lexer)."""
    out, inside = [], False
    for line in body.splitlines():
        if line.strip().startswith("```"):
            if not inside and line.strip() == "```":
                line = line.replace("```", "```text", 1)
            inside = not inside
        out.append(line)
    return "\n".join(out)


class LessonPane(VerticalScroll):
    """Shows the lesson section named by ``section``; scrollable.

    The Markdown arrives after the first step is on screen (it is the costliest widget to build), and each
    section's Markdown is built once and kept: a section change shows it again instead of re-parsing.
    """

    DEFAULT_CSS = """
    LessonPane {
        width: 34;
        height: 1fr;
        border: round $secondary 60%;
        border-title-color: $text-secondary;
        padding: 0 1;
    }
    LessonPane Markdown { margin: 0; padding: 0; }
    """

    section: reactive[str] = reactive("")
    """The key of the section shown."""
    step: var[Step | None] = var(None, always_update=True)
    """The step on screen; a new code source brings its section (the pane itself needs no repaint)."""

    def __init__(self, lesson: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lesson = lesson
        self.keys = [s.key for s in lesson.sections]
        self.set_reactive(LessonPane.section, self.keys[0])
        self._docs: dict[str, Widget] = {}
        self._shown: str | None = None
        self._started = False
        self._showing = False

    @property
    def deferred(self) -> bool:
        """True while the section on show still has to be built or switched to."""
        return self._started and self._shown != self.section

    def on_mount(self) -> None:
        self._titles()
        self.set_timer(0.5, self.start)  # a slow store should not keep the lesson away

    def start(self) -> None:
        """Build the section on show once the screen has painted (the first step, an error, or a slow store)."""
        if not self._started:
            self._started = True
            self.call_after_refresh(self._show_section)

    def _section(self, key: str) -> Any:
        return next(s for s in self.lesson.sections if s.key == key)

    def _body(self, key: str) -> str:
        section = self._section(key)
        intro = f"{self.lesson.intro}\n\n" if key == self.keys[0] else ""
        return plain_fences(f"{intro}{section.body}")

    def _titles(self) -> None:
        section = self._section(self.section)
        self.border_title = section.title
        self.border_subtitle = f"{self.keys.index(self.section) + 1}/{len(self.keys)} · [ ] browse"

    def watch_section(self, old: str, new: str) -> None:
        if old == new or not self.is_mounted:
            return
        self._titles()
        if self._started:
            self.call_later(self._show_section)

    def watch_step(self, old: Step | None, new: Step | None) -> None:
        if new is not None and (old is None or old.source != new.source):
            self.follow(new.source)
        if new is not None:
            self.start()

    async def _show_section(self) -> None:
        """Show the section's Markdown, building it the first time; catch up if the section moved meanwhile."""
        if self._showing or not self.is_attached or self._closing:
            return  # already at it, or the app is closing
        self._showing = True
        try:
            while self._shown != self.section:
                key = self.section
                doc = self._docs.get(key)
                if doc is None:
                    from textual.widgets import Markdown

                    doc = self._docs[key] = Markdown(self._body(key), open_links=False)
                    doc.display = False
                    try:
                        await self.mount(doc)
                    except MountError:  # the pane left the DOM (the app is exiting): nothing left to wait for
                        self._started = False
                        return
                for other, widget in self._docs.items():
                    widget.display = other == key
                self._shown = key
                self.scroll_home(animate=False)
        finally:
            self._showing = False

    def follow(self, source: str) -> None:
        """Show the section that follows ``source``, if the lesson names one."""
        section = self.lesson.section_for(source)
        if section is not None:
            self.section = section.key

    def browse(self, delta: int) -> None:
        """Show the next (``delta`` 1) or previous (-1) section."""
        at = self.keys.index(self.section)
        self.section = self.keys[(at + delta) % len(self.keys)]
