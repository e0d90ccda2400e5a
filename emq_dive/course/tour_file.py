"""A lesson's tour: the ``[[tour]]`` slides of its file, typed and checked; any problem is one LessonError."""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ..engine.echo_mq.wires import WIRES
from .lesson_file import Lesson, LessonError

MAX_SLIDES = 12
"""The most slides a tour may hold: a tour is a short path, not a second lesson."""
MAX_BODY = 420
"""The most characters a slide's text may hold before its live values are filled in (it must fit at 80×24)."""


class Pane(Enum):
    """The part of the dive screen a slide talks about, which the views mark."""

    HEADER = "header"
    STEP = "step"
    BATCH = "batch"
    CODE = "code"
    WIRE = "wire"
    STORE = "store"
    LESSON = "lesson"
    TRY = "try"
    FOOTER = "footer"


class Opens(Enum):
    """A view a slide opens over the dive."""

    FATES = "fates"


FIELDS = ("step", "count", "wire", "command", "key1", "key2", "lease", "pairs", "now", "index", "member",
          "checks", "verdict", "failed", "answer", "pending", "not_active", "epoch", "section")
"""The live values a slide's text may name as ``{name}``; present/tour.py reads each from the frame on screen."""

_SLIDE = ("title", "pane", "do", "body")
_DO = ("step", "wire", "section", "open")


@dataclass(frozen=True)
class Move:
    """What a slide does to the screen, in order: switch to ``wire``, step to ``step`` (or the end), show the lesson
    ``section``, open a view."""

    wire: int | None = None
    step: int | None = None
    to_end: bool = False
    section: str | None = None
    opens: Opens | None = None


@dataclass(frozen=True)
class Slide:
    """One slide: its title, the pane it marks, its move, and its text with ``{field}`` names for live values."""

    title: str
    pane: Pane
    move: Move
    body: str

    @property
    def fields(self) -> tuple[str, ...]:
        """The live values its text names, in order."""
        return tuple(name for _, name, _, _ in string.Formatter().parse(self.body) if name)


def load_tour(lesson: Lesson) -> tuple[Slide, ...]:
    """The slides of ``lesson``'s file (none when it has no ``[[tour]]`` table); a bad table raises LessonError."""
    path = lesson.path
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        raise LessonError(path, None, f"cannot read its tour: {err}") from None
    return read_tour(data, lesson)


def read_tour(data: Mapping[str, Any], lesson: Lesson) -> tuple[Slide, ...]:
    """The slides of a parsed lesson file, checked against ``lesson`` (its sections) and the wires there are."""
    tables = data.get("tour", [])
    if not isinstance(tables, list):
        raise LessonError(lesson.path, "tour", f"expected [[tour]] tables, got {_kind(tables)}")
    if len(tables) > MAX_SLIDES:
        raise LessonError(lesson.path, "tour", f"a tour holds at most {MAX_SLIDES} slides, not {len(tables)}")
    return tuple(_slide(table, f"tour[{index}]", lesson) for index, table in enumerate(tables))


def _slide(table: Any, at: str, lesson: Lesson) -> Slide:
    def fail(key: str, problem: str) -> LessonError:
        return LessonError(lesson.path, f"{at}.{key}" if key else at, problem)

    if not isinstance(table, dict):
        raise fail("", f"expected a table, got {_kind(table)}")
    for name in table:
        if name not in _SLIDE:
            raise fail(name, "unexpected key")
    title, pane, body = (_text(table, name, fail) for name in ("title", "pane", "body"))
    if pane not in {p.value for p in Pane}:
        raise fail("pane", f"{pane!r} is not a pane (one of {', '.join(p.value for p in Pane)})")
    if len(body) > MAX_BODY:
        raise fail("body", f"a slide's text holds at most {MAX_BODY} characters, not {len(body)}")
    slide = Slide(title, Pane(pane), _move(table.get("do", {}), fail, lesson), body)
    try:
        unknown = [name for name in slide.fields if name not in FIELDS]
    except ValueError as err:  # a stray brace in the text
        raise fail("body", f"not a slide text: {err}") from None
    if unknown:
        raise fail("body", f"{{{unknown[0]}}} is not a live value (one of {', '.join(FIELDS)})")
    return slide


def _move(table: Any, fail: Any, lesson: Lesson) -> Move:
    if not isinstance(table, dict):
        raise fail("do", f"expected a table, got {_kind(table)}")
    for name in table:
        if name not in _DO:
            raise fail(f"do.{name}", f"unexpected key (one of {', '.join(_DO)})")
    step, wire, section, opens = (table.get(name) for name in _DO)
    if step is not None and step != "end" and (isinstance(step, bool) or not isinstance(step, int) or step < 0):
        raise fail("do.step", f"expected a step number from 0, or \"end\", got {step!r}")
    if wire is not None and (isinstance(wire, bool) or wire not in WIRES):
        raise fail("do.wire", f"{wire!r} is not a wire (one of {', '.join(map(str, WIRES))})")
    keys = [s.key for s in lesson.sections]
    if section is not None and section not in keys:
        raise fail("do.section", f"{section!r} is not a section of the lesson (one of {', '.join(keys)})")
    if opens is not None and opens not in {o.value for o in Opens}:
        raise fail("do.open", f"{opens!r} is not a view a slide opens (one of {', '.join(o.value for o in Opens)})")
    return Move(wire=wire, step=step if isinstance(step, int) else None, to_end=step == "end", section=section,
                opens=Opens(opens) if opens is not None else None)


def _text(table: Mapping[str, Any], name: str, fail: Any) -> str:
    if name not in table:
        raise fail(name, "missing")
    value = table[name]
    if not isinstance(value, str):
        raise fail(name, f"expected a string, got {_kind(value)}")
    if not value.strip():
        raise fail(name, "must not be empty")
    return " ".join(value.split())


def _kind(value: object) -> str:
    """A TOML-flavoured name for a value's type, for error messages."""
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
             dict: "a table"}
    return names.get(type(value), type(value).__name__)
