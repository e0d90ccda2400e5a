"""The code pane: the project's own source for the running step, its focus line highlighted."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text
from textual.reactive import reactive
from textual.widget import Widget

from ..echo_mq import jobs, native
from ..echo_mq.scripts import marker_lines
from ..stepper import Step

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


def _foreground(style: str | Style) -> Style:
    """The style without its background, so the pane's own colours show through."""
    parsed = Style.parse(style) if isinstance(style, str) else style
    return Style(color=parsed.color, bold=parsed.bold, italic=parsed.italic, underline=parsed.underline)


def _background(style: Style) -> Style:
    """Only the background and weight of ``style``, so the syntax colours stay."""
    return Style(bgcolor=style.bgcolor, bold=style.bold)


@cache
def source(key: str) -> Source:
    """Read and highlight one of the project's source files once."""
    code = SOURCES[key].read_text("utf-8")
    highlighted = Syntax(code, LEXERS[key], theme="monokai").highlight(code)
    highlighted.style = ""
    highlighted.spans = [Span(span.start, span.end, _foreground(span.style)) for span in highlighted.spans]
    lines = tuple(highlighted.split("\n", allow_blank=True))
    return Source(key, lines[: len(code.splitlines())], marker_lines(code))


def module_line(native_line: int | None) -> int | None:
    """The C module's line that carries the same marker as ``native_line`` of native.py."""
    if native_line is None:
        return None
    names = {line: name for name, line in source("native").markers.items()}
    name = names.get(native_line)
    return source("module").markers.get(name) if name else None


def handle_span() -> tuple[int, int]:
    """The first and last line of ``extend_locks`` in jobs.py."""
    lines, first = inspect.getsourcelines(jobs.extend_locks)
    return first, first + len(lines) - 1


def native_span() -> tuple[int, int]:
    """The first and last line of the batch handler in native.py."""
    lines, first = inspect.getsourcelines(native.extends)
    return first, first + len(lines) - 1


class CodePane(Widget):
    """Shows the source that ran the current step, a window kept around the highlighted line."""

    DEFAULT_CSS = """
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
    COMPONENT_CLASSES = {"code-pane--focus", "code-pane--ran", "code-pane--gutter"}

    step: reactive[Step | None] = reactive(None, always_update=True)
    """The step whose code is shown."""
    server: reactive[bool] = reactive(False)
    """True on a server backend, where wire 6 runs the C module."""

    def watch_step(self, step: Step | None) -> None:
        if step is not None:
            self.border_title = TITLES[self._key(step)]
            self.border_subtitle = self._subtitle(step)

    def _key(self, step: Step) -> str:
        return "module" if step.source == "native" and self.server else step.source

    def _subtitle(self, step: Step) -> str:
        if step.source == "native" and self.server:
            return "stepped through the engine's twin over the wire; the atomic and fate runs use this module"
        return f"line {step.focus}" if step.focus else ""

    def _lines(self, step: Step) -> tuple[int | None, set[int]]:
        if step.source == "native" and self.server:
            mapped = {module_line(n) for n in step.lines}
            return module_line(step.focus), {n for n in mapped if n}
        return step.focus, set(step.lines)

    def render(self) -> Text:
        step = self.step
        if step is None:
            return Text("waiting for the store…", style="italic")
        src = source(self._key(step))
        focus, ran = self._lines(step)
        height = max(1, self.content_size.height)
        total = len(src.lines)
        anchor = focus or 1
        top = min(max(1, anchor - height // 3), max(1, total - height + 1))
        gutter = self.get_component_rich_style("code-pane--gutter")
        focus_style = _background(self.get_component_rich_style("code-pane--focus"))
        ran_style = _background(self.get_component_rich_style("code-pane--ran"))
        width = len(str(total))
        out = Text(no_wrap=True, overflow="ellipsis")
        for number in range(top, min(total, top + height - 1) + 1):
            line = Text(f"{number:>{width}} ", style=gutter)
            line.append(">" if number == focus else " ", style=focus_style if number == focus else gutter)
            body = src.lines[number - 1].copy()
            line.append_text(body)
            if number == focus:
                line.pad_right(max(0, self.content_size.width - line.cell_len))
                line.stylize(focus_style)
            elif number in ran:
                line.pad_right(max(0, self.content_size.width - line.cell_len))
                line.stylize(ran_style)
            if number != top:
                out.append("\n")
            out.append_text(line)
        return out
