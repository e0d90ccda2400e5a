"""The dive screen's panes, bound to the screen's frame and state: what each one shows comes from that frame."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.dom import DOMNode
from textual.reactive import Reactive
from textual.widgets import Footer

from ....engine.stores.kinds import kind_of
from ....present.session import Session
from ..widgets.batch_table import BatchTable
from ..widgets.code_pane import CodePane
from ..widgets.dive_header import DiveHeader
from ..widgets.lesson_caption import LessonCaption
from ..widgets.lesson_pane import LessonPane
from ..widgets.locals_pane import LocalsPane
from ..widgets.mode_notes import ModeNotes
from ..widgets.predict_bar import PredictBar
from ..widgets.pushed_away import PushedAway
from ..widgets.race_timeline import RaceTimeline
from ..widgets.step_bar import StepBar
from ..widgets.step_column import StepColumn
from ..widgets.store_pane import StorePane
from ..widgets.try_row import TryRow
from ..widgets.wire_pane import WirePane
from .breakpoints import stops as play_stops

__all__ = ["HEIGHTS", "WIDTHS", "panes", "play_stops", "set_size_classes", "size_classes"]
"""``play_stops`` is the breakpoints' rule, brought in beside the layout so the dive screen imports it on one line."""

WIDTHS: list[tuple[int, str]] = [(0, "-w-narrow"), (100, "-w-mid"), (160, "-w-wide")]
"""The screen's width classes: below 100 columns the lesson folds to a caption; from 160 the panes spread out."""
HEIGHTS: list[tuple[int, str]] = [(0, "-h-short"), (32, "-h-tall")]
"""The screen's height classes: below 32 rows the lesson folds to a caption and the secondary panes shrink."""


def size_classes(width: int, height: int) -> dict[str, bool]:
    """The breakpoint classes for a ``width`` × ``height`` screen, each on or off, as Textual sets them on a resize
    (which it first sends after the first paint: the screen sets them on mount too, so that paint has the layout)."""
    on = {next(name for least, name in reversed(points) if size >= least)
          for points, size in ((WIDTHS, width), (HEIGHTS, height))}
    return {name: name in on for _, name in (*WIDTHS, *HEIGHTS)}


def set_size_classes(node: DOMNode, width: int, height: int, *, update: bool = True) -> None:
    """Give ``node`` the breakpoint classes of a ``width`` × ``height`` screen (textual 8.0 has no update_classes);
    ``update=False`` before it mounts, so its first styling already has them."""
    classes = size_classes(width, height)
    node.remove_class(*(name for name, on in classes.items() if not on), update=update)
    node.add_class(*(name for name, on in classes.items() if on), update=update)


def panes(session: Session, frame: Reactive[Any], playing: Reactive[Any], busy: Reactive[Any], asking: Reactive[Any]
          ) -> ComposeResult:
    """The header, the stepping panes, the lesson (or its caption), the Try it row and the footer, bound to the
    screen's reactives of those names."""
    store, lesson = session.store, session.lesson
    header = DiveHeader().data_bind(frame=frame)
    header.heading, header.backend, header.wire = lesson.heading, store.description, session.wire
    header.store = store
    yield header
    with Horizontal(id="main"):
        with StepColumn(id="left"):
            yield PushedAway()
            yield StepBar().data_bind(frame=frame, playing=playing, busy=busy)
            yield ModeNotes().data_bind(frame=frame)
            yield PredictBar().data_bind(frame=frame, asking=asking)
            yield RaceTimeline().data_bind(frame=frame)
            yield BatchTable().data_bind(frame=frame)
            code = CodePane().data_bind(frame=frame)
            code.server = kind_of(store).real_server
            with Horizontal(id="code-row"):  # the locals beside the code; a row under it on a small screen
                yield code
                yield LocalsPane().data_bind(frame=frame)
            with Horizontal(id="bottom"):
                wire_pane = WirePane().data_bind(frame=frame)
                wire_pane.server = code.server
                yield wire_pane
                yield StorePane().data_bind(frame=frame)
        yield LessonPane(lesson, id="lesson").data_bind(frame=frame)
    yield LessonCaption()
    yield TryRow().data_bind(frame=frame)
    yield Footer()
