"""Run a project Lua script one ``redis.call`` at a time in an embedded Lua 5.1."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import lupa.lua51 as lupa

from .lua_locals import KEYFRAME, LDB_LINE, Locals

Pending = tuple[str, int, Any]
"""What a run wants next: ``('call', line, args)``, ``('done', 0, value)`` or ``('error', 0, message)``."""

BUDGET = 200_000
"""What a run may spend between two of its commands, a line run costing 1 and each STRIDE instructions STRIDE,
before it is stopped as a runaway (the course's scripts spend under 1,000; Lua swallows a count event that falls
inside the hook itself, so the lines are what bound a tight loop)."""
STRIDE = 1000
"""Instructions between two count events."""
RUNAWAY = f"runaway: stopped after {BUDGET:,} Lua lines and instructions without a command or a return " \
          "(a loop that never ends?)"
"""What a stopped runaway's error says, after its file and line."""
MAX_CALLS = 100_000
"""Commands a run may send in all, beyond CALLS_PER_ARG for each argument (a batch sends about 1.5 an argument),
before it is stopped as a runaway."""
CALLS_PER_ARG = 4


@cache
def _harness_chunk() -> bytes:
    """The harness compiled once to Lua bytecode, so each run's fresh runtime loads it without parsing it again."""
    lua = lupa.LuaRuntime(encoding=None)
    source = resources.files(__package__).joinpath("harness.lua").read_bytes()
    chunk = lua.eval("string.dump")(lua.globals().loadstring(source, b"=harness.lua"))
    assert isinstance(chunk, bytes)
    return chunk


class LuaRun:
    """One run of a script: each ``advance`` returns the next command it wants sent, or its end."""

    def __init__(self, source: str, name: str, keys: Sequence[bytes], argv: Sequence[bytes]) -> None:
        self._lua = lupa.LuaRuntime(encoding=None)
        for setting, value in ((b"BUDGET", BUDGET), (b"STRIDE", STRIDE), (b"RUNAWAY", RUNAWAY.encode()),
                               (b"LDB_LINE", LDB_LINE), (b"KEYFRAME", KEYFRAME)):
            self._lua.globals()[setting] = value
        self._name, self._calls = name, 0
        self._max_calls = MAX_CALLS + CALLS_PER_ARG * len(argv)
        start = self._lua.globals().loadstring(_harness_chunk())()
        table = self._lua.table_from
        returns = {n: True for n, text in enumerate(source.splitlines(), 1) if text.lstrip().startswith("return")}
        self._resume, self._take, self._hush = start(source.encode(), f"={name}".encode(), table(list(keys)),
                                                     table(list(argv)), table(returns))
        self.now: int | None = None
        self._failed: Any = None
        self._frames: list[Locals] = []
        self._last: Locals | None = None

    def lines(self) -> list[int]:
        """Source lines executed since the last call."""
        return [int(line) for line in self._take().values()]

    def hush(self, on: bool, cut: int = 0) -> None:
        """Quiet a replay of recorded replies (``on``): no locals are read, and only the lines since the last pass
        through line ``cut`` are kept (none when it is 0); once it is over, the next call's locals come whole."""
        self._hush(on, cut)
        if not on:
            self._last = None

    def frames(self) -> list[Locals]:
        """The script's locals at each call it asked for (and at its return) since the last ``frames``, in order."""
        frames, self._frames = self._frames, []
        return frames

    def advance(self, reply: Any = None) -> Pending:
        """Resume the run with ``reply`` and say what it wants next."""
        ok, *rest = self._resume(self._to_lua(reply))
        if not ok:
            err = rest[0]
            message = err[b"err"] if lupa.lua_type(err) == "table" else err
            return "error", 0, message.decode() if isinstance(message, bytes) else str(message)
        kind, line, value, local, shown, at = [*rest, None, None, None, None, None, None][:6]
        if shown is not None:
            frame = Locals(int(line) if kind == b"call" else int(at), shown,
                           None if shown[:1] == b"k" else self._last)
            self._frames.append(frame)
            self._last = frame
        if local is not None:  # a hushed call reads no locals
            if local[b"now"] is not None:
                self.now = int(local[b"now"])
            if local[b"failed"] is not None:
                self._failed = local[b"failed"]
        if kind == b"done":
            return "done", 0, self.from_lua(value)
        self._calls += 1
        if self._calls > self._max_calls:  # a loop that sends commands forever: stopped before this one is sent
            return "error", 0, f"{self._name}:{int(line)}: runaway: stopped before its command {self._calls:,}"
        return "call", int(line), [self._arg(a) for a in value.values()]

    def failed_from(self, start: int) -> list[bytes]:
        """The entries of the script's ``failed`` table past the first ``start``, read in place."""
        if self._failed is None:
            return []
        return [self._failed[i] for i in range(start + 1, len(self._failed) + 1)]

    @staticmethod
    def _arg(value: Any) -> bytes:
        """A redis.call argument as the server receives it: numbers in Redis's integer-or-%.17g form."""
        if isinstance(value, bytes):
            return value
        if isinstance(value, float) and value.is_integer():
            return str(int(value)).encode()
        if isinstance(value, (int, float)):
            return f"{value:.17g}".encode()
        raise TypeError(f"redis.call takes strings and numbers, not {value!r}")

    def _to_lua(self, reply: Any) -> Any:
        """Convert a server reply the way Redis hands it to a script."""
        if reply is None:
            return False
        if isinstance(reply, Exception):
            from ..echo_mq.connector import error_text
            return self._lua.table_from({b"err": error_text(reply).encode()})
        if isinstance(reply, list):
            return self._lua.table_from([self._to_lua(item) for item in reply])
        return reply

    def from_lua(self, value: Any) -> Any:
        """Convert a script's return value the way Redis sends it to the client."""
        kind = lupa.lua_type(value)
        if kind == "table":
            if value[b"err"] is not None:
                return {"err": value[b"err"]}
            if value[b"ok"] is not None:
                return value[b"ok"]
            out = []
            i = 1
            while value[i] is not None:
                out.append(self.from_lua(value[i]))
                i += 1
            return out
        if value is None or value is False:
            return None
        if value is True:
            return 1
        if isinstance(value, float):
            return int(value)
        return value
