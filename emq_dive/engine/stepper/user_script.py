"""The learner's own Lua script: checked before it runs, kept to the dive's keys on a store the app did not start."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

import lupa.lua51 as lupa

from ..echo_mq import keyspace, scripts
from ..stores.kinds import kind_of
from ..stores.protocol import StoreLike
from .lua_run import RUNAWAY

ATOMIC_OFF = ("the atomic check is off for your script here: this is a server the app did not start, so your "
              "script runs stepped only (each command screened for the dive's keys) and is never sent whole")
"""Why a URL store runs the learner's script stepped only: the server would run it unscreened."""


class ScriptRefused(ValueError):
    """A script the dive will not run: its message names the line (a syntax error, a runtime error, a runaway)."""


class KeyRefused(ScriptRefused):
    """A command of the learner's script that names a key outside the dive's queue, refused before it is sent."""


KEYS_AT: dict[bytes, tuple[int, int, int]] = {
    **{verb: (1, 1, 1) for verb in (
        b"GET", b"SET", b"INCR", b"INCRBY", b"DECR", b"APPEND", b"STRLEN", b"TYPE", b"TTL", b"PTTL", b"EXPIRE",
        b"PEXPIRE", b"PERSIST", b"HGET", b"HSET", b"HSETNX", b"HDEL", b"HEXISTS", b"HGETALL", b"HMGET", b"HMSET",
        b"HINCRBY", b"HKEYS", b"HVALS", b"HLEN", b"ZADD", b"ZSCORE", b"ZREM", b"ZRANGE", b"ZRANGEBYSCORE",
        b"ZCARD", b"ZINCRBY", b"ZRANK", b"ZMSCORE", b"ZCOUNT", b"LPUSH", b"RPUSH", b"LPOP", b"RPOP", b"LPOS",
        b"LRANGE", b"LREM", b"LLEN", b"LINDEX", b"SADD", b"SREM", b"SISMEMBER", b"SMEMBERS", b"SCARD")},
    **{verb: (1, -1, 1) for verb in (b"DEL", b"UNLINK", b"EXISTS", b"MGET", b"TOUCH")},
    b"LMOVE": (1, 2, 1), b"RPOPLPUSH": (1, 2, 1), b"SMOVE": (1, 2, 1),
    b"TIME": (0, 0, 0),
}
"""Where each command a script may send on a store the app did not start has its keys: (first, last, step) as
Redis's command table gives them (0 for none, a last of -1 for every argument after the first)."""


def course_script(name: str) -> scripts.Script:
    """The course's own script ``name`` (``extend_locks`` or ``extend_lock``), as the package ships it."""
    return scripts.load(name)


def syntax_error(source: str, name: str) -> str | None:
    """Lua 5.1's message for ``source`` that does not compile, naming its line (``extend_locks.lua:12: …``)."""
    lua = lupa.LuaRuntime(encoding=None)
    compile_it = lua.eval("function(source, name) local _, err = loadstring(source, name); return err end")
    err = compile_it(source.encode(), f"={name}.lua".encode())
    return err.decode("utf-8", "replace") if err is not None else None


def checked(base: scripts.Script, source: str) -> scripts.Script:
    """The learner's ``source`` in place of ``base``, once it compiles and its markers are whole; or ScriptRefused."""
    if not source.strip():
        raise ScriptRefused(f"your {base.name}.lua is empty: nothing to run")
    problem = syntax_error(source, base.name)
    if problem is not None:
        raise ScriptRefused(f"Lua syntax error, {problem}; nothing was changed")
    try:
        scripts.marker_lines(source)
    except ValueError as err:
        raise ScriptRefused(f"your {base.name}.lua: {err}; nothing was changed") from None
    return scripts.edited(base, source)


_LUA_ERROR = re.compile(r"^[\w.-]+\.lua:\d+: ")


def fault(error: str | None) -> str | None:
    """The Lua runtime error or runaway that ended a stepped run (not an error reply of the store), or None."""
    return error if error is not None and _LUA_ERROR.match(error) else None


def runaway(error: str | None) -> bool:
    """True when ``error`` is the stepped run's runaway stop: a script that must never go to a server whole."""
    return error is not None and "runaway: stopped" in error and fault(error) is not None


def stepped_only(store: StoreLike, yours: Mapping[str, scripts.Script]) -> bool:
    """True when the learner's script runs here stepped only: on a store the app did not start."""
    return bool(yours) and not kind_of(store).app_started


class KeyScreen:
    """Refuses a command whose keys are not all in the dive's queue, or whose keys it cannot tell, before it is sent."""

    def __init__(self, queue: str) -> None:
        self.prefix = keyspace.queue_key(queue, "").encode()

    def __call__(self, args: Sequence[bytes]) -> None:
        verb = bytes(args[0]).upper() if args else b""
        if verb not in KEYS_AT:
            raise KeyRefused(f"your script sent {verb.decode(errors='replace') or 'nothing'}, which the dive does not "
                             "let a script send on a server it did not start (it cannot tell that command's keys); "
                             "refused before it was sent")
        first, last, step = KEYS_AT[verb]
        if not first:
            return
        end = len(args) if last < 0 else min(last + 1, len(args))
        for key in list(args[first:end])[::step]:
            if not bytes(key).startswith(self.prefix):
                raise KeyRefused(f"your script asked for {bytes(key).decode(errors='replace')!r}, a key outside this "
                                 f"dive's {self.prefix.decode()}: refused before it was sent")


def changed_lines(course: str, yours: str) -> frozenset[int]:
    """The 1-based lines of ``yours`` that are not the course's: inserted or replaced."""
    matcher = difflib.SequenceMatcher(a=course.splitlines(), b=yours.splitlines(), autojunk=False)
    return frozenset(line + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"
                     for line in range(j1, j2))


def diff(name: str, course: str, yours: str) -> list[str]:
    """The unified diff from the course's ``name``.lua to yours."""
    return list(difflib.unified_diff(course.splitlines(), yours.splitlines(), f"course {name}.lua",
                                     f"your {name}.lua", lineterm=""))


__all__ = ["ATOMIC_OFF", "RUNAWAY", "KeyRefused", "KeyScreen", "ScriptRefused", "changed_lines", "checked",
           "course_script", "diff", "fault", "runaway", "stepped_only", "syntax_error"]
