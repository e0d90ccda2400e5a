"""Record which lines of one source file run while a callable runs."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from types import FrameType
from typing import Iterator


@contextmanager
def lines_of(filename: str) -> Iterator[list[int]]:
    """Collect, in order, the lines of ``filename`` executed inside the block."""
    seen: list[int] = []

    def local(frame: FrameType, event: str, arg: object):
        if event == "line":
            seen.append(frame.f_lineno)
        return local

    def call(frame: FrameType, event: str, arg: object):
        return local if frame.f_code.co_filename == filename else None

    previous = sys.gettrace()
    sys.settrace(call)
    try:
        yield seen
    finally:
        sys.settrace(previous)
