"""The screenshot's size: ``--size WxH`` read into columns and rows (no Textual here: the command line reads it)."""

from __future__ import annotations

import argparse

SCREENSHOT_SIZE = (120, 40)
"""The screenshot's columns and rows unless --size says otherwise."""
SIZE_LIMIT = 1000
"""The most columns or rows a screenshot takes."""


def screen_size(text: str) -> tuple[int, int]:
    """``--size``'s value, ``WxH``: whole columns and rows from 1 to SIZE_LIMIT, or one line saying what is wrong."""
    width, _, height = text.strip().lower().partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not WxH, columns by rows such as 80x24")
    size = int(width), int(height)
    if not all(1 <= n <= SIZE_LIMIT for n in size):
        raise argparse.ArgumentTypeError(f"{text!r}: the columns and the rows must each be 1 to {SIZE_LIMIT}")
    return size
