"""Wire 4: the project's own Lua script stepped one member at a time in an embedded Lua, each call sent for real."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from ..echo_mq import scripts
from ..echo_mq.connector import error_text
from ..echo_mq.scripts import marker_lines
from .checks import checked, refusal
from .driver import Batch, Handle, Interlude, Outcome, ReplayMismatch, drive_lua, register, run_atomic
from .handle import BatchHandle
from .lua_locals import Locals
from .lua_run import LuaRun, Pending
from .model import Before, Call, Member
from .outcome import Errored, Verdict

LUA_MARKS = marker_lines(scripts.extend_locks().source)


def _cut(lines: list[int], loop: int) -> int:
    """Where the last pass through the loop header (line ``loop``) starts: a member step begins there."""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] == loop:
            return i
    return len(lines)


@register(4)
class LuaDriver:
    """Steps extend_locks.lua: step 1 reads the clock and checks member 1, each later step checks one member."""

    wire = 4
    source = "lua"
    one_command = True
    handle: Handle = BatchHandle()
    marks: dict[str, int] = LUA_MARKS
    """The stepped script's ``@marker`` lines."""
    removed = False
    """True for a what-if whose script has no ZSCORE check: a member past the token check shows it removed."""

    def __init__(self, batch: Batch) -> None:
        batch = replace(batch, script=self.script_for(batch))
        self._batch = batch
        self.code = batch.script.file
        if batch.script.yours:  # the learner's script: its own markers, where it has kept them
            self.marks = marker_lines(batch.script.source)
        self.command = (b"EVALSHA", batch.script.sha.encode(), b"2", *batch.keys, *batch.argv)
        self.count = max(1, len(batch.held))
        self._run: LuaRun | None = None
        self._pending: Pending = ("call", 0, [])
        self._carry: list[int] = []
        self._frames: list[Locals] = []
        """The locals of the call the run waits to send: the next step sends it."""

    def title(self, index: int, done: bool, error: str | None) -> str:
        held = self._batch.held
        title = f"member {index} of {len(held)}: {held[index - 1][0]}" if index <= len(held) else \
            "the script returns"
        return title + (" · returns" if done and error is None and held else "")

    def script_for(self, batch: Batch) -> scripts.Script:
        """The script this driver steps: the one the handle sends, or the learner's edit of it."""
        return batch.yours.get(batch.script.name, batch.script)

    def marked(self) -> Collection[int]:
        return self.marks.values()

    def start(self, recorded: Sequence[Call], position: int) -> None:
        script = self._batch.script
        run = self._run = LuaRun(script.source, f"{script.name}.lua", self._batch.keys, self._batch.argv)
        self._pending = run.advance()
        lines = run.lines()
        hushed = len(recorded) > 2  # all but the last two replies: the last call's locals mark what changed next
        for k, call in enumerate(recorded):
            kind, _, args = self._pending
            if kind != "call" or tuple(args) != call.sent:
                raise ReplayMismatch(f"expected {call.sent!r}, the script sent {args!r}")
            if hushed and k in (0, len(recorded) - 2):
                run.hush(k == 0, self.marks.get("loop", 0))
            self._pending = run.advance(call.reply)
        lines += run.lines()
        self._carry = lines[_cut(lines, self.marks.get("loop", 0)):] if recorded else lines
        self._frames = run.frames()[-1:] if self._pending[0] == "call" else []

    def step(self, before: Before) -> Outcome:
        run = self._run
        assert run is not None, "start the driver before stepping it"
        index = before.index + 1
        started: list[bool] = []

        def next_member(args: Sequence[bytes]) -> bool:
            """A member's step starts at its HGET: the second HGET belongs to the next step."""
            if args[0] != b"HGET":
                return False
            if started:
                return True
            started.append(True)
            return False

        self._pending, calls, ran = drive_lua(run, self._pending, self._batch, self.source, next_member)
        lines = [*self._carry, *ran]
        member_started = bool(started)
        kind, _, value = self._pending
        reply: Any = value if kind == "done" else None
        error: str | None = value if kind == "error" else None
        lines += run.lines()
        self._carry = []
        frames, self._frames = [*self._frames, *run.frames()], []
        if self._pending[0] == "call":
            cut = _cut(lines, self.marks.get("loop", 0))
            lines, self._carry = lines[:cut], lines[cut:]
            frames, self._frames = frames[:-1], frames[-1:]
        failed = tuple(f.decode() for f in run.failed_from(len(before.failed)))
        members = (self._member(before.members[index - 1], calls, lines, failed),) \
            if member_started and index <= len(before.members) else ()  # a learner's script may read on past them
        return Outcome(tuple(lines), tuple(calls), run.now, reply, error, self._pending[0] != "call",
                       members, failed, round_trips=1 if index == 1 else 0, locals=tuple(frames))

    def atomic(self, between: Interlude) -> tuple[tuple[bytes, ...], Any]:
        return run_atomic(self._batch, self.wire, between)

    def _member(self, member: Member, calls: list[Call], lines: list[int], failed: tuple[str, ...]) -> Member:
        seen = {call.sent[0]: call for call in calls}
        attempts = seen[b"HGET"].reply
        if isinstance(attempts, Exception):
            return replace(member, ran=True, row=Errored(error_text(attempts)), verdict=Verdict.STOPPED,
                           error=error_text(attempts))
        token_ok = None if attempts is None else attempts == member.token.encode()
        read = checked(attempts, token_ok, seen[b"ZSCORE"].reply if b"ZSCORE" in seen else None, b"ZSCORE" in seen,
                       self.removed)
        shared = self._batch.shared
        row, match, active = (shared.one(check) for check in read)
        if b"ZADD" in seen:  # one replace a member: it is a big batch's costliest line
            return replace(member, ran=True, row=row, match=match, active=active, verdict=Verdict.RESCORED,
                           new_score=int(float(seen[b"ZADD"].sent[2])))
        if self.marks["fail"] in lines if "fail" in self.marks else member.id in failed:
            return replace(member, ran=True, row=row, match=match, active=active, verdict=Verdict.FAILED,
                           reason=refusal((row, match, active)))
        return replace(member, ran=True, row=row, match=match, active=active)
