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


@dataclass(frozen=True, slots=True)
class Locals:
    """The script's locals where it called ``redis.call`` (or returned), read from the running Lua with
    ``debug.getlocal``, kept as the harness printed them so a 100,000-member run stays small."""

    line: int
    """The script line the locals were read at: a call line, or the ``return``."""
    raw: bytes
    """``name NUL value NUL …``, each value as LDB prints it but with numbers in full (Lua's own ``%.14g``)."""
    before: bytes | None = None
    """The previous frame's ``raw`` in the same run (None for the first): what ``changed`` compares against."""

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Each local as (name, value), in the order the script declared them."""
        return _pairs(self.raw)

    @property
    def shown(self) -> tuple[Local, ...]:
        """Each local, marked changed when its value differs from the frame before (or it is new)."""
        return self.since(self.before)

    def since(self, before: bytes | None) -> tuple[Local, ...]:
        """Each local, marked changed when it differs from the same slot of the frame ``before`` (raw) or is new."""
        old = _pairs(before) if before is not None else ()
        return tuple(Local(name, value, k >= len(old) or old[k] != (name, value))
                     for k, (name, value) in enumerate(self.pairs))

    def value(self, name: str) -> str | None:
        """The innermost local called ``name``, or None when none is in scope."""
        return next((value for n, value in reversed(self.pairs) if n == name), None)


def _pairs(raw: bytes) -> tuple[tuple[str, str], ...]:
    if not raw:
        return ()
    parts = raw.decode("latin-1").split("\0")
    return tuple(zip(parts[::2], parts[1::2], strict=True))


def ldb_numbers(value: str) -> str:
    """``value`` with each bare number (outside a quoted string) in C's ``%g``, as LDB formats a Lua number."""
    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else f"{float(token):g}"
    return _NUMBER.sub(one, value)
