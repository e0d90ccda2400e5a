"""Where the sandbox may save a lesson: by id, into the user's lessons directory (or a server's own), never a path.

A file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so a save never overwrites a file or follows a symlink.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from . import lessons

RESERVED = ("list", "script", "native", "bench", "serve", "clean", "help", "version")
"""Words ``emq-dive WORD`` reads as a command, so no lesson may take one as its id."""
MAX_ID = 64
"""The longest lesson id the sandbox saves (it names a file and stands in ``emq-dive ID``)."""
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

SAVE_DIR = "EMQ_DIVE_SAVE_DIR"
"""The environment variable that, when set, is the only directory the sandbox saves into (``serve`` sets it)."""
SAVE_OFF = "EMQ_DIVE_SAVE_OFF"
"""The environment variable that, when set, says why saving is off (``serve`` without ``--allow-save``)."""


class SaveRefused(ValueError):
    """A save the sandbox will not make; the message says why in one line, and nothing was written."""


@dataclass(frozen=True)
class SavePolicy:
    """Where this process may save lessons: ``directory``, or nowhere, for ``reason``."""

    directory: Path | None
    reason: str = ""
    listed: bool = True
    """Whether ``emq-dive list`` shows what is saved there (the user's own directory, not a server's)."""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> SavePolicy:
        """The policy the environment sets: off, a server's directory, or the user's lessons directory."""
        if environ.get(SAVE_OFF):
            return cls(None, environ[SAVE_OFF])
        if environ.get(SAVE_DIR):
            return cls(Path(environ[SAVE_DIR]), listed=False)
        return cls(lessons.user_lessons_dir())


def check_id(text: str) -> str:
    """The lesson id the learner typed (a trailing ``.toml`` dropped), or SaveRefused saying why it is none."""
    lesson_id = text.strip().removesuffix(".toml")
    shown = lesson_id if len(lesson_id) <= 40 else f"{lesson_id[:20]}…({len(lesson_id)} characters)"
    if not lesson_id:
        raise SaveRefused("give the lesson an id, such as my-dive")
    if lesson_id.startswith("-"):
        raise SaveRefused(f"{shown!r} starts with '-', which the command line reads as an option")
    if lesson_id.lower() in RESERVED:
        raise SaveRefused(f"{shown!r} is an emq-dive command; choose another id")
    if not _ID.fullmatch(lesson_id):
        raise SaveRefused(f"{shown!r} is not a lesson id: use letters, digits, '-' and '_' only (an id, not a path: "
                          "the file goes into your lessons directory)")
    if len(lesson_id) > MAX_ID:
        raise SaveRefused(f"a lesson id has at most {MAX_ID} characters, not {len(lesson_id)}")
    if lesson_id in set(lessons.lesson_ids()) and (lessons.lessons_dir() / f"{lesson_id}.toml").exists():
        raise SaveRefused(f"{shown!r} is a lesson of the course; choose another id")
    return lesson_id


def free_id(directory: Path | None, stem: str = "sandbox") -> str:
    """The first ``stem-N`` with no file in ``directory``."""
    number = 1
    while directory is not None and os.path.lexists(directory / f"{stem}-{number}.toml"):
        number += 1
    return f"{stem}-{number}"


def create(directory: Path, lesson_id: str, text: str) -> Path:
    """Write ``text`` as ``directory/lesson_id.toml``, a file that must not exist yet (nor be a symlink)."""
    lesson_id = check_id(lesson_id)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = directory / f"{lesson_id}.toml"
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                         0o644)
    except FileExistsError:
        raise SaveRefused(f"{directory / lesson_id}.toml exists already (or is a link); the sandbox never "
                          "overwrites a file: choose another id") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise SaveRefused(f"{directory / lesson_id}.toml is a symlink; the sandbox never follows one") from None
        raise SaveRefused(f"cannot save in {directory}: {err.strerror or err}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as err:
        os.unlink(path)
        raise SaveRefused(f"cannot write {path}: {err.strerror or err}") from None
    return path
