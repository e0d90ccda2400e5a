"""Singles: the same held list as N calls of the single verb (extend_lock), each call one step, each sent for real."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import redis

from ..echo_mq import jobs, native, scripts
from ..echo_mq.connector import Connector
from ..echo_mq.scripts import marker_lines
from .checks import checked
from .driver import Batch, Handle, Interlude, Outcome, drive_lua, register
from .handle import Sent, SinglesHandle, answer_single, capture_single
from .hosts import ClientHost
from .lua_locals import Locals
from .lua_run import LuaRun
from .model import Before, Call, Member
from .native_driver import NATIVE_MARKS, run_twin
from .outcome import NOT_REACHED, Checked, Errored, Raised, Reason, Verdict
from .tracing import lines_of

SINGLE_MARKS = marker_lines(scripts.extend_lock().source)
"""extend_lock.lua's ``@marker`` lines."""
EMPTY_NOTE = "the single verb always names one job: an empty held list sends no call at all"


@dataclass(frozen=True)
class CallRun:
    """One single call as it ran: its lines and commands, its clock read, the checks' values, its reply or error."""

    lines: tuple[int, ...]
    calls: tuple[Call, ...]
    now: int | None
    reply: Any
    error: str | None
    checks: tuple[Checked, Checked, Checked] = (NOT_REACHED, NOT_REACHED, NOT_REACHED)
    new_score: int | None = None
    notes: tuple[str, ...] = ()
    epoch: bytes | None = None
    """The lease_epoch the call stamped (wire 6)."""
    locals: tuple[Locals, ...] = ()
    """The script's locals at each of its calls and its return (wire 4)."""


class _Singles:
    """What both wires' singles share: one step per member, the handle's own raise, N commands when unstepped."""

    wire: int
    source: str
    code: str
    one_command = False
    handle: Handle = SinglesHandle()
    marks: Collection[int] = ()

    def __init__(self, batch: Batch) -> None:
        self._batch = batch
        self._queue = batch.store.queue
        self.count = max(1, len(batch.held))
        self.command: tuple[bytes, ...] = self._command(self._sent(0)) if batch.held else ()

    def _sent(self, index: int) -> Sent:
        job_id, token = self._batch.held[index]
        sent = capture_single(self.wire, self._queue, job_id, token, self._batch.lease_ms)
        return replace(sent, script=self._batch.yours.get(sent.script.name, sent.script))  # the learner's, if edited

    def _command(self, sent: Sent) -> tuple[bytes, ...]:
        raise NotImplementedError

    def _run(self, sent: Sent) -> CallRun:
        raise NotImplementedError

    def title(self, index: int, done: bool, error: str | None) -> str:
        held = self._batch.held
        if not held:
            return "no call: the held list is empty"
        return f"call {index} of {len(held)}: extend_lock {held[index - 1][0]}"

    def marked(self) -> Collection[int]:
        return self.marks

    def start(self, recorded: Sequence[Call], position: int) -> None:
        """Each call stands alone, so a fresh run needs nothing replayed: the next step is call ``position + 1``."""

    def step(self, before: Before) -> Outcome:
        held = self._batch.held
        if not held:
            return Outcome((), (), None, done=True, notes=(EMPTY_NOTE,))
        index = before.index
        job_id, token = held[index]
        ran = self._run(self._sent(index))
        raised = answer_single(self.wire, self._queue, job_id, token, self._batch.lease_ms, ran.reply, ran.error)
        member = _member(before.members[index], ran, raised)
        return Outcome(ran.lines, ran.calls, ran.now, ran.reply, None, index + 1 == len(held), (member,),
                       notes=ran.notes, round_trips=1, locals=ran.locals)

    def atomic(self, between: Interlude) -> tuple[tuple[bytes, ...], Any]:
        """Every call through the project's connector, one command each: the first command, and each reply or error."""
        connector = Connector(self._batch.store.client, self.wire)
        replies: list[Any] = []
        between(0)
        for index in range(len(self._batch.held)):
            sent = self._sent(index)
            try:
                replies.append(connector.eval(sent.script, sent.keys, sent.argv))
            except redis.ResponseError as err:
                replies.append(err)
            between(index + 1)
        return (tuple(connector.log[0].sent) if connector.log else ()), replies


