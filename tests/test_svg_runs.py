"""The screenshot's text runs start at their first visible character, in the same cells as Textual drew them."""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

from emq_dive.views.tui.svg_runs import runs_start_with_text

RUN = re.compile(r'<text class="([^"]*)" x="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"[^>]*>([^<]*)</text>')


def cells(svg: str) -> dict[tuple[int, str], tuple[str, str]]:
    """Each drawn cell's character and class, by column (from x over the run's own cell width) and row."""
    out = {}
    for cls, x, y, length, text in RUN.findall(svg):
        plain = html.unescape(text.replace("&#160;", " "))
        width = float(length) / cell_len(plain)
        column = round(float(x) / width)
        for char in plain:
            out[(column, y)] = (char, cls)
            column += cell_len(char)
    return out


def run(x: str, length: str, text: str) -> str:
    return f'<text class="r1" x="{x}" y="20" textLength="{length}" clip-path="url(#l1)">{text}</text>'


def test_a_run_that_starts_with_spaces_starts_at_its_word_and_keeps_every_cell() -> None:
    svg = run("24.4", "109.8", "&#160;&#160;k&#160;at&#160;&#160;&#160;") + run("134.2", "36.6", "&#160;界")
    moved = runs_start_with_text(svg)
    assert 'x="48.8" y="20" textLength="85.4"' in moved and ">k&#160;at&#160;&#160;&#160;</text>" in moved
    assert 'x="146.4" y="20" textLength="24.4"' in moved and ">界</text>" in moved, "a wide character: two cells"
    drawn = {key: value for key, value in cells(svg).items() if value[0] != " "}
    assert {key: value for key, value in cells(moved).items() if value[0] != " "} == drawn


def test_a_run_of_spaces_only_and_a_run_that_starts_with_text_are_left_as_they_are() -> None:
    svg = run("0", "24.4", "&#160;&#160;") + run("24.4", "36.6", "a&#160;b") + run("61", "24.4", "&quot;&#160;")
    assert runs_start_with_text(svg) == svg
