"""Where the app may write a file the user asked for (a screenshot, a transcript), checked before anything runs.

It never imports textual: the CLI, the plain mode and the TUI's ``x`` ask it alike.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

NO_FILES_UNDER = ("/proc", "/sys")
"""Kernel filesystems: a file written there would vanish or be refused."""


class OutputProblem(ValueError):
    """A path the app will not write to; the message says why in one line."""


def _why(err: OSError, path: str) -> str:
    """One line for an OSError met while looking at ``path``."""
    if err.errno == errno.ENAMETOOLONG:
        return f"the name {_short(path)} is too long for the filesystem"
    if err.errno == errno.ELOOP:
        return f"{_short(path)} runs into a symlink loop"
    return f"cannot write {_short(path)}: {err.strerror or err}"


def _short(path: str) -> str:
    """``path`` as shown in a message: its first and last characters when it is long."""
    return path if len(path) <= 80 else f"{path[:40]}…{path[-30:]} ({len(path)} characters)"


def output_problem(path: str, example: str = "screen.svg") -> str | None:
    """Why the file ``path`` cannot be written, or None; checked before the lesson runs."""
    try:
        return _problem(path, example)
    except OSError as err:
        return _why(err, path)
    except RuntimeError as err:  # a symlink loop, on the Pythons whose resolve() says so this way
        return f"{_short(path)}: {err}"


def _problem(path: str, example: str) -> str | None:
    if not path:
        return "the output path is empty"
    target = Path(os.path.abspath(path))
    resolved = target.resolve()
    for root in NO_FILES_UNDER:
        if resolved.is_relative_to(root):
            return f"{path} is under {root}, the kernel's own filesystem; write the file elsewhere"
    if os.path.islink(target) and not os.path.exists(target):
        os.stat(target)  # a dangling link or a loop: stat says which
    if resolved.is_dir():
        return f"{path} is a directory; give a file in it, such as {Path(path) / example}"
    if resolved.exists() and not resolved.is_file():
        return f"{path} exists and is not a regular file"
    parent = resolved.parent
    if not parent.exists():
        return f"there is no directory {target.parent} to write {target.name} in"
    if not parent.is_dir():
        return f"{target.parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {target.parent} (permission denied)"
    if resolved.exists():
        with open(resolved, "ab"):
            pass
    else:
        handle, probe = tempfile.mkstemp(dir=parent, prefix=".emq-dive-probe-")
        os.close(handle)
        os.unlink(probe)
        if len(resolved.name.encode()) > os.pathconf(parent, "PC_NAME_MAX"):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), path)
    return None


def transcript_target(given: str | None, default: str, cwd: Path | None = None) -> Path:
    """Where ``x`` writes the transcript: ``given`` (``~`` expanded) or ``default`` in the working directory.

    Raises OutputProblem, with one line, when that path cannot be written.
    """
    text = given.strip() if given else default
    try:
        text = os.path.expanduser(text)
    except RuntimeError:
        raise OutputProblem(f"{_short(text)} names a home directory that cannot be found") from None
    if text.startswith("~"):
        raise OutputProblem(f"there is no user {text[1:].split('/', 1)[0]!r} whose home {_short(text)} could name")
    try:
        path = Path(text) if os.path.isabs(text) else (cwd or Path.cwd()) / text
    except OSError as err:  # the working directory itself was removed
        raise OutputProblem(f"the working directory cannot be found ({err.strerror or err}); give a full path") \
            from None
    problem = output_problem(str(path), "transcript.md")
    if problem:
        raise OutputProblem(problem)
    return path
