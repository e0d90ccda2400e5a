"""The protocol's Lua scripts, loaded from the package's own ``.lua`` files."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

_MARKER = re.compile(r"@([a-z][a-z0-9-]*)\s*(?:\*/)?\s*$")


@dataclass(frozen=True)
class Script:
    """One Lua script: its source, its SHA1 and the native verb that twins it."""

    name: str
    source: str
    native_verb: str
    yours: bool = False
    """True for the learner's own edit of a course script (kept in their data directory, never in the package)."""
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())

    @property
    def lines(self) -> list[str]:
        """The source split into lines, line 1 first."""
        return self.source.splitlines()

    @property
    def file(self) -> str:
        """The file a step names: ``extend_locks.lua``, or for the learner's edit ``your extend_locks.lua @<sha>``."""
        return f"your {self.name}.lua @{self.sha[:7]}" if self.yours else f"{self.name}.lua"


_YOURS: dict[str, Script] = {}
"""Every edit made in this process, by its ``file``: content-addressed, so a name always means one text."""


def edited(base: Script, source: str) -> Script:
    """The learner's ``source`` in place of ``base``, the same name and native twin, findable by its ``file``."""
    script = Script(name=base.name, source=source, native_verb=base.native_verb, yours=True)
    _YOURS.setdefault(script.file, script)
    return script


def yours_by_file(file: str) -> Script | None:
    """The learner's edit a step names by ``file``, or None for a course file."""
    return _YOURS.get(file)


def marker_lines(source: str) -> dict[str, int]:
    """Map each trailing ``@marker`` comment in ``source`` to its 1-based line."""
    found: dict[str, int] = {}
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.search(line)
        if match and ("--" in line or "#" in line or "//" in line or "/*" in line):
            if match.group(1) in found:
                raise ValueError(f"marker @{match.group(1)} appears twice")
            found[match.group(1)] = number
    return found


@cache
def load(name: str) -> Script:
    """Load ``scripts/<name>.lua`` from the package."""
    source = resources.files(__package__).joinpath("scripts", f"{name}.lua").read_text("utf-8")
    verb = {"extend_locks": "EMQ.EXTENDS", "extend_lock": "EMQ.EXTEND"}[name]
    return Script(name=name, source=source, native_verb=verb)


def extend_locks() -> Script:
    """The batch script, twin of ``EMQ.EXTENDS``."""
    return load("extend_locks")


def extend_lock() -> Script:
    """The single script, twin of ``EMQ.EXTEND``."""
    return load("extend_lock")
