"""The lesson pane: the dive's own text, one section at a time, following the code that runs."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Markdown

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
    """Shows the lesson section named by ``section``; scrollable."""

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
    step: reactive[Step | None] = reactive(None, always_update=True)
    """The step on screen; a new code source brings its section."""

    def __init__(self, lesson: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lesson = lesson
        self.keys = [s.key for s in lesson.sections]
        self.set_reactive(LessonPane.section, self.keys[0])

    def compose(self) -> ComposeResult:
        yield Markdown(self._body(self.section), open_links=False)

    def on_mount(self) -> None:
        self._titles()

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
        self.query_one(Markdown).update(self._body(new))
        self.scroll_home(animate=False)

    def watch_step(self, old: Step | None, new: Step | None) -> None:
        if new is not None and (old is None or old.source != new.source):
            self.follow(new.source)

    def follow(self, source: str) -> None:
        """Show the section that follows ``source``, if the lesson names one."""
        section = self.lesson.section_for(source)
        if section is not None:
            self.section = section.key

    def browse(self, delta: int) -> None:
        """Show the next (``delta`` 1) or previous (-1) section."""
        at = self.keys.index(self.section)
        self.section = self.keys[(at + delta) % len(self.keys)]
