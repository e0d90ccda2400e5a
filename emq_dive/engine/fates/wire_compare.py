"""One batch on wire 4 and on wire 6 from the same starting state, and the differences named."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import jobs, keyspace, scripts
from ..echo_mq.connector import Connector, error_text
from ..echo_mq.render import listed
from ..stores import snapshot
from ..stores.protocol import StoreLike
from .answers import Answer, run_verb


@dataclass(frozen=True)
class WireCompare:
    """One batch run on wire 4 and on wire 6 from the same starting state, and how they differ."""

    scripted: Answer
    native: Answer
    differences: tuple[str, ...]


def error_class(answer: Answer) -> str | None:
    """The error class the answer raised (``WRONGTYPE``, ``NOPERM``, ``EMQSTALE``…), or None when it returned."""
    value = answer.value
    if isinstance(value, jobs.LeaseRefused):
        return value.reply.split(" ", 1)[0]
    if isinstance(value, redis.ResponseError):
        return error_text(value).split(" ", 1)[0]
    return None


def _rescored(answer: Answer) -> dict[str, str]:
    """Each member the answer re-scored in active, and its new score, as the answer's writes record them."""
    moved = (w.removeprefix("active ").split(": ", 1) for w in answer.writes if w.startswith("active "))
    return {member: change.split(" → ")[-1] for member, change in moved}


def _moved_back(answer: Answer) -> list[str]:
    """The members the answer re-scored to a lower score than they held, as its writes record them."""
    back = []
    for write in answer.writes:
        if not write.startswith("active "):
            continue
        member, change = write.removeprefix("active ").split(": ", 1)
        old, _, new = change.partition(" → ")
        if old.isdigit() and new.isdigit() and int(new) < int(old):
            back.append(member)
    return back


def _epochs(answer: Answer) -> list[str]:
    return [w.split(" ", 1)[0].removeprefix("job:") for w in answer.writes if " lease_epoch:" in w]


def _deadlines(scripted: Answer, native: Answer) -> list[str]:
    """What the two runs' re-scores have in common: the members, and the deadline each wire gave them."""
    s_scores, n_scores = _rescored(scripted), _rescored(native)
    if not s_scores or s_scores.keys() != n_scores.keys():
        return []
    s_deadlines, n_deadlines = set(s_scores.values()), set(n_scores.values())
    if s_deadlines == n_deadlines and len(s_deadlines) == 1:
        return ["the same members were re-scored to the same deadline on both wires"]
    if len(s_deadlines) == 1 and len(n_deadlines) == 1:
        return [f"the same members were re-scored on both wires, each wire to one deadline from its "
                f"own clock read (wire 4 → {s_deadlines.pop()}, wire 6 → {n_deadlines.pop()})"]
    return ["the same members were re-scored on both wires"]


def differences(scripted: Answer, native: Answer, raw_argv: Sequence[str] | None = None) -> tuple[str, ...]:
    """What a learner should notice between the two runs, each from the runs' own replies and writes."""
    notes = []
    s_err, n_err = error_class(scripted), error_class(native)
    kept = [w for w in scripted.writes if w.startswith("active ")] if s_err and n_err == s_err else []
    if s_err and n_err == s_err:
        notes.append(f"both twins raise {s_err}" + (
            f", but the script kept the writes it made before the bad row ({listed(kept, '; ')}); the native "
            "twin checks every row first and wrote nothing" if kept and not native.writes else ""))
    elif scripted.outcome == native.outcome:
        notes.append("both twins reply the same")
    else:
        notes.append(f"the replies differ: wire 4 {scripted.outcome}; wire 6 {native.outcome}")
    stamped = _epochs(native)
    if stamped:
        unstamped = "; wire 4 writes no lease_epoch" if not _epochs(scripted) else ""
        notes.append(f"wire 6 stamped lease_epoch (the server's run_id) on {listed(stamped)}{unstamped}")
    if n_err == "NOPERM" and s_err is None:
        notes.append("wire 6 opens each row as the caller and refuses with NOPERM; wire 4 served the same user")
    if n_err == "ERR" and s_err is None and raw_argv is not None and len(raw_argv) % 2 == 0:
        notes.append("the script's `while i < #ARGV` never reads the trailing id; the native twin refuses "
                     "the whole call")
    back = _moved_back(scripted)
    if back and not native.writes:
        notes.append(f"the script moved {listed(back)} back to an earlier deadline than the one held and "
                     "replied as if it had extended them; the native twin refused the lease and wrote nothing")
    if not s_err and not n_err:
        notes.extend(_deadlines(scripted, native))
    return tuple(notes)


def compare(store: StoreLike, held: Sequence[tuple[str, Any]], lease_ms: int,
            raw_argv: Sequence[str] | None = None) -> WireCompare:
    """Run the batch on both wires from the store's current state (restored between and after) and name what differs."""
    queue = store.queue
    start = snapshot.take(store.client, queue)
    keys = [keyspace.queue_key(queue, "active"), keyspace.queue_key(queue, "")]
    answers = []
    for verb in ("extend_locks", "EMQ.EXTENDS"):
        call: Callable[[Connector], Any]
        if raw_argv is None:
            call = lambda conn: jobs.extend_locks(conn, queue, list(held), lease_ms)  # noqa: E731
        else:
            call = lambda conn: conn.eval(scripts.extend_locks(), keys, list(raw_argv))  # noqa: E731
        answers.append(run_verb(store, verb, call))
        snapshot.restore(store.client, queue, start)
    scripted, native = answers
    if native.unavailable:
        return WireCompare(scripted, native, (native.unavailable,))
    return WireCompare(scripted, native, differences(scripted, native, raw_argv))
