"""The code pane: the project's own source for the running step, its focus line highlighted."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.visual import Visual

from ....engine.echo_mq.scripts import yours_by_file
from ....engine.stepper import REMOVED_TEXT, WHAT_IF_MARKS, Step
from ....present.session import Frame
from .code_source import (
    NATIVE_SEND,
    SOURCES,
    Source,
    breaks,
    first_rows,
    hang,
    layout,
    module_line,
    plain_source,
    sends_natively,
    source,
    window_top,
)
from .fitted_title import fitted_title
from .framed import Framed
from .style import background

__all__ = ["SOURCES", "TITLES", "CodePane", "module_line", "plain_source", "source"]

BY_CODE = {"extend_lock.lua": "single", "extend_locks_no_guard.lua": "what-if"}
"""The run modes' Lua files (Step.code) the pane shows instead of extend_locks.lua."""

TITLES = {
    "handle": "beat one · the handle · emq_dive/engine/echo_mq/jobs.py",
    "lua": "beat two · the script · emq_dive/engine/echo_mq/scripts/extend_locks.lua",
    "native": "the native twin · emq_dive/engine/echo_mq/native.py",
    "module": "the native module · emq_dive/engine/native/emq_module.c",
    "single": "singles · the single verb's script · emq_dive/engine/echo_mq/scripts/extend_lock.lua",
    "connector": "beat one · the handle's send · emq_dive/engine/echo_mq/connector.py",
    "what-if": f"what-if · line {WHAT_IF_MARKS['guard-removed']} removed · {REMOVED_TEXT.split(' --')[0]!r} · "
               "scripts/extend_locks_no_guard.lua",  # the path gives way first, then the line's text
}



def yours_title(key: str) -> str:
    """The pane's title over the learner's script ``key``."""
    return f"your script · {key} · * marks the lines you changed (E edits it, ctrl+d there shows the diff)"


