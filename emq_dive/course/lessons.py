"""The lessons on two shelves: the course's own (shipped with the app) and the user's (in their data directory).

A file that cannot be used is listed as broken with its one-line error; every other lesson still opens.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from pathlib import Path

import platformdirs

from .lesson_file import (
    FATES,
    MAX_MEMBERS,
    MEMBER_FATES,
    SOURCES,
    Lesson,
    LessonError,
    LessonMember,
    Section,
    load_file,
)

__all__ = ["FATES", "MAX_MEMBERS", "MEMBER_FATES", "SOURCES", "Entry", "Lesson", "LessonError", "LessonMember",
           "Origin", "Section", "entries", "find", "is_path", "lesson_ids", "lessons_dir", "list_lessons", "load",
           "load_file", "user_lessons_dir"]

APP_NAME = "emq-dive"


class Origin(Enum):
    """Whose shelf a lesson file is on."""

    COURSE = "course"
    USER = "yours"


@dataclass(frozen=True)
class Entry:
    """One lesson file on a shelf: the lesson it holds, or the one-line error that makes it unusable."""

    id: str
    path: Path
    origin: Origin
    lesson: Lesson | None
    error: str | None = None


def lessons_dir() -> Path:
    """The course's lesson files: the installed copy when present, else the checkout's."""
    installed = resources.files("emq_dive") / "_lessons"
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "lessons"


def user_lessons_dir() -> Path:
    """The user's own lesson files (the sandbox saves there): ``lessons`` in the user's data directory."""
    return platformdirs.user_data_path(APP_NAME) / "lessons"


def _shelf(folder: Path) -> list[Path]:
    try:
        return sorted(folder.glob("*.toml"))
    except OSError:
        return []


def _files() -> dict[str, tuple[Path, Origin]]:
    """Each lesson id and its file; a user's file whose id the course already has is not reachable by id."""
    found = {p.stem: (p, Origin.USER) for p in _shelf(user_lessons_dir())}
    found.update({p.stem: (p, Origin.COURSE) for p in _shelf(lessons_dir())})
    return found


def entries() -> list[Entry]:
    """Every lesson file on both shelves, course first, each by id; broken ones carry their error."""
    out = []
    for lesson_id, (path, origin) in _files().items():
        try:
            out.append(Entry(lesson_id, path, origin, load_file(path)))
        except LessonError as err:
            out.append(Entry(lesson_id, path, origin, None, str(err)))
    return sorted(out, key=lambda entry: (entry.origin != Origin.COURSE, entry.id))


def list_lessons() -> list[Lesson]:
    """Every lesson that loads, on both shelves, sorted by id."""
    return sorted((e.lesson for e in entries() if e.lesson is not None), key=lambda lesson: lesson.id)


def lesson_ids() -> list[str]:
    """The id of every lesson file on both shelves, without reading any."""
    return sorted(_files())


def load(lesson_id: str) -> Lesson:
    """The lesson with this id; an unknown id raises LessonError naming the nearest known one."""
    files = _files()
    if lesson_id in files:
        return load_file(files[lesson_id][0])
    known = sorted(files)
    near = difflib.get_close_matches(lesson_id, known, n=1)
    if near:
        hint = f"; did you mean {near[0]!r}?"
    else:
        hint = f"; known: {', '.join(map(repr, known))}" if known else "; there are no lessons"
    raise LessonError(None, None, f"no lesson {lesson_id!r}{hint}")


def is_path(spec: str) -> bool:
    """Whether ``spec`` names a lesson file by path (it ends in ``.toml`` or has a directory part), not an id."""
    return spec.endswith(".toml") or os.sep in spec or (os.altsep is not None and os.altsep in spec)


def find(spec: str) -> Lesson:
    """The lesson ``spec`` names: a ``.toml`` file by path, else a lesson id on either shelf."""
    return load_file(Path(spec)) if is_path(spec) else load(spec)
