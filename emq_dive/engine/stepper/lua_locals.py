"""The stepped script's locals at one call line, as the server's Lua debugger (LDB) prints them: plain frozen data."""

from __future__ import annotations

import re
from dataclasses import dataclass

LDB_LINE = 256
"""LDB's default ``maxlen``: a ``<value> name = …`` line longer than this is cut there and ends in `` ...``."""

NO_LOCALS = {
    "native": "no Lua locals: EMQ.EXTENDS is C inside the server (stepped here through its Python twin, native.py)",
    "handle": "no Lua locals yet: the handle is Python (jobs.py), and the script has not started",
}
"""Why a step of a kind of code shows no Lua locals, by ``Step.source``."""
NO_CALL = "no Lua locals: this step reached no call line of the script"
BRIEF = {"native": "no Lua locals: EMQ.EXTENDS is C", "handle": "no Lua locals yet: the handle is Python",
         "": "no Lua locals: no call line ran"}
"""The same reasons, whole in fewer words, for a pane with one row (by ``Step.source``; ``""`` for NO_CALL)."""
KEYFRAME = 16
"""One frame in this many is kept whole; the rest keep only what changed, so reading one reads at most this many."""

_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w@.])-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|inf|nan)(?![\w.])')


@dataclass(frozen=True)
class Local:
    """One local of the script: its name, its value as LDB prints it (numbers in full), and whether it changed."""

    name: str
    value: str
    changed: bool

    @property
    def ldb(self) -> str:
        """The value exactly as LDB's ``print`` shows it: its numbers in C's ``%g`` (``now`` reads 1.7e+12 there)."""
        return ldb_numbers(self.value)


@dataclass(frozen=True, slots=True, eq=False)
class Locals:
    """The script's locals where it called ``redis.call`` (or returned), read from the running Lua with
    ``debug.getlocal``; kept as what changed since the frame before, so a 100,000-member run stays small."""

    line: int
    """The script line the locals were read at: a call line, or the ``return``."""
    raw: bytes
    """``k`` (every local) or ``d`` (only those changed since ``base``), the count of locals, then for each one
    sent: its position, ``*`` when it changed, its name and its value as LDB prints it, numbers in full (Lua's
    own ``%.14g``), all NUL-separated."""
    base: Locals | None = None
    """The frame before, whose locals this one's unsent ones are (None for a whole frame: one in KEYFRAME)."""

    def __eq__(self, other: object) -> bool:
        """Two frames are equal when they show the same locals, marked alike, at the same line, however each is kept
        (a replayed run sends whole a frame that a run straight through sent as what changed)."""
        if not isinstance(other, Locals):
            return NotImplemented
        return self is other or (self.line == other.line and self.shown == other.shown)

    def __hash__(self) -> int:
        return hash((self.line, self.shown))

    def _sent(self) -> tuple[int, list[tuple[int, bool, str, str]]]:
        parts = self.raw[1:].decode("latin-1").split("\0")
        quads = parts[1:]
        return int(parts[0]), [(int(quads[k]) - 1, quads[k + 1] == "*", quads[k + 2], quads[k + 3])
                               for k in range(0, len(quads), 4)]

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Each local as (name, value), in the order the script declared them."""
        count, sent = self._sent()
        rows = list(self.base.pairs[:count]) if self.base is not None else []
        rows += [("", "")] * (count - len(rows))
        for k, _, name, value in sent:
            rows[k] = (name, value)
        return tuple(rows)

    @property
    def changed(self) -> set[str]:
        """The names of the locals whose value changed since the frame before (or that are new)."""
        return {name for _, flag, name, _ in self._sent()[1] if flag}

    @property
    def shown(self) -> tuple[Local, ...]:
        """Each local, marked changed when its value differs from the frame before (or it is new)."""
        changed = {k for k, flag, _, _ in self._sent()[1] if flag}
        return tuple(Local(name, value, k in changed) for k, (name, value) in enumerate(self.pairs))

    def value(self, name: str) -> str | None:
        """The innermost local called ``name``, or None when none is in scope."""
        return next((value for n, value in reversed(self.pairs) if n == name), None)


def ldb_numbers(value: str) -> str:
    """``value`` with each bare number (outside a quoted string) in C's ``%g``, as LDB formats a Lua number."""
    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else f"{float(token):g}"
    return _NUMBER.sub(one, value)
