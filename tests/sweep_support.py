"""What the sweep reads: each visible widget's own rendered rows, and the texts on them that are cut."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import OptionList, Static

from emq_dive.views.tui.widgets.pushed_away import PushedAway
from emq_dive.views.tui.widgets.shown import Shown
from emq_dive.views.tui.widgets.step_column import PANE_NAMES, StepColumn
from tests.tui_support import showing

IDENTIFIER = re.compile(r"[\w.-]*[:{}][\w{}:.*-]*|[\w./-]*/[\w./-]*|[0-9a-f]{8,}|JOB\d+")
"""A token that names something (a key, a run_id, a job id): the only text that may be shortened, at a boundary."""
ELLIPSIS = "…"


def rows_of(widget: Widget) -> list[str]:
    """The rows ``widget`` draws itself, border and padding included, as plain text."""
    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


def whole_text(widget: Widget) -> str:
    """Everything ``widget`` holds to say, unwrapped and uncut, as plain text (what its rows are cut from)."""
    lines = getattr(widget, "lines", None)
    if isinstance(lines, list) and lines and isinstance(lines[0], Strip):  # the lesson: laid out by words
        return "\n".join(line.text for line in lines)
    if hasattr(widget, "full_text"):
        return str(widget.full_text())
    if isinstance(widget, OptionList):
        return "\n".join(str(widget.get_option_at_index(n).prompt) for n in range(widget.option_count))
    if isinstance(widget, Static):
        content = widget.content
        return getattr(content, "plain", str(content))
    if hasattr(widget, "description") and hasattr(widget, "key_display"):  # a footer key
        return f"{widget.key_display} {widget.description}"
    rendered = widget.render()
    return getattr(rendered, "plain", str(rendered))


def identifier(token: str) -> bool:
    """Whether ``token`` (with any ellipsis taken out) names something, so it may be shortened."""
    bare = token.strip("()[],;·\"'").replace(ELLIPSIS, "")
    return not bare or bool(IDENTIFIER.fullmatch(bare))


def ellipsis_cuts(row: str) -> list[str]:
    """The tokens of ``row`` that an ellipsis cut and that are no identifier (``[…, JOB04]`` elides a list)."""
    cuts = []
    for match in re.finditer(r"\S*…\S*", row):
        token = match.group()
        if token.startswith("[…") or identifier(token):
            continue
        cuts.append(token)
    return cuts


def edge_cut(row: str, left: int, right: int, whole: str) -> str | None:
    """The token running into the edge at column ``right`` (the last the text may use) when it is not a whole
    word of ``whole`` and no identifier: text cut where the pane ends."""
    inside = row[left:right + 1]
    if len(inside) < 2 or inside[-1] == " ":
        return None
    token = inside.split(" ")[-1]
    if not token or identifier(token):
        return None
    if re.search(rf"(?<!\S){re.escape(token)}(?!\S)", whole):
        return None
    return token


def text_columns(widget: Widget) -> tuple[int, int]:
    """The first and last columns (in the widget's own rows) its text may use."""
    region, content = widget.region, widget.content_region
    left = content.x - region.x
    right = left + content.width - 1
    if hasattr(widget, "text_width"):  # a pane that scrolls itself: the gap and the thumb follow its text
        right = left + int(widget.text_width) - 1
    elif widget.styles.scrollbar_gutter == "stable" or widget.show_vertical_scrollbar:
        right = min(right, left + widget.scrollable_content_region.width - 1)
    return left, right


def leaves(app: Any) -> Iterator[Widget]:
    """The widgets on the active screen the learner can see that draw something of their own."""
    for widget in app.screen.query("*"):
        if showing(widget) and widget.outer_size.area:
            yield widget


def cuts(app: Any) -> list[str]:
    """Every cut the active screen shows: an ellipsis in a text, a word run into a pane's edge, or a pane whose
    border is pushed out of its column; each as ``Widget: what``."""
    found = []
    for widget in leaves(app):
        name = type(widget).__name__
        rows = rows_of(widget)
        found += [f"{name}: {token!r} in {row.strip()!r}" for row in rows for token in ellipsis_cuts(row)]
        if not widget.children and widget.content_size.width > 1:
            left, right = text_columns(widget)
            whole = whole_text(widget)
            top = widget.content_region.y - widget.region.y
            for row in rows[top:top + widget.content_size.height]:
                token = edge_cut(row, left, right, whole)
                if token:
                    found.append(f"{name}: {token!r} runs into the edge in {row.strip()!r}")
        found += unseen_words(widget)
        if widget.styles.border.bottom[0] and widget.region.bottom > app.screen.size.height:
            column = next((node for node in widget.ancestors if isinstance(node, ScrollableContainer)), None)
            if column is None:
                found.append(f"{name}: its bottom border is off the screen ({widget.region})")
            elif isinstance(column, StepColumn) and (PANE_NAMES.get(name, name) not in column.out_of_sight()
                                                     or not pushed_line(column)):
                found.append(f"{name}: pushed off the screen, and nothing says how to see it")
    return found


def pushed_line(column: StepColumn) -> str:
    """What the column's line about the panes out of sight says, where it shows."""
    line = column.query_one(PushedAway)
    return whole_text(line) if showing(line) else ""


def unseen_words(widget: Widget) -> list[str]:
    """For a note that wraps (a Shown), each word it holds that none of its rows shows: rows cut off below."""
    if not isinstance(widget, Shown):
        return []
    drawn = set(" ".join(rows_of(widget)).split())
    missing = [word for word in whole_text(widget).split() if word not in drawn]
    return [f"{type(widget).__name__}: {len(missing)} words not on its rows, from {missing[0]!r}"] if missing else []
