"""The code pane: the project's own source for the running step, its focus line highlighted."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import ClassVar

from rich.text import Span, Text
from textual import work
from textual.content import Content
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget

from ..echo_mq.scripts import marker_lines
from ..session import Frame
from ..stepper import Step
from .style import background, foreground

PACKAGE = Path(__file__).resolve().parent.parent
SOURCES = {
    "handle": PACKAGE / "echo_mq" / "jobs.py",
    "lua": PACKAGE / "echo_mq" / "scripts" / "extend_locks.lua",
    "native": PACKAGE / "echo_mq" / "native.py",
    "module": PACKAGE / "native" / "emq_module.c",
}
LEXERS = {"handle": "python", "lua": "lua", "native": "python", "module": "c"}
TITLES = {
    "handle": "beat one · the handle · emq_dive/echo_mq/jobs.py",
    "lua": "beat two · the script · emq_dive/echo_mq/scripts/extend_locks.lua",
    "native": "the native twin · emq_dive/echo_mq/native.py",
    "module": "the native module · emq_dive/native/emq_module.c",
}


@dataclass(frozen=True)
class Source:
    """One source file, its highlighted lines and its markers."""

    key: str
    lines: tuple[Text, ...]
    markers: dict[str, int]


@cache
def plain_source(key: str) -> Source:
    """One of the project's source files as plain lines, read once: what the pane shows until it is highlighted."""
    code = SOURCES[key].read_text("utf-8")
    return Source(key, tuple(Text(line) for line in code.splitlines()), marker_lines(code))


@cache
def source(key: str) -> Source:
    """Read and highlight one of the project's source files once (pygments: call it off the UI thread)."""
    from rich.syntax import Syntax

    code = SOURCES[key].read_text("utf-8")
    highlighted = Syntax(code, LEXERS[key], theme="monokai").highlight(code)
    highlighted.style = ""
    highlighted.spans = [Span(span.start, span.end, foreground(span.style)) for span in highlighted.spans]
    lines = tuple(highlighted.split("\n", allow_blank=True))
    return Source(key, lines[: len(code.splitlines())], marker_lines(code))


@cache
def _marker_at(key: str) -> dict[int, str]:
    """Each marked line of a source file, and its marker's name."""
    return {line: name for name, line in plain_source(key).markers.items()}


def module_line(native_line: int | None) -> int | None:
    """The C module's line that carries the same marker as ``native_line`` of native.py."""
    name = _marker_at("native").get(native_line) if native_line is not None else None
    return plain_source("module").markers.get(name) if name else None