def _member(member: Member, ran: CallRun, raised: BaseException | None) -> Member:
    """The member after its own call: re-scored, or raised on its own (Gone, Stale, NotActive, or ResponseError for
    an error reply such as WRONGTYPE: each call stands alone, so the next one still runs)."""
    row, match, active = ran.checks
    seen = replace(member, ran=True, row=row, match=match, active=active, now=ran.now, error=ran.error)
    if ran.error is None:
        return replace(seen, verdict=Verdict.RESCORED, new_score=ran.new_score, epoch=ran.epoch)
    reason = Reason.of_wire_class(ran.error)
    if isinstance(raised, jobs.LeaseRefused) and reason is not None:
        return replace(seen, verdict=Verdict.RAISED, reason=reason, raised=reason.raised)
    if isinstance(raised, redis.ResponseError):
        return replace(seen, verdict=Verdict.RAISED, raised=Raised.RESPONSE_ERROR)
    return replace(seen, verdict=Verdict.STOPPED)


@register(4, "singles")
class SinglesLuaDriver(_Singles):
    """Wire 4: each call is EVALSHA of extend_lock.lua, stepped in an embedded Lua with every command sent for real."""

    wire = 4
    source = "lua"
    code = "extend_lock.lua"
    marks = SINGLE_MARKS.values()

    def __init__(self, batch: Batch) -> None:
        super().__init__(batch)
        mine = batch.yours.get(scripts.extend_lock().name)
        if mine is not None:  # the learner's single script: the pane shows it, with its own markers
            self.code, self.marks = mine.file, marker_lines(mine.source).values()

    def _command(self, sent: Sent) -> tuple[bytes, ...]:
        return (b"EVALSHA", sent.script.sha.encode(), b"2", *sent.keys, *sent.argv)

    def _run(self, sent: Sent) -> CallRun:
        run = LuaRun(sent.script.source, f"{sent.script.name}.lua", sent.keys, sent.argv)
        pending = run.advance()
        lines = run.lines()
        pending, calls, ran = drive_lua(run, pending, self._batch, self.source)
        lines += ran
        kind, _, value = pending
        error = value if kind == "error" else None
        if isinstance(value, dict):
            error = value["err"].decode() if isinstance(value["err"], bytes) else str(value["err"])
        reply = value if kind == "done" and error is None else None
        by_verb = {call.sent[0]: call.reply for call in calls}
        attempts = by_verb.get(b"HGET")
        token_ok = None if b"HGET" not in by_verb or not isinstance(attempts, bytes) else attempts == sent.argv[2]
        checks = checked(attempts, token_ok, by_verb.get(b"ZSCORE"), b"ZSCORE" in by_verb) if b"HGET" in by_verb \
            else (NOT_REACHED, NOT_REACHED, NOT_REACHED)
        zadd = next((call.sent for call in calls if call.sent[0] == b"ZADD"), None)
        return CallRun(tuple(lines), tuple(calls), run.now, reply, error, checks, int(float(zadd[2])) if zadd else None,
                       locals=tuple(run.frames()))


@register(6, "singles")
class SinglesNativeDriver(_Singles):
    """Wire 6: each call is EMQ.EXTEND, its twin (native.extend) stepped over a host that sends each call for real."""

    wire = 6
    source = "native"
    code = "native.py"
    marks = NATIVE_MARKS

    def _command(self, sent: Sent) -> tuple[bytes, ...]:
        return (sent.script.native_verb.encode(), b"2", *sent.keys, *sent.argv)

    def _run(self, sent: Sent) -> CallRun:
        host = ClientHost(self._batch.store, before_write=self._batch.before_write)
        handler = native.extend(host, [b"2", *sent.keys, *sent.argv])
        probes: list[native.Probe] = []
        reply: Any = None
        error: str | None = None
        with lines_of(native.__file__) as lines:
            host.lines = lines
            try:
                _, reply = run_twin(handler, probes)
            except native.NativeError as err:
                error = str(err)
        values = {probe.marker: probe.values for probe in probes}
        now = values.get("one-clock", {}).get("now")
        seen = values.get("one-verdict", {}).get("verdict")
        checks: tuple[Checked, Checked, Checked] = (NOT_REACHED, NOT_REACHED, NOT_REACHED)
        if isinstance(seen, native.Verdict):
            checks = checked(seen.attempts, seen.token_ok, seen.score, seen.in_active is not None)
        elif error is not None and error.startswith("WRONGTYPE"):
            checks = (Errored(error), NOT_REACHED, NOT_REACHED)
        new_score = values.get("one-epoch", {}).get("score")
        return CallRun(tuple(lines), tuple(host.calls), now if isinstance(now, int) else None, reply, error,
                       checks, new_score if isinstance(new_score, int) else None, tuple(dict.fromkeys(host.notes)),
                       next((c.sent[3] for c in host.calls if c.sent[:1] == (b"HSET",) and len(c.sent) == 4), None))
