"""The learner's own state: the tour seen, the missions done and the scripts they edited, in their data directory.

Nothing here is ever written under the checkout or the installed package; a directory that cannot be written
gives a reason, and the dive runs on without saving.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .lessons import APP_NAME

DATA_DIR = "EMQ_DIVE_DATA_DIR"
"""The environment variable that, when set, is the directory the learner's state lives in (tests set it)."""
STATE_OFF = "EMQ_DIVE_STATE_OFF"
"""The environment variable that, when set, says why nothing is saved (``serve`` sets it for shared tabs)."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_FILE = "progress.json"


class StateProblem(OSError):
    """The learner's state could not be saved; the message says why in one line, and the dive runs on."""


@dataclass(frozen=True)
class Progress:
    """What the state file says: the flags set and, per lesson id, the mission ids done."""

    flags: frozenset[str] = frozenset()
    missions: Mapping[str, frozenset[str]] | None = None

    def done(self, lesson_id: str) -> frozenset[str]:
        """The missions of ``lesson_id`` marked done."""
        return (self.missions or {}).get(lesson_id, frozenset())


@dataclass(frozen=True)
class UserState:
    """The learner's data directory, or None with the reason nothing is saved."""

    root: Path | None
    reason: str = ""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> UserState:
        """The state directory the environment names, else the user's platformdirs data directory."""
        env = os.environ if environ is None else environ
        if env.get(STATE_OFF):
            return cls(None, env[STATE_OFF])
        if env.get(DATA_DIR):
            return cls(Path(env[DATA_DIR]))
        return cls(platformdirs.user_data_path(APP_NAME))

    def progress(self) -> Progress:
        """The saved progress; a missing or unreadable file reads as none yet."""
        if self.root is None:
            return Progress()
        try:
            raw = json.loads((self.root / _FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Progress()
        if not isinstance(raw, dict):
            return Progress()
        flags = frozenset(str(f) for f in raw.get("flags", []) if isinstance(f, str))
        missions = {
            str(lesson): frozenset(str(m) for m in done if isinstance(m, str))
            for lesson, done in (raw.get("missions") or {}).items()
            if isinstance(done, list)
        }
        return Progress(flags, missions)

    def set_flag(self, flag: str) -> Progress:
        """Record ``flag`` (say, ``tour-seen``); raises StateProblem when it cannot be saved."""
        now = self.progress()
        return self._write(Progress(now.flags | {_checked(flag)}, now.missions))

    def mark_done(self, lesson_id: str, mission_id: str) -> Progress:
        """Record mission ``mission_id`` of ``lesson_id`` as done; raises StateProblem when it cannot be saved."""
        now = self.progress()
        missions = dict(now.missions or {})
        missions[_checked(lesson_id)] = now.done(lesson_id) | {_checked(mission_id)}
        return self._write(Progress(now.flags, missions))

    def script_path(self, lesson_id: str, script: str) -> Path | None:
        """Where the learner's own copy of ``script`` (say, ``extend_locks``) for ``lesson_id`` lives."""
        if self.root is None:
            return None
        return self.root / "scripts" / _checked(lesson_id) / f"{_checked(script)}.lua"

    def read_script(self, lesson_id: str, script: str) -> str | None:
        """The learner's saved copy of ``script``, or None when they have not edited it."""
        path = self.script_path(lesson_id, script)
        try:
            return path.read_text(encoding="utf-8") if path is not None else None
        except OSError:
            return None

    def write_script(self, lesson_id: str, script: str, source: str) -> Path:
        """Save the learner's copy of ``script``; raises StateProblem when it cannot be saved."""
        path = self.script_path(lesson_id, script)
        if path is None:
            raise StateProblem(f"your script is not saved: {self.reason}")
        _replace(path, source)
        return path

    def forget_script(self, lesson_id: str, script: str) -> None:
        """Delete the learner's copy of ``script``, so the course's own runs again."""
        path = self.script_path(lesson_id, script)
        if path is not None:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as err:
                raise StateProblem(f"cannot delete {path}: {err.strerror or err}") from None

    def _write(self, progress: Progress) -> Progress:
        if self.root is None:
            raise StateProblem(f"your progress is not saved: {self.reason}")
        body = {
            "flags": sorted(progress.flags),
            "missions": {lesson: sorted(done) for lesson, done in sorted((progress.missions or {}).items())},
        }
        _replace(self.root / _FILE, json.dumps(body, indent=1) + "\n")
        return progress


def _checked(name: str) -> str:
    """``name`` when it is a plain file-name word; anything else would be a path, so it is refused."""
    if not _NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"{name!r} is not a name the state file can hold")
    return name


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".emq-dive-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError as err:
        raise StateProblem(f"cannot save into {path.parent}: {err.strerror or err}; the dive runs on") from None