class CodePane(Widget):
    """Shows the source that ran the current step, a window kept around the highlighted line.

    Each line is drawn once per (file, line, role, width) and cached as a Strip, so a step that moves the
    highlight only re-draws the lines whose role changed. Pygments runs in a worker thread after the first
    step is on screen; until it is done, the pane shows the same lines uncoloured.
    """

    DEFAULT_CSS: ClassVar[str] = """
    CodePane {
        width: 1fr;
        height: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        padding: 0 1;
        border: round $primary 50%;
        border-title-color: $text-primary;
    }
    CodePane > .code-pane--focus { background: $accent 40%; text-style: bold; }
    CodePane > .code-pane--ran { background: $primary 15%; }
    CodePane > .code-pane--gutter { color: $text-muted; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"code-pane--focus", "code-pane--ran", "code-pane--gutter"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step's code is shown (the watcher repaints only the lines that changed)."""
    server: reactive[bool] = reactive(False)
    """True on a server backend, where wire 6 runs the C module."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._strips: dict[tuple[str, bool, int, str, int], Strip] = {}
        self._coloured: set[str] = set()
        self._highlighting = False
        self._highlighted = False
        self._rows: list[tuple[str, bool, int, str]] | None = None
        self._titles: tuple[str, str] | None = None

    @property
    def deferred(self) -> bool:
        """True from the first step until the sources are highlighted (or highlighting gave up)."""
        return self._highlighting and not self._highlighted

    @property
    def step(self) -> Step | None:
        """The step on show."""
        return self.frame.step if self.frame is not None else None

    def watch_frame(self, frame: Frame | None) -> None:
        step = frame.step if frame is not None else None
        if step is None:
            self._rows = None
            self.refresh()
            return
        titles = (TITLES[self._key(step)], self._subtitle(step))
        if titles != self._titles:  # setting a border title repaints the whole pane, so only on a change
            self._titles = titles
            self.border_title, self.border_subtitle = titles
        self._repaint_rows(step)
        if not self._highlighting:
            self._highlighting = True
            self.call_after_refresh(self._highlight_all)

    def _row_keys(self, step: Step) -> list[tuple[str, bool, int, str]]:
        """What each line of the pane shows: file, coloured or not, line number and role."""
        src, focus, ran, numbers = self._window(step)
        coloured = src.key in self._coloured
        return [(src.key, coloured, n, "focus" if n == focus else "ran" if n in ran else "") for n in numbers]

    def _repaint_rows(self, step: Step) -> None:
        """Repaint only the lines whose file, number or role changed since the last step."""
        if not self.content_size.height:  # not laid out yet: the first paint works its rows out at its own size
            self._rows = None
            self.refresh()
            return
        rows = self._row_keys(step)
        old, self._rows = self._rows, rows
        if old is None or len(old) != len(rows):
            self.refresh()
            return
        width = self.size.width
        changed = [Region(0, y, width, 1) for y, (a, b) in enumerate(zip(old, rows, strict=True)) if a != b]
        if changed:
            self.refresh(*changed)

    def on_resize(self) -> None:
        self._rows = None

    def _highlight_all(self) -> None:
        keys = ["handle", "lua", "native"] + (["module"] if self.server else [])
        first = self._key(self.step) if self.step is not None else "handle"
        self._highlight(sorted(keys, key=lambda k: k != first))

    @work(thread=True, group="highlight", exit_on_error=False)
    def _highlight(self, keys: list[str]) -> None:
        try:
            for key in keys:
                source(key)
                self.app.call_from_thread(self._coloured_in, key)
        except Exception as error:  # colour is a nicety: the pane keeps its plain lines
            self.log.error(f"highlighting failed: {error!r}")
        finally:
            self.app.call_from_thread(setattr, self, "_highlighted", True)

    def _coloured_in(self, key: str) -> None:
        self._coloured.add(key)
        if self.step is not None and self._key(self.step) == key:
            self._rows = None
            self._repaint_rows(self.step)

    def _source(self, key: str) -> Source:
        return source(key) if key in self._coloured else plain_source(key)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _key(self, step: Step) -> str:
        return "module" if step.source == "native" and self.server else step.source

    def _subtitle(self, step: Step) -> str:
        # constant per file: a border title that changed each step would repaint every line of the pane
        if step.source == "native" and self.server:
            return "the steps run its twin, native.py; atomic and fate runs use this module"
        return "> the line this step ran"

    def _lines(self, step: Step) -> tuple[int | None, set[int]]:
        if step.source == "native" and self.server:
            mapped = {module_line(n) for n in step.lines}
            return module_line(step.focus), {n for n in mapped if n}
        return step.focus, set(step.lines)

    def _window(self, step: Step) -> tuple[Source, int | None, set[int], range]:
        """The source, its focus and ran lines, and the line numbers shown."""
        src = self._source(self._key(step))
        focus, ran = self._lines(step)
        height = max(1, self.content_size.height)
        total = len(src.lines)
        anchor = focus or 1
        top = min(max(1, anchor - height // 3), max(1, total - height + 1))
        return src, focus, ran, range(top, min(total, top + height - 1) + 1)

    def _line(self, src: Source, number: int, role: str) -> Text:
        """Line ``number`` with its gutter, styled for its ``role`` (``focus``, ``ran`` or empty)."""
        gutter = self.get_component_rich_style("code-pane--gutter")
        focus_style = background(self.get_component_rich_style("code-pane--focus"))
        ran_style = background(self.get_component_rich_style("code-pane--ran"))
        line = Text(f"{number:>{len(str(len(src.lines)))}} ", style=gutter)
        line.append(">" if role == "focus" else " ", style=focus_style if role == "focus" else gutter)
        line.append_text(src.lines[number - 1].copy())
        if role:
            line.pad_right(max(0, self.content_size.width - line.cell_len))
            line.stylize(focus_style if role == "focus" else ran_style)
        return line

    def render(self) -> Text:
        """The whole window as one Text (what the pane shows; the screen draws it line by line)."""
        step = self.step
        if step is None:
            return Text("waiting for the store…", style="italic")
        src, focus, ran, numbers = self._window(step)
        out = Text(no_wrap=True, overflow="ellipsis")
        for number in numbers:
            if number != numbers.start:
                out.append("\n")
            out.append_text(self._line(src, number, "focus" if number == focus else "ran" if number in ran else ""))
        return out

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        step = self.step
        if step is None or self.text_selection is not None:
            return super().render_line(y)
        if self._rows is None:
            self._rows = self._row_keys(step)
        if y >= len(self._rows):
            return Strip.blank(width, self.visual_style.rich_style)
        key, coloured, number, role = self._rows[y]
        cache_key = (key, coloured, number, role, width)
        strip = self._strips.get(cache_key)
        if strip is None:
            src = source(key) if coloured else plain_source(key)
            content = Content.from_rich_text(self._line(src, number, role), console=self.app.console)
            strip = Visual.to_strips(self, content, width, 1, self.visual_style)[0]
            if len(self._strips) > 2048:
                self._strips.clear()
            self._strips[cache_key] = strip
        return strip.apply_offsets(0, y)
