"""Where the code a step runs is kept: the handle, the connector, the native twin, each Lua script, the C module."""

from __future__ import annotations

from pathlib import Path

from ..native.build import module_source
from .scripts import yours_by_file

PROTOCOL = Path(__file__).resolve().parent
"""This package's folder: the handle (jobs.py), the connector and the native twin beside the scripts/ folder."""
SCRIPTS = PROTOCOL / "scripts"

FILES: dict[str, Path] = {
    "handle": PROTOCOL / "jobs.py",
    "connector": PROTOCOL / "connector.py",
    "native": PROTOCOL / "native.py",
    "lua": SCRIPTS / "extend_locks.lua",
    "single": SCRIPTS / "extend_lock.lua",
    "what-if": SCRIPTS / "extend_locks_no_guard.lua",
    "module": module_source(),
}
"""Each source by the name the code pane gives it."""


def of_file(name: str) -> Path:
    """The file a step's ``code`` names (``jobs.py``, ``native.py``, ``connector.py`` or a script's ``.lua``)."""
    beside = PROTOCOL / name
    return beside if name.endswith(".py") else SCRIPTS / name


def text_of(name: str) -> str | None:
    """The text of the code a step's ``code`` names: the learner's edit as it runs, else the package's file."""
    mine = yours_by_file(name)
    if mine is not None:
        return mine.source
    path = of_file(name)
    return path.read_text("utf-8") if path.is_file() else None
