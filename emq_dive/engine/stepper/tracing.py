"""Record which lines of one source file run inside a block, leaving any debugger or coverage tool its view."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

Tracer = Callable[[FrameType, str, Any], Any]

_MONITORING: Any = getattr(sys, "monitoring", None)
_FREE_TOOLS = (3, 4)
"""The sys.monitoring tool ids Python leaves unassigned (0-2 and 5 belong to debuggers, coverage, profilers)."""


@contextmanager
def lines_of(filename: str) -> Iterator[list[int]]:
    """Collect, in order, the lines of ``filename`` executed inside the block."""
    tool = _free_tool()
    if tool is None:
        with _traced(filename) as seen:
            yield seen
    else:
        with _monitored(tool, filename) as seen:
            yield seen


def _free_tool() -> int | None:
    if _MONITORING is None:
        return None
    return next((tool for tool in _FREE_TOOLS if _MONITORING.get_tool(tool) is None), None)


@contextmanager
def _monitored(tool: int, filename: str) -> Iterator[list[int]]:
    """sys.monitoring (Python 3.12+): line events for the file's code only, beside every other tool.

    Monitoring is process-wide, so only the lines this thread runs are kept, as settrace would.
    """
    mon = _MONITORING
    events = mon.events
    seen: list[int] = []
    watched: set[CodeType] = set()
    owner = threading.get_ident()

    def entered(code: CodeType, offset: int) -> None:
        if code.co_filename == filename and code not in watched:
            watched.add(code)
            mon.set_local_events(tool, code, events.LINE)

    def line(code: CodeType, number: int) -> None:
        if threading.get_ident() == owner:
            seen.append(number)

    mon.use_tool_id(tool, "emq-dive lines_of")
    try:
        mon.register_callback(tool, events.PY_START, entered)
        mon.register_callback(tool, events.PY_RESUME, entered)
        mon.register_callback(tool, events.LINE, line)
        mon.set_events(tool, events.PY_START | events.PY_RESUME)
        yield seen
    finally:
        mon.set_events(tool, events.NO_EVENTS)
        for code in watched:
            mon.set_local_events(tool, code, events.NO_EVENTS)
        for event in (events.PY_START, events.PY_RESUME, events.LINE):
            mon.register_callback(tool, event, None)
        mon.free_tool_id(tool)


@contextmanager
def _traced(filename: str) -> Iterator[list[int]]:
    """sys.settrace, chained: the tracer already installed still sees every event, in every frame."""
    seen: list[int] = []
    previous: Any = sys.gettrace()

    def local_for(theirs: Tracer | None, ours: bool) -> Tracer | None:
        if theirs is None and not ours:
            return None

        def local(frame: FrameType, event: str, arg: Any) -> Tracer | None:
            nonlocal theirs
            if ours and event == "line":
                seen.append(frame.f_lineno)
            if theirs is not None:
                theirs = theirs(frame, event, arg)
            return local if ours or theirs is not None else None

        return local

    def call(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        theirs = previous(frame, event, arg) if previous is not None else None
        return local_for(theirs, frame.f_code.co_filename == filename)

    sys.settrace(call)
    try:
        yield seen
    finally:
        sys.settrace(previous)
