"""Wrapping at spaces that keeps a number with its unit (``+10046 ms`` is never split across rows)."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text

WORD = re.compile(r"(?:\S+|(?<=\d) (?=ms\b))+")
"""A run that must stay on one row: a word, or a number and the ``ms`` after it."""


_WRAPPED: dict[tuple[object, ...], list[Text]] = {}
"""Rows already wrapped, by what makes them: the panes wrap the same few texts again on every step."""
_KEPT = 1024


def word_wrap(text: Text, width: int) -> list[Text]:
    """``text`` in rows of at most ``width`` cells, broken at spaces (never inside a number and its unit, nor at a
    newline's neighbour), a word longer than a row folded; each row without the spaces it was broken at."""
    key = (text.plain, text.style, tuple(text.spans), text.justify, text.overflow, text.no_wrap, text.end,
           max(1, width))
    rows = _WRAPPED.get(key)
    if rows is None:
        if len(_WRAPPED) >= _KEPT:
            _WRAPPED.clear()
        rows = _WRAPPED[key] = _wrap(text, max(1, width))
    return [row.copy() for row in rows]  # copies: a caller may style or extend its rows


def _wrap(text: Text, width: int) -> list[Text]:
    rows: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        cuts: list[int] = []
        start = 0
        for word in () if cell_len(plain) <= width else WORD.finditer(plain):  # a row that fits is not cut
            if cell_len(plain[start:word.end()]) <= width:
                continue
            if word.start() > start:
                start = word.start()
                cuts.append(start)
            while cell_len(plain[start:word.end()]) > width:  # a word longer than a row: folded
                start += max(1, width)
                cuts.append(start)
        for part in line.divide(cuts) if cuts else [line]:
            part.rstrip()
            part.end = ""
            rows.append(part)
    return rows
