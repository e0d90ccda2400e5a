"""The sources the code pane shows: read once, highlighted off the UI thread, and wrapped to the pane's width."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from rich.cells import get_character_cell_size
from rich.text import Span, Text

from ....engine.echo_mq import scripts
from ....engine.echo_mq.scripts import marker_lines
from ....engine.echo_mq.sources import FILES
from ....engine.stepper import Step
from ....engine.stepper.user_script import changed_lines, course_script
from .style import foreground

SOURCES = FILES
LEXERS = {"handle": "python", "lua": "lua", "native": "python", "module": "c", "single": "lua", "what-if": "lua",
          "connector": "python"}
NATIVE_VERBS = frozenset(script.native_verb.encode() for script in (scripts.extend_locks(), scripts.extend_lock()))
"""The native commands: a handle step that sends one did its sending in the connector's native branch."""
NATIVE_SEND = "native"
"""The connector's marker on the line that sends the native command."""
HANG = 4
"""How much deeper than its line's own indent a continuation row starts."""


@dataclass(frozen=True)
class Source:
    """One source file, its highlighted lines and its markers."""

    key: str
    lines: tuple[Text, ...]
    markers: dict[str, int]
    changed: frozenset[int] = field(default_factory=frozenset)
    """The lines of the learner's script that are not the course's (none for a course file)."""


def _code(key: str) -> tuple[str, frozenset[int]]:
    """The text of source ``key`` (a course file, or the learner's script by its ``file``) and its changed lines."""
    mine = scripts.yours_by_file(key)
    if mine is None:
        return SOURCES[key].read_text("utf-8"), frozenset()
    return mine.source, changed_lines(course_script(mine.name).source, mine.source)


@cache
def plain_source(key: str) -> Source:
    """One of the project's source files as plain lines, read once: what the pane shows until it is highlighted."""
    code, changed = _code(key)
    return Source(key, tuple(Text(line) for line in code.splitlines()), marker_lines(code), changed)


@cache
def source(key: str) -> Source:
    """Read and highlight one of the project's source files once (pygments: call it off the UI thread)."""
    from rich.syntax import Syntax

    code, changed = _code(key)
    highlighted = Syntax(code, LEXERS.get(key, "lua"), theme="monokai").highlight(code)
    highlighted.style = ""
    highlighted.spans = [Span(span.start, span.end, foreground(span.style)) for span in highlighted.spans]
    lines = tuple(highlighted.split("\n", allow_blank=True))
    return Source(key, lines[: len(code.splitlines())], marker_lines(code), changed)


def sends_natively(step: Step) -> bool:
    """True for a handle step whose command is a native one: the line that sent it is the connector's, not jobs.py's."""
    return step.source == "handle" and bool(step.command) and step.command[0] in NATIVE_VERBS


@cache
def _marker_at(key: str) -> dict[int, str]:
    """Each marked line of a source file, and its marker's name."""
    return {line: name for name, line in plain_source(key).markers.items()}


def module_line(native_line: int | None) -> int | None:
    """The C module's line that carries the same marker as ``native_line`` of native.py."""
    name = _marker_at("native").get(native_line) if native_line is not None else None
    return plain_source("module").markers.get(name) if name else None


def hang(line: str, width: int) -> int:
    """The indent of ``line``'s continuation rows in a ``width``-cell column."""
    return min(len(line) - len(line.lstrip(" ")) + HANG, width // 2)


@cache
def breaks(line: str, width: int) -> tuple[int, ...]:
    """Where each continuation row of ``line`` starts, wrapped into ``width`` cells after a space where one fits."""
    indent = hang(line, width)
    starts: list[int] = []
    start, room = 0, max(1, width)
    while True:
        used, end, space, seen = 0, start, -1, False
        while end < len(line) and used + get_character_cell_size(line[end]) <= room:
            used += get_character_cell_size(line[end])
            if line[end] != " ":
                seen = True
            elif seen:
                space = end
            end += 1
        if end >= len(line):
            return tuple(starts)
        start = space + 1 if space >= start else max(end, start + 1)
        starts.append(start)
        room = max(1, width - indent)


@cache
def layout(key: str, width: int) -> tuple[tuple[int, int], ...]:
    """Every row of file ``key`` wrapped into ``width`` cells of code, as (line number, part), parts from 0."""
    return tuple((number, part) for number, text in enumerate(plain_source(key).lines, 1)
                 for part in range(len(breaks(text.plain, width)) + 1))


@cache
def first_rows(key: str, width: int) -> dict[int, int]:
    """The row of ``layout(key, width)`` each line starts on."""
    return {number: row for row, (number, part) in enumerate(layout(key, width)) if part == 0}


def steady_top(first: int, last: int, height: int, total: int) -> int:
    """The window's first row for a focus on rows ``first`` to ``last`` of ``total``: the lowest of the stops a
    half-page apart, counted up from the file's end, that keeps a row above the focus.

    Steps within the same stretch of code then share one window and repaint only the rows whose role changed (a
    window that followed every step would repaint every row); the last stop holds a script's replies together.
    """
    if total <= height:
        return 0
    stride, end = max(1, height // 2), total - height
    want = max(0, first - 1)  # the lowest top with the row above the focus in sight
    top = end if want >= end else max(0, end + (want - end) // stride * stride)  # the stop at or above it
    if last >= top + height:  # the focus's last row in sight, then its first
        top = last - height + 1
    return max(0, min(top, first))


def window_top(rows: Sequence[tuple[int, int]], first: int, last: int, height: int) -> int:
    """``steady_top`` moved up to the start of the line it falls in, so the window does not open on the wrapped
    tail of a line with no number, unless that would push the focus's last row out of sight."""
    top = up = steady_top(first, last, height, len(rows))
    while up > 0 and rows[up][1] > 0:
        up -= 1
    return up if last < up + height else top
