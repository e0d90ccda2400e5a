"""Run a project Lua script one ``redis.call`` at a time in an embedded Lua 5.1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import lupa.lua51 as lupa

Pending = tuple[str, int, Any]
"""What a run wants next: ``('call', line, args)``, ``('done', 0, value)`` or ``('error', 0, message)``."""

_HARNESS = r"""
local function start(source, chunkname, keys, argv)
  local trace = {}
  local redis = {}
  local final = {}
  local function watched(level)
    local vars, j = {}, 1
    while true do
      local name, value = debug.getlocal(level + 1, j)
      if not name then break end
      if name == 'now' or name == 'failed' then vars[name] = value end
      j = j + 1
    end
    return vars
  end
  function redis.call(...)
    local line = debug.getinfo(2, 'l').currentline
    local reply = coroutine.yield('call', line, {...}, watched(2))
    if type(reply) == 'table' and reply.err then error(reply, 0) end
    return reply
  end
  function redis.error_reply(message) return {err = message} end
  function redis.status_reply(message) return {ok = message} end
  local env = setmetatable({KEYS = keys, ARGV = argv, redis = redis}, {__index = _G})
  local chunk = assert(loadstring(source, chunkname))
  setfenv(chunk, env)
  local co = coroutine.create(function() local value = chunk(); return 'done', 0, value, final end)
  local spent = 0
  debug.sethook(co, function(event, line)
    -- the budget: each line run costs 1, each STRIDE instructions STRIDE; a runaway stops here, sent nowhere
    spent = spent + (event == 'count' and STRIDE or 1)
    if spent > BUDGET then
      local at = (event == 'line' and line) or trace[#trace] or debug.getinfo(2, 'l').currentline
      trace = {at}
      error(chunkname:sub(2) .. ':' .. at .. ': ' .. RUNAWAY, 0)
    end
    if event == 'count' then return end
    local info = debug.getinfo(2, 'S')
    if info.source ~= chunkname then return end
    if event == 'line' then
      trace[#trace + 1] = line
    elseif info.what == 'main' then
      final = watched(2)
    end
  end, 'lr', STRIDE)
  local function resume(reply) spent = 0; return coroutine.resume(co, reply) end
  local function take() local lines = trace; trace = {}; return lines end
  return resume, take
end
return start
"""


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
"""Commands a run may send in all (a 10,000-member batch sends about 30,000) before it is stopped as a runaway."""


class LuaRun:
    """One run of a script: each ``advance`` returns the next command it wants sent, or its end."""

    def __init__(self, source: str, name: str, keys: Sequence[bytes], argv: Sequence[bytes]) -> None:
        self._lua = lupa.LuaRuntime(encoding=None)
        for setting, value in ((b"BUDGET", BUDGET), (b"STRIDE", STRIDE), (b"RUNAWAY", RUNAWAY.encode())):
            self._lua.globals()[setting] = value
        self._name, self._calls = name, 0
        start = self._lua.execute(_HARNESS)
        table = self._lua.table_from
        self._resume, self._take = start(source.encode(), f"={name}".encode(), table(list(keys)), table(list(argv)))
        self.now: int | None = None
        self._failed: Any = None

    def lines(self) -> list[int]:
        """Source lines executed since the last call."""
        return [int(line) for line in self._take().values()]

    def advance(self, reply: Any = None) -> Pending:
        """Resume the run with ``reply`` and say what it wants next."""
        ok, *rest = self._resume(self._to_lua(reply))
        if not ok:
            err = rest[0]
            message = err[b"err"] if lupa.lua_type(err) == "table" else err
            return "error", 0, message.decode() if isinstance(message, bytes) else str(message)
        kind, line, value, local = [*rest, None, None, None, None][:4]
        if local[b"now"] is not None:
            self.now = int(local[b"now"])
        if local[b"failed"] is not None:
            self._failed = local[b"failed"]
        if kind == b"done":
            return "done", 0, self.from_lua(value)
        self._calls += 1
        if self._calls > MAX_CALLS:  # a loop that sends commands forever: stopped before this one is sent
            return "error", 0, f"{self._name}:{int(line)}: runaway: stopped before its command {MAX_CALLS + 1:,}"
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
