"""Step a batch lease extension member by member against a live store, and check it against the atomic run."""

from __future__ import annotations

import inspect
import weakref
from dataclasses import replace
from typing import Any, Sequence

import redis

from ..echo_mq import jobs, keyspace, moves, native, scripts
from ..echo_mq.connector import Connector, error_text, raw
from ..echo_mq.scripts import marker_lines
from ..stores import snapshot
from .hosts import ClientHost
from .lua_run import LuaRun
from .model import NOT_EVALUATED, Agreement, Call, Member, MembersAt, Prefix, Step
from .tracing import lines_of

__all__ = ["Stepper", "Step", "Member", "Call", "Agreement", "NOT_EVALUATED", "ReplayMismatch"]

_READS = {b"TIME", b"HGET", b"ZSCORE", b"ACL", b"INFO"}
LUA_MARKS = marker_lines(scripts.extend_locks().source)
_MARKED = {
    "handle": set(marker_lines(inspect.getsource(jobs)).values()),
    "lua": set(LUA_MARKS.values()),
    "native": set(marker_lines(inspect.getsource(native)).values()),
}


def _focus(source: str, lines: Sequence[int]) -> int | None:
    return next((n for n in reversed(lines) if n in _MARKED[source]), lines[-1] if lines else None)


class ReplayMismatch(RuntimeError):
    """Replaying recorded replies led the code to a different command than it sent before."""


class _Captured(Exception):
    """Raised by the capturing connector once the handle reaches the wire."""


