"""Screenshots whose text runs start at their first visible character, so every SVG viewer draws them in place."""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

NBSP = "&#160;"
_RUN = re.compile(r'(<text class="[^"]*" x=")([\d.]+)(" y="[\d.]+" textLength=")([\d.]+)(")([^>]*>)'
                  r'((?:&#160;)+)(?!&#160;)([^<]+)')
"""A text run whose cells start with spaces: its start, its length, and the spaces, apart from the rest."""


def runs_start_with_text(svg: str) -> str:
    """``svg`` with each text run's leading spaces turned into a later start: same cells, same picture.

    Textual writes a cell run that begins with spaces as ``&#160;&#160;word`` stretched over its cells; librsvg
    drops those leading spaces and so draws the word where they were (``k at`` reads ``kat``, a row comes in a
    column early).
    """
    return _RUN.sub(_moved, svg)


def _moved(match: re.Match[str]) -> str:
    head, x, mid, length, close, rest, spaces, text = match.groups()
    lead = len(spaces) // len(NBSP)
    cells = lead + cell_len(html.unescape(text.replace(NBSP, " ")))
    cell = float(length) / cells
    return f"{head}{_num(float(x) + lead * cell)}{mid}{_num(float(length) - lead * cell)}{close}{rest}{text}"


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")
