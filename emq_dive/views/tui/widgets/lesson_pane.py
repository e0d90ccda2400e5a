"""The lesson pane: the dive's own text, one section at a time, following the code that runs."""

from __future__ import annotations

import io
import textwrap
from functools import cache
from typing import Any, ClassVar

from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual import events, work
from textual.binding import BindingType
from textual.reactive import reactive, var
from textual.strip import Strip
from textual.worker import get_current_worker

from ....course.lessons import Lesson
from ....present.session import Frame
from .fitted_title import fitted_title
from .framed import Framed
from .lesson_follow import SectionShown, brought
from .scrolled import SCROLL_KEYS, thumb


def markdown_theme(colors: dict[str, str]) -> Theme:
    """Rich's Markdown styles in the colours of the app's theme (``colors``: its CSS variables)."""

    def color(name: str) -> str | None:
        value = colors.get(name, "")
        return value[:7] if value.startswith("#") else None

    accent, warning, primary = color("text-accent"), color("text-warning"), color("text-primary")
    return Theme({
        "markdown.code": Style(color=warning, bold=True),
        "markdown.code_block": Style(color=color("foreground"), bgcolor=color("panel")),
        "markdown.em": Style(italic=True),
        "markdown.strong": Style(bold=True),
        "markdown.link": Style(color=primary, underline=True),
        "markdown.link_url": Style(color=color("text-secondary")),
        "markdown.item.bullet": Style(color=accent, bold=True),
        "markdown.item.number": Style(color=accent),
        "markdown.table.header": Style(color=primary, bold=True),
        "markdown.table.border": Style(color=color("text-secondary")),
        "markdown.hr": Style(color=color("text-secondary")),
        "markdown.block_quote": Style(italic=True),
    }, inherit=True)


def hang(code: str, width: int) -> str:
    """``code`` wrapped to ``width`` with each line's continuation indented, so a wrapped command stays one."""
    return "\n".join("\n".join(textwrap.wrap(line, max(4, width), subsequent_indent="  ", break_on_hyphens=False))
                     for line in code.split("\n"))


@cache
def _markdown_class() -> type:
    """Rich's Markdown renderer with the lesson's own code blocks (imported late: it is slow to import)."""
    from rich.markdown import CodeBlock, Markdown, MarkdownElement

    class LessonFence(CodeBlock):
        """A code block drawn as plain lines on a tinted band: the lesson's fences are wire text, not code."""

        def __rich_console__(self, console: Console, options: Any) -> Any:
            code = Text(hang(str(self.text).rstrip(), options.max_width - 2), style="markdown.code_block")
            yield Padding(code, (0, 1), style="markdown.code_block", expand=True)

    class LessonMarkdown(Markdown):
        elements: ClassVar[dict[str, type[MarkdownElement]]] = {
            **Markdown.elements, "fence": LessonFence, "code_block": LessonFence}

    return LessonMarkdown


def render_markdown(body: str, width: int, theme: Theme) -> list[list[Segment]]:
    """``body`` laid out as lines of ``width`` cells by Rich's Markdown renderer."""
    console = Console(width=width, file=io.StringIO(), theme=theme, color_system="truecolor",
                      force_terminal=True, legacy_windows=False)
    document = _markdown_class()(body, hyperlinks=False)
    return console.render_lines(document, console.options.update_width(width), pad=False)