class _HandleConnector:
    """Stands in for the wire while the handle runs: records the call, or answers with a stepped reply."""

    def __init__(self, wire: int, reply: Any = None) -> None:
        self.wire = wire
        self.reply = reply
        self.call: tuple[scripts.Script, list[str], list[str]] | None = None

    def eval(self, script: scripts.Script, keys: Sequence[str], argv: Sequence[str]) -> Any:
        self.call = (script, list(keys), list(argv))
        if self.reply is None:
            raise _Captured
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def _b(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


class Stepper:
    """Runs one batch on one wire a step at a time; every reply comes from the live store."""

    def __init__(self, store: Any, held: Sequence[tuple[str, int]], lease_ms: int, wire: int = 4) -> None:
        self.store = store
        self.client: redis.Redis = store.client
        self.queue: str = store.queue
        self.held = list(held)
        self.lease_ms = lease_ms
        self.wire = wire
        handle = _HandleConnector(wire)
        with lines_of(jobs.__file__) as seen:
            try:
                jobs.extend_locks(handle, self.queue, self.held, lease_ms)
            except _Captured:
                pass
        script, keys, argv = handle.call  # type: ignore[misc]
        self.script = script
        self.keys = [_b(k) for k in keys]
        self.argv = [_b(a) for a in argv]
        verb = ("EVALSHA", script.sha) if wire == 4 else (script.native_verb,)
        self.command = tuple(_b(a) for a in (*verb, "2", *keys, *argv))
        # the run's timeline, shared by every step through views: each member's states, and the failed ids
        self._history: list[list[tuple[int, Member]]] = [
            [(0, Member(i, job_id, str(token)))] for i, (job_id, token) in enumerate(self.held)]
        self._touched: list[list[int]] = [[]]
        self._failed: list[str] = []
        self._failed_count: list[int] = [0]
        count = max(1, len(self.held)) if wire == 4 else len(self.held) + 1
        self.steps: list[Step] = [Step(
            index=0, count=count, wire=wire, title="the handle: gate, flatten, argv, keys, send",
            source="handle", lines=tuple(seen), focus=_focus("handle", seen), calls=(),
            members=MembersAt(self._history, 0), failed=Prefix(self._failed, 0),
            lease_ms=lease_ms, command=self.command)]
        self.position = 0
        self._undo: list[list[tuple[Any, ...]]] = [[]]
        self._live: Any = None
        self._carry: list[int] = []
        self._pending: tuple[str, int, Any] | None = None

    # -- navigation -------------------------------------------------------

    @property
    def count(self) -> int:
        """How many steps the batch takes after the handle."""
        return self.steps[0].count

    @property
    def current(self) -> Step:
        """The step on screen; the store is in the state it left."""
        return self.steps[self.position]

    @property
    def finished(self) -> bool:
        """True once the code has returned or raised."""
        return self.current.done

    def forward(self) -> Step:
        """Run the next step against the store."""
        if self.current.done:
            return self.current
        if self._live is None:
            self._rebuild()
        del self.steps[self.position + 1:]
        self._undo.append([])
        self._touched.append([])
        try:
            step = self._lua_step() if self.wire == 4 else self._native_step()
        except BaseException:
            # a step that could not finish (the store went away, say) takes back what it wrote, if it still can
            try:
                self._apply_undo(self._undo[self.position + 1])
            except redis.RedisError:
                pass
            self._rewind(self.position + 1)
            self._live = None
            raise
        self.steps.append(step)
        self.position += 1
        return step

    def back(self) -> Step:
        """Undo the last step in the store itself and show the one before."""
        if self.position == 0:
            return self.current
        self._apply_undo(self._undo[self.position])
        self._rewind(self.position)
        self.position -= 1
        self._live = None
        return self.current

    def _rewind(self, step: int) -> None:
        """Forget what the timeline recorded at ``step``, the last one it holds."""
        for index in reversed(self._touched.pop(step)):
            self._history[index].pop()
        self._undo.pop(step)
        if len(self._failed_count) > step:
            self._failed_count.pop(step)
        del self._failed[self._failed_count[-1]:]

    def _record(self, step: int, member: Member) -> None:
        self._history[member.index].append((step, member))
        self._touched[step].append(member.index)

    def _member(self, index: int) -> Member:
        """A member's latest state along the run."""
        return self._history[index][-1][1]

    def _apply_undo(self, undo: Sequence[tuple[Any, ...]]) -> None:
        """Put back, newest first, what each recorded write replaced."""
        with self.client.pipeline(transaction=True) as tx:
            for kind, key, part, old in reversed(undo):
                if kind == "zset":
                    tx.zrem(key, part) if old is None else tx.execute_command("ZADD", key, old, part)
                elif kind == "hash":
                    tx.hdel(key, part) if old is None else tx.hset(key, part, old)
                elif old is None:
                    tx.delete(key)
                else:
                    tx.restore(key, part, old, replace=True)
            tx.execute()

    def home(self) -> Step:
        """Back to the handle, the store as it was before anything was sent."""
        while self.position:
            self.back()
        return self.current

    def end(self) -> Step:
        """Run every remaining step."""
        while not self.current.done:
            self.forward()
        return self.current

    # -- running code ------------------------------------------------------

    def _send(self, source: str, line: int, args: Sequence[bytes]) -> Call:
        if args[0].upper() not in _READS and len(args) > 1:
            self._before_write(args)
        try:
            reply = raw(self.client, *args)
        except redis.ResponseError as err:
            reply = err
        return Call(source, line, tuple(args), reply)

    def _start_live(self) -> None:
        if self.wire == 4:
            self._live = LuaRun(self.script.source, f"{self.script.name}.lua", self.keys, self.argv)
            self._pending = self._live.advance()
            self._carry = self._live.lines()
        else:
            before_write = weakref.WeakMethod(self._before_write)  # no cycle: a dropped stepper is freed at once
            self._live = ClientHost(self.store, before_write=lambda args: before_write()(args))
            self._gen = native.extends(self._live, [b"2", *self.keys, *self.argv])
            self._carry = []

    def _before_write(self, args: Sequence[bytes]) -> None:
        """Record what a write is about to replace, so ``back`` can put exactly that back."""
        command, key = args[0].upper(), args[1]
        if command == b"ZADD" and len(args) == 4:
            self._undo[-1].append(("zset", key, args[3], raw(self.client, "ZSCORE", key, args[3])))
        elif command == b"HSET" and len(args) == 4:
            self._undo[-1].append(("hash", key, args[2], raw(self.client, "HGET", key, args[2])))
        else:
            self._undo[-1].append(("key", key, max(self.client.pttl(key), 0), self.client.dump(key)))

    def _rebuild(self) -> None:
        """Bring a fresh run to the current position by feeding it the replies recorded on the way."""
        self._start_live()
        recorded = [call for step in self.steps[1: self.position + 1] for call in step.calls]
        if self.wire == 4:
            for call in recorded:
                kind, _, args = self._pending
                if kind != "call" or tuple(args) != call.sent:
                    raise ReplayMismatch(f"expected {call.sent!r}, the script sent {args!r}")
                self._pending = self._live.advance(call.reply)
            lines = self._carry + self._live.lines()
            if recorded:
                cut = max((i for i, n in enumerate(lines) if n == LUA_MARKS["loop"]), default=len(lines))
                lines = lines[cut:]
            self._carry = lines
        else:
            self._live.replay = recorded
            for _ in range(self.position):
                self._next_probes([])
            if self._live.replay:
                raise ReplayMismatch("the twin stopped before using every recorded reply")

    def _lua_step(self) -> Step:
        run: LuaRun = self._live
        index = self.position + 1
        calls: list[Call] = []
        member_started = False
        lines = list(self._carry)
        error = None
        reply = None
        while True:
            kind, line, args = self._pending
            if kind == "error":
                error = args
                break
            if kind == "done":
                reply = args
                break
            if args[0] == b"HGET":
                if member_started:
                    break
                member_started = True
            call = self._send("lua", line, args)
            calls.append(call)
            self._pending = run.advance(call.reply)
            lines += run.lines()
        lines += run.lines()
        self._carry = []
        if self._pending[0] == "call":
            cut = max((i for i, n in enumerate(lines) if n == LUA_MARKS["loop"]), default=len(lines))
            lines, self._carry = lines[:cut], lines[cut:]
        done = self._pending[0] != "call"
        if member_started:
            self._record(index, self._lua_member(self._member(index - 1), calls, lines))
        self._failed.extend(f.decode() for f in run.failed_from(len(self._failed)))
        return self._step(index, "lua", lines, calls, run.now, reply, error, done)

    def _lua_member(self, member: Member, calls: list[Call], lines: list[int]) -> Member:
        seen = {call.sent[0]: call for call in calls}
        attempts = seen[b"HGET"].reply
        if isinstance(attempts, Exception):
            return replace(member, ran=True, attempts=error_text(attempts), outcome="error")
        token_ok = NOT_EVALUATED if attempts is None else attempts == member.token.encode()
        score = seen[b"ZSCORE"].reply if b"ZSCORE" in seen else NOT_EVALUATED
        if b"ZADD" in seen:
            return replace(member, ran=True, attempts=attempts, token_ok=token_ok, score=score,
                           outcome="re-scored", reason="live", new_score=int(float(seen[b"ZADD"].sent[2])))
        if LUA_MARKS["fail"] in lines:
            reason = "gone" if attempts is None else "stale" if not token_ok else "not-active"
            return replace(member, ran=True, attempts=attempts, token_ok=token_ok, score=score,
                           outcome="failed", reason=reason)
        return replace(member, ran=True, attempts=attempts, token_ok=token_ok, score=score)

    def _native_step(self) -> Step:
        host: ClientHost = self._live
        index = self.position + 1
        host.calls = []
        now, reply, error, done = self.current.now, None, None, False
        probes: list[native.Probe] = []
        with lines_of(native.__file__) as lines:
            try:
                done, reply = self._next_probes(probes)
            except native.NativeError as err:
                error, done = str(err), True
        for probe in probes:
            if probe.marker == "clock":
                now = probe.values["now"]
            elif probe.marker == "read-verdict":
                seen = self._native_member(self._member(probe.values["index"]), probe.values["verdict"])
                self._record(index, seen)
                if seen.outcome == "failed":
                    self._failed.append(seen.id)
            elif probe.marker == "write-epoch":
                for history in self._history:
                    latest = history[-1][1]
                    if latest.outcome == "live":
                        self._record(index, replace(latest, outcome="re-scored", new_score=probe.values["score"]))
        return self._step(index, "native", list(lines), list(host.calls), now, reply, error, done)

    def _next_probes(self, probes: list[native.Probe]) -> tuple[bool, Any]:
        """Drive the twin through one step (to its next read verdict, or to its reply); say if it returned."""
        while True:
            try:
                probe = next(self._gen)
            except StopIteration as stop:
                return True, stop.value
            probes.append(probe)
            if probe.marker == "read-verdict":
                return False, None

    @staticmethod
    def _native_member(member: Member, seen: native.Verdict) -> Member:
        return replace(
            member, ran=True, attempts=seen.attempts,
            token_ok=NOT_EVALUATED if seen.token_ok is None else seen.token_ok,
            score=NOT_EVALUATED if seen.in_active is None else seen.score,
            outcome="live" if seen.live else "failed", reason=seen.reason)

    def _step(self, index: int, source: str, lines: list[int], calls: list[Call], now: int | None,
              reply: Any, error: str | None, done: bool) -> Step:
        if index <= len(self.held) and not (self.wire == 6 and index == self.count):
            title = f"member {index} of {len(self.held)}: {self.held[index - 1][0]}"
        elif self.wire == 6:
            title = "the write pass: re-score every live member, stamp lease_epoch"
        else:
            title = "the script returns"
        if done and error is None:
            title += " · returns" if self.wire == 4 and self.held else ""
        changed = frozenset(c.sent[1] for c in calls if c.sent[0].upper() not in _READS and len(c.sent) > 1)
        self._failed_count.append(len(self._failed))
        return Step(index=index, count=self.count, wire=self.wire, title=title, source=source,
                    lines=tuple(lines), focus=_focus(source, lines), calls=tuple(calls),
                    members=MembersAt(self._history, index), failed=Prefix(self._failed, len(self._failed)),
                    now=now, lease_ms=self.lease_ms, command=self.command, reply=reply, error=error,
                    done=done, changed=changed)

    # -- the handle's answer and the atomic check --------------------------

    def handle_answer(self) -> tuple[tuple[int, ...], Any]:
        """Run the handle again with the stepped reply: the lines it runs and what it returns or raises."""
        step = self.current
        if not step.done:
            raise RuntimeError("the run has not finished")
        reply: Any = step.reply
        if step.error is not None:
            reply = redis.ResponseError(step.error)
        connector = _HandleConnector(self.wire, reply)
        with lines_of(jobs.__file__) as seen:
            try:
                answer: Any = jobs.extend_locks(connector, self.queue, self.held, self.lease_ms)
            except redis.ResponseError as err:
                answer = err
        return tuple(seen), answer

    def verify(self) -> Agreement:
        """Run the same batch atomically from the same start; say whether it agrees with the stepped run."""
        stepped = self.end()
        rescored = tuple(m.id for m in stepped.members if m.outcome == "re-scored")
        stepped_end = snapshot.take(self.client, self.queue)
        stepped_state = snapshot.read(self.client, self.queue)
        # the undo log, applied newest first, takes the store back to where the handle left it
        self._apply_undo([entry for undo in self._undo[1: self.position + 1] for entry in undo])
        connector = Connector(self.client, self.wire)
        before = moves.server_now_ms(self.client)
        try:
            atomic_reply: Any = connector.eval(self.script, self.keys, self.argv)
        except redis.ResponseError as err:
            atomic_reply = err
        after = moves.server_now_ms(self.client)
        atomic_state = snapshot.read(self.client, self.queue)
        snapshot.restore_keys(self.client, stepped_end, [
            key for key in set(stepped_state) | set(atomic_state) if stepped_state.get(key) != atomic_state.get(key)])
        atomic_now = self._atomic_now(atomic_state, rescored)
        differences: list[str] = []
        stepped_reply = stepped.reply if stepped.error is None else stepped.error
        atomic_text = error_text(atomic_reply) if isinstance(atomic_reply, Exception) else atomic_reply
        if isinstance(atomic_reply, Exception) or stepped.error is not None:
            if stepped.error is None or not isinstance(atomic_reply, Exception) or \
                    stepped.error.split()[0] != atomic_text.split()[0]:
                differences.append(f"replies differ: stepped {stepped_reply!r}, atomic {atomic_text!r}")
        elif [_b(x) for x in stepped_reply] != list(atomic_reply):
            differences.append(f"failed lists differ: stepped {stepped_reply!r}, atomic {atomic_reply!r}")
        if rescored and atomic_now is None:
            differences.append("the atomic run did not re-score every member at one shared score")
        elif atomic_now is not None and not before <= atomic_now <= after:
            differences.append(f"the atomic run's now {atomic_now} is outside its clock reads {before}..{after}")
        stepped_view = self._view(stepped_state, stepped.now, rescored)
        atomic_view = self._view(atomic_state, atomic_now, rescored)
        for key in sorted(set(stepped_view) | set(atomic_view)):
            if stepped_view.get(key) != atomic_view.get(key):
                differences.append(f"{key.decode()}: stepped {stepped_view.get(key)!r}, "
                                   f"atomic {atomic_view.get(key)!r}")
        return Agreement(wire=self.wire, command=tuple(connector.log[-1].sent), stepped_reply=stepped_reply,
                         atomic_reply=atomic_text, stepped_now=stepped.now, atomic_now=atomic_now,
                         rescored=rescored, agree=not differences, differences=tuple(differences))

    def _atomic_now(self, state: dict[bytes, Any], rescored: tuple[str, ...]) -> int | None:
        """The now the atomic run read: its one shared score less the lease, if every re-scored member has it."""
        active = state.get(keyspace.queue_key(self.queue, "active").encode())
        if not rescored or not isinstance(active, dict):
            return None
        scores = {active.get(_b(job_id)) for job_id in rescored}
        if len(scores) != 1 or None in scores:
            return None
        return int(scores.pop()) - self.lease_ms

    def _view(self, state: dict[bytes, Any], now: int | None, rescored: Sequence[str]) -> dict[bytes, Any]:
        """The queue's keys with a re-scored member's now+lease, and the run_id, written symbolically."""
        moved = {_b(job_id) for job_id in rescored}
        run_id = self.store.run_id()
        deadline = None if now is None else now + self.lease_ms
        view: dict[bytes, Any] = {}
        for key, value in state.items():
            if isinstance(value, dict) and key.endswith(b":active"):
                value = {member: ("now+lease" if member in moved and int(score) == deadline else int(score))
                         for member, score in value.items()}
            elif isinstance(value, dict):
                value = {name: (b"<run_id>" if field == run_id else field) for name, field in value.items()}
            view[key] = value
        return view
