"""A fate's run: the four verbs on one fate, each fate's set-up kept in its entry of RUNNERS."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import jobs, keyspace
from ..echo_mq.connector import Connector
from ..fate_table import BY_KEY, Fate, fate
from ..stores import snapshot
from ..stores.protocol import StoreLike
from .answers import SINGLE, VERBS, Answer, four, raw_four, run_verb, unavailable
from .availability import unavailable_reason
from .setups import prepare, reset

A, X, B = "JOBA", "JOBX", "JOBB"
"""The jobs of a fate run: X in the fate, between two live leases A and B."""
ILL_FORMED = "JOB{7}"
"""The ill-formed fate's id: its '{' would open a hash tag inside the row key."""


@dataclass(frozen=True)
class FateRun:
    """The four verbs' answers for one fate, through the project's verbs and, where it teaches more, raw."""

    fate: Fate
    held: tuple[tuple[str, Any], ...]
    answers: tuple[Answer, ...]
    raw_answers: tuple[Answer, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Setting:
    """What every runner starts from: the store with its queue reset, the fate, and the lease lengths."""

    store: StoreLike
    fate: Fate
    lease_ms: int
    claim_lease_ms: int

    def around(self, middle: str | None = None) -> list[tuple[str, int]]:
        """Hold A, then X in the member fate ``middle`` (when given), then B; return the held leases."""
        client, queue = self.store.client, self.store.queue
        held = [(A, prepare(client, queue, A, "live", self.claim_lease_ms))]
        if middle is not None:
            held.append((X, prepare(client, queue, X, middle, self.claim_lease_ms)))
        held.append((B, prepare(client, queue, B, "live", self.claim_lease_ms)))
        return held


Runner = Callable[[Setting], FateRun]


def _member(run: Setting) -> FateRun:
    held = run.around(run.fate.key)
    return FateRun(run.fate, tuple(held), four(run.store, held[1], held, run.lease_ms))


def _restricted_client(store: StoreLike) -> redis.Redis:
    """A second connection, logged in as a user who may write active but only read the job rows."""
    user = f"emq-dive-{store.queue}"
    password = secrets.token_hex(16)
    q = store.queue
    store.client.execute_command("ACL", "SETUSER", user, "reset", "on", f">{password}", "+@all", "-@dangerous",
                                 f"~{keyspace.key_pattern(q, 'active')}", f"~{keyspace.key_pattern(q, '')}",
                                 f"%R~{keyspace.job_pattern(q)}")
    store.on_close(lambda: store.client.execute_command("ACL", "DELUSER", user))
    kwargs = dict(store.client.connection_pool.connection_kwargs)
    kwargs.update(username=user, password=password)
    restricted = redis.Redis(**{k: v for k, v in kwargs.items() if k in (
        "host", "port", "path", "db", "username", "password", "ssl")})
    store.on_close(restricted.close)
    return restricted


RESTRICTED_USER = ("sent as a user who may write active but may only read the job rows (its ACL rule %R~ on "
                   "the row keys' pattern grants read-only access to the keys that match it)")


def _restricted(run: Setting) -> FateRun:
    store = run.store
    held = run.around()
    answers = four(store, held[0], held, run.lease_ms, client=_restricted_client(store))
    return FateRun(run.fate, tuple(held), answers, note=RESTRICTED_USER)


def _empty(run: Setting) -> FateRun:
    store, queue, lease_ms = run.store, run.store.queue, run.lease_ms
    start = snapshot.take(store.client, queue)
    one_job = "the single verb always names one job"
    answers = (*unavailable(one_job, ["extend_lock"]),
               run_verb(store, "extend_locks", lambda conn: jobs.extend_locks(conn, queue, [], lease_ms), job=""),
               *unavailable(one_job, ["EMQ.EXTEND"]),
               run_verb(store, "EMQ.EXTENDS", lambda conn: jobs.extend_locks(conn, queue, [], lease_ms), job=""))
    snapshot.restore(store.client, queue, start)
    return FateRun(run.fate, (), answers, note="no job is held: the batch verbs send the lease alone, with no "
                   "(id, token) pair after it, and the single verbs, which always name one job, have none to name")


def _unpaired(run: Setting) -> FateRun:
    held = run.around()
    (ida, ta), (idb, tb) = held
    lease = str(run.lease_ms)
    raw = raw_four(run.store, [lease, ida, str(ta), idb], [lease, ida, str(ta), idb, str(tb), "JOBZ"])
    return FateRun(run.fate, (*held, ("JOBZ", None)), (), raw,
                   note="only the raw wire can send a trailing id: extend_locks flattens whole pairs")


def _ill_formed(run: Setting) -> FateRun:
    held = run.around()
    bad = (ILL_FORMED, 1)
    answers = four(run.store, bad, [held[0], bad, held[1]], run.lease_ms)
    return FateRun(run.fate, (held[0], bad, held[1]), answers)


def _bad_lease(run: Setting) -> FateRun:
    held = run.around()
    (ida, ta), (idb, tb) = held
    answers = four(run.store, held[0], held, 0)
    raw: tuple[Answer, ...] = ()
    for lease in ("0", "-5", "1.5"):
        raw += raw_four(run.store, [lease, ida, str(ta)], [lease, ida, str(ta), idb, str(tb)])
    return FateRun(run.fate, tuple(held), answers, raw,
                   note="the verbs refuse 0 before the wire; the raw rows send 0, -5 and 1.5")


def _bad_shape(run: Setting) -> FateRun:
    held = run.around()
    (ida, ta), (idb, tb) = held
    lease = str(run.lease_ms)
    single, batch = [lease, ida, str(ta)], [lease, ida, str(ta), idb, str(tb)]
    raw = raw_four(run.store, single, batch, numkeys=1)
    raw += raw_four(run.store, single, batch, first_key=keyspace.queue_key(run.store.queue, "pending"))
    return FateRun(run.fate, tuple(held), (), raw, note="numkeys 1, so the scripts' KEYS[2] is nil; then KEYS[1] "
                   "= pending, which holds none of the ids")


WHY_ONE_TAG = ("a cluster runs a call only when every key it declares hashes to one slot, so the protocol builds "
               "every key of a queue (active, the base, each row derived from it) under one {q} tag")


def _no_hashtag(run: Setting) -> FateRun:
    from ..stores.cluster import ClusterStore, Untagged, refusing_node  # loaded by the one fate that needs a cluster

    store = run.store
    assert isinstance(store, ClusterStore), "run_fate runs no-hashtag only on a cluster"
    held = run.around()
    queue, lease_ms, single = store.queue, run.lease_ms, held[0]
    batch_keys = [keyspace.queue_key(queue, "active"), keyspace.queue_key(queue, "")]
    single_keys = [keyspace.queue_key(queue, "active"), keyspace.job_key(queue, single[0])]
    answers = []
    for verb in VERBS:
        call: Callable[[Connector], Any]
        if verb in SINGLE:
            keys = single_keys
            call = lambda conn: jobs.extend_lock(Untagged(conn), queue, single[0], single[1], lease_ms)  # noqa: E731
        else:
            keys = batch_keys
            call = lambda conn: jobs.extend_locks(Untagged(conn), queue, held, lease_ms)  # noqa: E731
        target = store.client_on(refusing_node(store, keys).address)
        answers.append(run_verb(store, verb, call, client=target))
    return FateRun(run.fate, tuple(held), tuple(answers), note=WHY_ONE_TAG)


RUNNERS: dict[str, Runner] = {
    **{key: _member for key, entry in BY_KEY.items() if entry.member},
    "restricted": _restricted,
    "unpaired": _unpaired,
    "ill-formed": _ill_formed,
    "bad-lease": _bad_lease,
    "bad-shape": _bad_shape,
    "empty": _empty,
    "no-hashtag": _no_hashtag,
}
"""Every fate of the table and how its run is set up: a member fate holds X in it between A and B."""


def run_fate(store: StoreLike, key: str, lease_ms: int = 30_000, claim_lease_ms: int = 10_000) -> FateRun:
    """Set up ``key`` in a fresh queue state and run all four verbs on it, each from the same start."""
    setting = Setting(store, fate(key), lease_ms, claim_lease_ms)
    reset(store)
    reason = unavailable_reason(store, setting.fate)
    if reason:
        return FateRun(setting.fate, (), unavailable(reason))
    return RUNNERS[key](setting)