class CodePane(Framed):
    """Shows the source that ran the current step, a window kept around the highlighted line.

    A line too long for the pane wraps onto indented rows with no number, so the line a step ran is whole on
    screen whenever the pane has rows enough for it. Each row is drawn once per (file, line, part, role, width)
    and cached as a Strip, so a step that moves the highlight only re-draws the rows whose role changed.
    Pygments runs in a worker thread after the first step is on screen; until it is done, the pane shows the
    same lines uncoloured.
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
    CodePane > .code-pane--breakpoint { color: $text-error; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"code-pane--focus", "code-pane--ran", "code-pane--gutter",
                                             "code-pane--breakpoint"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose step's code is shown (the watcher repaints only the lines that changed)."""
    server: reactive[bool] = reactive(False)
    """True on a server backend, where wire 6 runs the C module."""
    breakpoints: reactive[frozenset[tuple[str, int]]] = reactive(frozenset())
    """The lines marked with ``b``, each as (file, line): the gutter shows a ``●`` beside each one on show."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._strips: dict[tuple[str, bool, int, int, str, bool, int], Strip] = {}
        self._coloured: set[str] = set()
        self._highlighting = False
        self._highlighted = False
        self._rows: list[tuple[str, bool, int, int, str, bool]] | None = None
        self._rows_at = Size(0, 0)  # the content size ``_rows`` was wrapped for: another is drawn from scratch
        self._titles: tuple[str, str] | None = None
        self._titled_at = 0  # the pane's width the titles on show were fitted to

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
        key = self._key(step)
        titles = (TITLES.get(key) or yours_title(key), self._subtitle(step))
        if titles != self._titles:  # setting a border title repaints the whole pane, so only on a change
            self._titles = titles
            self._fit_titles()
        self._repaint_rows(step)
        if not self._highlighting:
            self._highlighting = True
            self.call_after_refresh(self._highlight_all)
        elif key not in TITLES and key not in self._coloured:  # the learner's script, new since the start
            self._highlight([key])

    def _row_keys(self, step: Step) -> list[tuple[str, bool, int, int, str, bool]]:
        """What each row of the pane shows: file, coloured or not, line number, part of the line, role, and
        whether the line carries a breakpoint."""
        src, rows = self._window(step)
        coloured = src.key in self._coloured
        return [(src.key, coloured, n, part, role, self._marked(step, n)) for n, part, role in rows]

    def _marked(self, step: Step, number: int) -> bool:
        """True when line ``number`` of the file on show carries a breakpoint (the file is the step's own code)."""
        return self._key(step) not in ("connector", "module") and (step.code, number) in self.breakpoints

    def watch_breakpoints(self) -> None:
        self._rows = None
        self.refresh()

    def _repaint_rows(self, step: Step) -> None:
        """Repaint only the rows whose file, line, part or role changed since the last step."""
        if not self.content_size.height:  # not laid out yet: the first paint works its rows out at its own size
            self._rows = None
            self.refresh()
            return
        rows, size = self._row_keys(step), self.content_size
        old, self._rows = self._rows, rows
        old_size, self._rows_at = self._rows_at, size
        if old is None or old_size != size or len(old) != len(rows):
            self.refresh()
            return
        width = self.size.width
        changed = [Region(0, y, width, 1) for y, (a, b) in enumerate(zip(old, rows, strict=True)) if a != b]
        if changed:
            self.refresh(*changed)

    def _fit_titles(self) -> None:  # the longest wordings of the titles that fit the pane's width
        if self._titles is not None:
            width = self._titled_at = self.outer_size.width
            self.border_title, self.border_subtitle = (fitted_title(title, width) for title in self._titles)

    def render_lines(self, crop: Region) -> list[Strip]:
        # the titles fit the width the layout gave, before this paint draws the border (Resize comes after it)
        if self._titles is not None and self._titled_at != self.outer_size.width:
            self._fit_titles()
        return super().render_lines(crop)

    def on_resize(self) -> None:
        self._rows = None

    def _highlight_all(self) -> None:
        keys = ["handle", "lua", "native", "single", "what-if", "connector"] + (["module"] if self.server else [])
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
        if sends_natively(step):
            return "connector"
        if step.code not in BY_CODE and yours_by_file(step.code) is not None:
            return step.code  # the learner's script: its file is its key
        return "module" if step.source == "native" and self.server else BY_CODE.get(step.code, step.source)

    def _subtitle(self, step: Step) -> str:
        # constant per file: a border title that changed each step would repaint every line of the pane
        if step.source == "native" and self.server:
            return "the steps run its twin, native.py · atomic and fate runs use this module"
        if sends_natively(step):
            return f"> this line sends {step.command[0].decode()} · jobs.py's conn.eval (@send) reaches it"
        return "> the line this step ran"

    def _lines(self, step: Step) -> tuple[int | None, set[int]]:
        if sends_natively(step):
            line = plain_source("connector").markers[NATIVE_SEND]
            return line, {line}
        if step.source == "native" and self.server:
            mapped = {module_line(n) for n in step.lines}
            return module_line(step.focus), {n for n in mapped if n}
        return step.focus, set(step.lines)

    def _code_width(self, src: Source) -> int:
        """The cells a row has for code, right of the gutter."""
        return max(1, self.content_size.width - len(str(len(src.lines))) - 2)

    def _window(self, step: Step) -> tuple[Source, list[tuple[int, int, str]]]:
        """The source and the rows shown, each as (line number, part, role), the focus line whole among them."""
        src = self._source(self._key(step))
        focus, ran = self._lines(step)
        height = max(1, self.content_size.height)
        rows = layout(src.key, self._code_width(src))
        starts = first_rows(src.key, self._code_width(src))
        first = starts.get(focus or 1, 0)
        last = starts.get((focus or 1) + 1, len(rows)) - 1
        top = window_top(rows, first, last, height)
        return src, [(n, part, "focus" if n == focus else "ran" if n in ran else "")
                     for n, part in rows[top : top + height]]

    def _line(self, src: Source, number: int, part: int, role: str, mark: bool = False) -> Text:
        """Row ``part`` of line ``number`` with its gutter, styled for its ``role`` (``focus``, ``ran`` or empty)."""
        gutter = self.get_component_rich_style("code-pane--gutter")
        focus_style = background(self.get_component_rich_style("code-pane--focus"))
        ran_style = background(self.get_component_rich_style("code-pane--ran"))
        code, width, digits = src.lines[number - 1], self._code_width(src), len(str(len(src.lines)))
        cuts = (0, *breaks(code.plain, width), len(code))
        if part == 0:
            line = Text(f"{number:>{digits}}", style=gutter)
            if mark:  # a breakpoint's dot, else * on a line of the learner's script that differs from the course's
                line.append("●", style=self.get_component_rich_style("code-pane--breakpoint"))
            else:
                line.append("*" if number in src.changed else " ", style=gutter)
            line.append(">" if role == "focus" else " ", style=focus_style if role == "focus" else gutter)
        else:
            line = Text(" " * (digits + 2 + hang(code.plain, width)))
        line.append_text(code[cuts[part] : cuts[part + 1]])
        if role:
            line.pad_right(max(0, self.content_size.width - line.cell_len))
            line.stylize(focus_style if role == "focus" else ran_style)
        return line

    def render(self) -> Text:
        """The whole window as one Text (what the pane shows; the screen draws it row by row)."""
        step = self.step
        if step is None:
            return Text("waiting for the store…", style="italic")
        src, rows = self._window(step)
        return Text("\n", no_wrap=True, overflow="ellipsis").join(self._line(src, n, part, role,
                                                                             self._marked(step, n))
                                                                  for n, part, role in rows)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        step = self.step
        if step is None or self.text_selection is not None:
            return super().render_line(y)
        if self._rows is None or self._rows_at != self.content_size:
            self._rows, self._rows_at = self._row_keys(step), self.content_size
        if y >= len(self._rows):
            return Strip.blank(width, self.visual_style.rich_style)
        key, coloured, number, part, role, mark = self._rows[y]
        cache_key = (key, coloured, number, part, role, mark, width)
        strip = self._strips.get(cache_key)
        if strip is None:
            src = source(key) if coloured else plain_source(key)
            content = Content.from_rich_text(self._line(src, number, part, role, mark), console=self.app.console)
            strip = Visual.to_strips(self, content, width, 1, self.visual_style)[0]
            if len(self._strips) > 2048:
                self._strips.clear()
            self._strips[cache_key] = strip
        return strip.apply_offsets(0, y)
