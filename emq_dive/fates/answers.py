"""Running one verb from a fate's starting state, and recording what it sent, answered and wrote."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import jobs, keyspace, scripts
from ..echo_mq.connector import Connector, Exchange
from ..render import outcome_text, short
from ..stores import snapshot
from ..stores.protocol import StoreLike

VERBS = ("extend_lock", "extend_locks", "EMQ.EXTEND", "EMQ.EXTENDS")
SINGLE = frozenset({"extend_lock", "EMQ.EXTEND"})
"""The verbs that name one job; the others take the whole batch."""

read_state = snapshot.read


def wire_of(verb: str) -> int:
    """The wire a verb travels on: 6 for the native commands, 4 for the scripts."""
    return 6 if verb.startswith("EMQ.") else 4


@dataclass(frozen=True)
class Answer:
    """What one verb did from the fate's starting state: what it sent, its answer, what it wrote."""

    verb: str
    wire: int
    exchanges: tuple[Exchange, ...] = ()
    outcome: str = ""
    value: Any = None
    writes: tuple[str, ...] = ()
    unavailable: str = ""

    @property
    def sent_nothing(self) -> bool:
        """True when the verb refused before anything reached the wire."""
        return not self.exchanges

    def summary(self, most: int) -> str:
        """The outcome, with a long list of ids cut after ``most`` and counted."""
        return outcome_text(self.value, most) if isinstance(self.value, list) else self.outcome


def unavailable(reason: str, verbs: Sequence[str] = VERBS) -> tuple[Answer, ...]:
    """An answer per verb that could not run here, saying why."""
    return tuple(Answer(verb, wire_of(verb), unavailable=reason) for verb in verbs)


def _diff(before: dict[bytes, Any], after: dict[bytes, Any], queue: str) -> tuple[str, ...]:
    """Each key or hash field that changed, as ``name: old → new`` with the queue's prefix left off."""
    prefix = keyspace.queue_key(queue, "")
    out = []
    for key in sorted(set(before) | set(after)):
        name = key.decode().removeprefix(prefix)
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for field_name in sorted(set(old) | set(new)):
                if old.get(field_name) != new.get(field_name):
                    out.append(f"{name} {field_name.decode()}: {short(old.get(field_name))} → "
                               f"{short(new.get(field_name))}")
        else:
            out.append(f"{name}: {short(old)} → {short(new)}")
    return tuple(out)


def run_verb(store: StoreLike, verb: str, call: Callable[[Connector], Any],
             client: redis.Redis | None = None) -> Answer:
    """Run ``call`` on a fresh connector for ``verb``'s wire; record the wire, the answer and the writes."""
    wire = wire_of(verb)
    if wire == 6 and not store.native:
        return Answer(verb, wire, unavailable=f"not on this backend: {store.native_reason}")
    conn = Connector(client or store.client, wire)
    before = read_state(store.client, store.queue)
    value: Any
    try:
        value = call(conn)
    except (jobs.LeaseRefused, redis.ResponseError, ValueError, TypeError) as err:
        value = err
    after = read_state(store.client, store.queue)
    return Answer(verb, wire, tuple(conn.log), outcome_text(value), value, _diff(before, after, store.queue))


def four(store: StoreLike, single: tuple[str, Any], held: Sequence[tuple[str, Any]], lease: Any,
         client: redis.Redis | None = None) -> tuple[Answer, ...]:
    """The four verbs through the project's own Python verbs, each from the same starting state."""
    queue = store.queue
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        call: Callable[[Connector], Any]
        if verb in SINGLE:
            call = lambda conn: jobs.extend_lock(conn, queue, single[0], single[1], lease)  # noqa: E731
        else:
            call = lambda conn: jobs.extend_locks(conn, queue, list(held), lease)  # noqa: E731
        answers.append(run_verb(store, verb, call, client))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)


def raw_four(store: StoreLike, single: Sequence[Any], batch: Sequence[Any], numkeys: Any = 2,
             first_key: str | None = None) -> tuple[Answer, ...]:
    """The four verbs as raw wire commands, so inputs the Python verbs refuse can still be sent."""
    queue = store.queue
    active = first_key or keyspace.queue_key(queue, "active")
    row = keyspace.job_key(queue, single[1])
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        if verb in SINGLE:
            script, keys, argv = scripts.extend_lock(), [active, row], single
        else:
            script, keys, argv = scripts.extend_locks(), [active, keyspace.queue_key(queue, "")], batch
        call = lambda conn, s=script, k=keys, a=argv: conn.eval(s, k, a, numkeys=numkeys)  # noqa: E731
        answers.append(run_verb(store, verb, call))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)