class LessonPane(Framed, can_focus=True):
    """Shows the lesson section named by ``section``, scrolled by the wheel, a click on its bar, or the keys.

    Each section is laid out once per width and kept as lines, and the pane scrolls itself (a thumb in its
    last column): following the step to another section is one repaint of this pane, in the same frame as
    the other panes, with nothing to mount or lay out. The sections are laid out in a worker thread once
    the first step is on screen, the one on show first.
    """

    DEFAULT_CSS: ClassVar[str] = """
    LessonPane {
        width: 34;
        height: 1fr;
        border: round $secondary 60%;
        border-title-color: $text-secondary;
        padding: 0 0 0 1;
    }
    LessonPane:focus { border: round $secondary; }
    LessonPane > .lesson-pane--thumb { background: $scrollbar; }
    LessonPane > .lesson-pane--track { background: $scrollbar-background; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"lesson-pane--thumb", "lesson-pane--track"}
    BINDINGS: ClassVar[list[BindingType]] = SCROLL_KEYS
    GAP = 1
    """Columns between the text and the thumb."""

    section: reactive[str] = reactive("")
    """The key of the section shown."""
    frame: var[Frame | None] = var(None, always_update=True)
    """The frame on screen; a new code source in its step brings its section."""
    top: reactive[int] = reactive(0)
    """The first line of the section on show."""

    def __init__(self, lesson: Lesson, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lesson = lesson
        self.keys = [s.key for s in lesson.sections]
        self.set_reactive(LessonPane.section, self.keys[0])
        self._lines: dict[str, list[Strip]] = {}
        self._width = 0
        self._started = False

    @property
    def deferred(self) -> bool:
        """True while the section on show still has to be laid out (a hidden pane waits until it is shown)."""
        return self._started and self.shown and self.section not in self._lines

    @property
    def shown(self) -> bool:
        """True when the pane has room on screen for text."""
        return self.size.width > self.GAP + 1

    @property
    def text_width(self) -> int:
        """Cells per line of text: the content width less the gap and the thumb."""
        return max(1, self.size.width - self.GAP - 1)

    @property
    def lines(self) -> list[Strip]:
        """The laid-out lines of the section on show (empty until it is laid out)."""
        return self._lines.get(self.section, [])

    def on_mount(self) -> None:
        self._titles()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._relayout())
        self.set_timer(0.5, self.start)  # a slow store should not keep the lesson away

    def start(self) -> None:
        """Lay out the lesson once the screen has painted (the first step, an error, or a slow store)."""
        if not self._started:
            self._started = True
            self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self._fit()
        self.top = self.validate_top(self.top)

    def _fit(self) -> None:
        """Lay the lesson out again if the pane's width is not the one it was laid out for."""
        if self._started and self.shown and self.text_width != self._width:
            self._relayout()

    def _relayout(self) -> None:
        """Forget every laid-out section and lay them all out again at the pane's width, off the UI thread."""
        if not self.is_attached or not self._started or not self.shown:
            return
        self._lines.clear()
        self._width = self.text_width
        self._titles()
        order = sorted(self.keys, key=lambda key: key != self.section)  # the section on show first
        bodies = [(key, self._body(key)) for key in order]
        self._lay_out(bodies, self._width, markdown_theme(self.app.theme_variables), self.rich_style)
        self.refresh()

    def _body(self, key: str) -> str:
        section = self._section(key)
        body = f"{self.lesson.intro}\n\n{section.body}" if key == self.keys[0] else section.body
        fits = fitted_title(section.title, self.outer_size.width) == section.title  # else it heads the text
        return body if fits else f"**{section.title}**\n\n{body}"

    def full_text(self) -> str:
        """The section on show, its whole title first, as plain text."""
        return "\n".join([self._section(self.section).title, *(line.text for line in self.lines)])

    def _section(self, key: str) -> Any:
        return next(s for s in self.lesson.sections if s.key == key)

    @work(thread=True, exclusive=True, group="lesson", exit_on_error=False)
    def _lay_out(self, bodies: list[tuple[str, str]], width: int, theme: Theme, style: Style) -> None:
        """Render each section's Markdown into lines (a thread: the first use imports the Markdown parser)."""
        worker = get_current_worker()
        span = width + self.GAP
        for key, body in bodies:
            try:
                lines = [Strip(line).crop_extend(0, span, style).apply_style(style).simplify()
                         for line in render_markdown(body, width, theme)]
            except Exception as error:  # the pane says so, in place of the section
                text = f"this section could not be laid out: {type(error).__name__}: {error}"
                lines = [Strip([Segment(part, style)]).crop_extend(0, span, style)
                         for part in textwrap.wrap(text, width)]
            if worker.is_cancelled:
                return
            try:
                self.app.call_from_thread(self._laid_out, key, width, lines)
            except RuntimeError:  # the app closed meanwhile
                return

    def _laid_out(self, key: str, width: int, lines: list[Strip]) -> None:
        if width != self._width:
            return  # laid out for a width the pane no longer has
        self._lines[key] = lines
        if key == self.section:
            self.top = self.validate_top(self.top)
            self.refresh()

    def _titles(self) -> None:
        section, at = self._section(self.section), self.keys.index(self.section) + 1
        self.border_title = fitted_title(section.title, self.outer_size.width)
        self.border_subtitle = f"{at}/{len(self.keys)} · [ ] browse"
        self.post_message(SectionShown(section.title, at, len(self.keys)))  # for the caption, when this is hidden

    def watch_section(self, old: str, new: str) -> None:
        if old == new or not self.is_mounted:
            return
        self._titles()
        self.set_reactive(LessonPane.top, 0)
        self.refresh()

    def watch_frame(self, old: Frame | None, frame: Frame | None) -> None:
        section = brought(self.lesson, old, frame)
        if section is not None:
            self.section = section
        if frame is not None:
            self.start()

    # -- scrolling -----------------------------------------------------------

    def validate_top(self, top: int) -> int:
        return max(0, min(top, len(self.lines) - self.size.height))

    def action_scroll(self, by: int | float) -> None:
        """Scroll by ``by`` lines, or by that share of a page when it is a fraction."""
        self.top += int(by * self.size.height) if isinstance(by, float) else by

    def action_scroll_home(self) -> None:
        """Scroll to the section's top (Home, while the pane has the focus)."""
        self.top = 0

    def action_scroll_end(self) -> None:
        """Scroll to the section's end (End, while the pane has the focus)."""
        self.top = len(self.lines)

    def action_leave(self) -> None:
        """Give the focus back to the screen: the arrows still scroll this pane, Home and End step the run."""
        self.screen.set_focus(None)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.top += 3

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.top -= 3

    def on_click(self, event: events.Click) -> None:
        """A click on the bar above or below the thumb pages that way."""
        at = event.get_content_offset(self)
        if at is None or at.x != self.size.width - 1:
            return
        first, last = self._thumb()
        if at.y < first:
            self.action_scroll(-0.9)
        elif at.y >= last:
            self.action_scroll(0.9)

    def _thumb(self) -> tuple[int, int]:
        """The rows the thumb covers: the share of the section on show, where it is shown."""
        return thumb(self.top, self.size.height, len(self.lines))

    def render_line(self, y: int) -> Strip:
        lines, span = self.lines, self.text_width + self.GAP
        index = self.top + y
        text = lines[index] if index < len(lines) else Strip.blank(span, self.rich_style)
        first, last = self._thumb()
        if last:
            bar = self.get_component_rich_style("lesson-pane--thumb" if first <= y < last else "lesson-pane--track")
        else:
            bar = self.rich_style
        return Strip([*text, Segment(" ", bar)], span + 1)

    def browse(self, delta: int) -> None:
        """Show the next (``delta`` 1) or previous (-1) section."""
        at = self.keys.index(self.section)
        self.section = self.keys[(at + delta) % len(self.keys)]
