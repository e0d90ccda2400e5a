"""Wire 6: the native twin (echo_mq/native.py) stepped probe by probe over a host that sends each call for real."""

from __future__ import annotations

import inspect
from collections.abc import Collection, Generator, Sequence
from dataclasses import replace
from typing import Any

from ..echo_mq import native
from ..echo_mq.scripts import marker_lines
from .checks import checked
from .driver import Batch, Handle, Interlude, Outcome, ReplayMismatch, register, run_atomic
from .handle import BatchHandle
from .hosts import ClientHost
from .model import Before, Call, Member
from .outcome import Errored, Reason, Verdict
from .tracing import lines_of

BOOKKEEPING = frozenset({"read-pass", "write-epoch", "reply", "one-epoch", "one-reply"})
"""The twin's markers a step runs after its work (a loop's head, the stamp beside the re-score, the reply): shown
as run, never the highlighted line, so the write pass highlights its ZADD, not the reply."""
NATIVE_MARKS = frozenset(line for name, line in marker_lines(inspect.getsource(native)).items()
                         if name not in BOOKKEEPING)
"""The twin's marked lines a step's highlight may land on."""


def run_twin(run: Generator[native.Probe, None, object], probes: list[native.Probe],
             stop_at: str | None = None) -> tuple[bool, object]:
    """Drive the twin to its next ``stop_at`` probe, or to its reply, noting each probe: (returned?, its reply)."""
    while True:
        try:
            probe = next(run)
        except StopIteration as stop:
            return True, stop.value
        probes.append(probe)
        if probe.marker == stop_at:
            return False, None


@register(6)
class NativeDriver:
    """Steps EMQ.EXTENDS's twin: one step per member of the read pass, then one for the write pass."""

    wire = 6
    source = "native"
    code = "native.py"
    one_command = True
    handle: Handle = BatchHandle()

    def __init__(self, batch: Batch) -> None:
        self._batch = batch
        self.command = (batch.script.native_verb.encode(), b"2", *batch.keys, *batch.argv)
        self.count = len(batch.held) + 1
        self._host: ClientHost | None = None
        self._run: Generator[native.Probe, None, object] | None = None

    def title(self, index: int, done: bool, error: str | None) -> str:
        held = self._batch.held
        if index < self.count:
            return f"member {index} of {len(held)}: {held[index - 1][0]}"
        return "the write pass: re-score every live member, stamp lease_epoch"

    def marked(self) -> Collection[int]:
        return NATIVE_MARKS

    def start(self, recorded: Sequence[Call], position: int) -> None:
        host = self._host = ClientHost(self._batch.store, before_write=self._batch.before_write)
        self._run = native.extends(host, [b"2", *self._batch.keys, *self._batch.argv])
        host.replay = list(recorded)
        for _ in range(position):
            run_twin(self._run, [], "read-verdict")
        if host.replay:
            raise ReplayMismatch("the twin stopped before using every recorded reply")

    def step(self, before: Before) -> Outcome:
        host = self._host
        assert host is not None, "start the driver before stepping it"
        assert self._run is not None
        host.calls, host.notes = [], []
        now, reply, error, done = before.now, None, None, False
        probes: list[native.Probe] = []
        with lines_of(native.__file__) as lines:
            host.lines = lines
            try:
                done, reply = run_twin(self._run, probes, "read-verdict")
            except native.NativeError as err:
                error, done = str(err), True
        latest = list(before.members)
        changed: list[Member] = []
        failed: list[str] = []
        for probe in probes:
            values: dict[str, Any] = probe.values
            if probe.marker == "clock":
                now = values["now"]
            elif probe.marker == "read-verdict":
                seen = self._member(latest[values["index"]], values["verdict"])
                latest[seen.index] = seen
                changed.append(seen)
                if seen.verdict is Verdict.FAILED:
                    failed.append(seen.id)
            elif probe.marker == "write-epoch":
                for member in latest:
                    if member.verdict is Verdict.LIVE:
                        latest[member.index] = replace(member, verdict=Verdict.RESCORED, new_score=values["score"],
                                                       epoch=values["run_id"])
                        changed.append(latest[member.index])
        if error is not None:
            changed = self._refused(latest, changed, before, error)
        return Outcome(tuple(lines), tuple(host.calls), now, reply, error, done, tuple(changed), tuple(failed),
                       tuple(dict.fromkeys(host.notes)), round_trips=1 if before.index == 0 else 0)

    def atomic(self, between: Interlude) -> tuple[tuple[bytes, ...], Any]:
        return run_atomic(self._batch, self.wire, between)

    def _refused(self, latest: list[Member], changed: list[Member], before: Before, error: str) -> list[Member]:
        """The command was refused, so it writes nothing: the member whose check raised carries the error, and
        every member the read pass found live is not written."""
        by_index = {member.index: member for member in changed}
        if before.index < len(self._batch.held) and error.split(" ", 1)[0] in ("WRONGTYPE", "NOPERM"):
            member = latest[before.index]
            by_index[member.index] = replace(member, ran=True, verdict=Verdict.STOPPED, error=error,
                                             row=Errored(error) if error.startswith("WRONGTYPE") else member.row)
        for member in latest:
            if member.verdict is Verdict.LIVE:
                by_index[member.index] = replace(member, verdict=Verdict.NOT_WRITTEN)
        return [by_index[index] for index in sorted(by_index)]

    @staticmethod
    def _member(member: Member, seen: native.Verdict) -> Member:
        row, match, active = checked(seen.attempts, seen.token_ok, seen.score, seen.in_active is not None)
        return replace(member, ran=True, row=row, match=match, active=active,
                       verdict=Verdict.LIVE if seen.live else Verdict.FAILED,
                       reason=None if seen.live else Reason(seen.reason))
