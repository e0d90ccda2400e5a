"""``emq-dive list``: the course's lessons and the user's, marked, with each broken file's one-line error."""

from __future__ import annotations

import sys
from typing import TextIO

from .lessons import Lesson, Origin, entries, user_lessons_dir
from .user_state import UserState


def print_list(argv: list[str], out: TextIO) -> int:
    """Print one line per lesson file on both shelves; the exit status (2 for an argument, which it takes none of)."""
    if argv:
        print(f"emq-dive: list takes no arguments, not {' '.join(argv)!r}", file=sys.stderr)
        return 2
    found = entries()
    progress = UserState.from_environ().progress()
    width = max([12, *(len(entry.id) for entry in found)])
    for entry in found:
        mark = "" if entry.origin is Origin.COURSE else "  (yours)"
        if entry.lesson is None:
            print(f"{entry.id:<{width}} broken{mark}: {entry.error}", file=out)
        else:
            print(f"{entry.id:<{width}} {entry.lesson.heading}{_missions(entry.lesson, progress.done(entry.id))}{mark}",
                  file=out)
    if not any(entry.origin is Origin.USER for entry in found):
        print(f"(none of yours yet: the sandbox's s saves a lesson into {user_lessons_dir()})", file=out)
    return 0


def _missions(lesson: Lesson, done: frozenset[str]) -> str:
    """`` · 4/15 missions``: the lesson's missions the learner has done, of all it has (empty when it has none)."""
    if not lesson.missions:
        return ""
    return f" · {sum(m.id in done for m in lesson.missions)}/{len(lesson.missions)} missions"
