"""A job's fates: how to put a job into each, and what each verb answers when run from there."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import redis

from .echo_mq import jobs, keyspace, moves, scripts
from .echo_mq.connector import Connector, Exchange, error_text
from .fate_table import BY_KEY, FATES, Fate, fate  # noqa: F401 - the table is part of this module's API
from .stores import snapshot


VERBS = ("extend_lock", "extend_locks", "EMQ.EXTEND", "EMQ.EXTENDS")


def job_id(index: int, width: int = 2) -> str:
    """The id of the batch's ``index``-th job (from 1), e.g. ``JOB01``."""
    return f"JOB{index:0{width}d}"


def prepare(client: redis.Redis, queue: str, job: str, key: str, claim_lease_ms: int) -> int:
    """Put ``job`` into a member fate with real protocol moves; return its holder's token."""
    if not fate(key).member and key != "restricted":
        raise ValueError(f"{key!r} is a fate of a whole call, not of one job")
    moves.enqueue(client, queue, job, group="lane-a" if key == "lane" else None)
    token = moves.claim(client, queue, job, claim_lease_ms)
    _after_claim(client, queue, job, key, claim_lease_ms)
    return token


def _after_claim(client: redis.Redis, queue: str, job: str, key: str, claim_lease_ms: int) -> None:
    """The moves that take a freshly claimed job on to its fate."""
    if key == "gone":
        moves.remove(client, queue, job)
    elif key in ("stale", "reaped"):
        lapsed_at = moves.deadline(client, queue, job)
        moves.reap(client, queue, lapsed_at, only=[job])
        if key == "stale":
            moves.claim(client, queue, job, claim_lease_ms)
    elif key == "wrongtype":
        client.set(keyspace.job_key(queue, job), "not a hash")


def reset(store: Any) -> None:
    """Delete every key of the store's queue, and only those."""
    store.forget()


@dataclass(frozen=True)
class Batch:
    """The held leases of one batch, and the fates they were put in."""

    held: tuple[tuple[str, int], ...]
    fates: tuple[str, ...]
    lease_ms: int


def build_batch(store: Any, fate_keys: Sequence[str], lease_ms: int, claim_lease_ms: int) -> Batch:
    """Reset the queue and set up one job per fate, in order."""
    jobs.check_lease(lease_ms)
    for key in fate_keys:
        if not fate(key).member:
            raise ValueError(f"{key!r} cannot be given to one member of a batch")
    reset(store)
    width = max(2, len(str(len(fate_keys))))
    ids = [job_id(i, width) for i in range(1, len(fate_keys) + 1)]
    client, queue = store.client, store.queue
    moves.enqueue_many(client, queue, [(job, "lane-a" if key == "lane" else None) for job, key in zip(ids, fate_keys)])
    held = tuple(moves.claim_many(client, queue, len(ids), claim_lease_ms))
    for (job, _), key in zip(held, fate_keys):
        _after_claim(client, queue, job, key, claim_lease_ms)
    return Batch(held=held, fates=tuple(fate_keys), lease_ms=lease_ms)


# -- running the verbs -------------------------------------------------------


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
        return _describe(self.value, most) if isinstance(self.value, list) else self.outcome


@dataclass(frozen=True)
class FateRun:
    """The four verbs' answers for one fate, through the project's verbs and, where it teaches more, raw."""

    fate: Fate
    held: tuple[tuple[str, Any], ...]
    answers: tuple[Answer, ...]
    raw_answers: tuple[Answer, ...] = ()
    note: str = ""


def _describe(value: Any, most: int | None = None) -> str:
    if isinstance(value, jobs.LeaseRefused):
        return f"raises {type(value).__name__}: {value.reply}"
    if isinstance(value, redis.ResponseError):
        return f"raises ResponseError: {error_text(value)}"
    if isinstance(value, Exception):
        return f"refused before the wire: {type(value).__name__}: {value}"
    if value is None:
        return "returns None (re-scored)"
    if isinstance(value, list):
        shown = [repr(_short(v)) for v in value[:most]]
        if most is not None and len(value) > most:
            shown.append(f"… ({len(value)} ids in all)")
        return "returns [" + ", ".join(shown) + "]"
    return f"returns {value!r}"


def _diff(before: dict[bytes, Any], after: dict[bytes, Any], queue: str) -> tuple[str, ...]:
    prefix = f"emq:{{{queue}}}:"
    out = []
    for key in sorted(set(before) | set(after)):
        name = key.decode().removeprefix(prefix)
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for field_name in sorted(set(old) | set(new)):
                if old.get(field_name) != new.get(field_name):
                    out.append(f"{name} {field_name.decode()}: {_short(old.get(field_name))} → "
                               f"{_short(new.get(field_name))}")
        else:
            out.append(f"{name}: {_short(old)} → {_short(new)}")
    return tuple(out)


def _short(value: Any) -> str:
    if value is None:
        return "∅"
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


read_state = snapshot.read


def run_verb(store: Any, verb: str, call: Callable[[Connector], Any], client: redis.Redis | None = None) -> Answer:
    """Run ``call`` on a fresh connector for ``verb``'s wire; record the wire, the answer and the writes."""
    wire = 6 if verb.startswith("EMQ.") else 4
    if wire == 6 and not store.native:
        return Answer(verb, wire, unavailable=f"not on this backend: {store.native_reason}")
    conn = Connector(client or store.client, wire)
    before = read_state(store.client, store.queue)
    try:
        value = call(conn)
    except (jobs.LeaseRefused, redis.ResponseError, ValueError, TypeError) as err:
        value = err
    after = read_state(store.client, store.queue)
    return Answer(verb, wire, tuple(conn.log), _describe(value), value, _diff(before, after, store.queue))


def _four(store: Any, queue: str, single: tuple[str, Any], held: Sequence[tuple[str, Any]], lease: Any,
          client: redis.Redis | None = None) -> tuple[Answer, ...]:
    """The four verbs through the project's own Python verbs, each from the same starting state."""
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        if verb in ("extend_lock", "EMQ.EXTEND"):
            call = lambda conn: jobs.extend_lock(conn, queue, single[0], single[1], lease)  # noqa: E731
        else:
            call = lambda conn: jobs.extend_locks(conn, queue, list(held), lease)  # noqa: E731
        answers.append(run_verb(store, verb, call, client))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)


def _raw_four(store: Any, queue: str, single: Sequence[Any], batch: Sequence[Any], numkeys: Any = 2,
              first_key: str | None = None) -> tuple[Answer, ...]:
    """The four verbs as raw wire commands, so inputs the Python verbs refuse can still be sent."""
    active = first_key or keyspace.queue_key(queue, "active")
    row = keyspace.queue_key(queue, "job:") + single[1]
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        script = scripts.extend_lock() if verb in ("extend_lock", "EMQ.EXTEND") else scripts.extend_locks()
        keys = [active, row] if script.name == "extend_lock" else [active, keyspace.queue_key(queue, "")]
        argv = single if script.name == "extend_lock" else batch
        call = lambda conn, s=script, k=keys, a=argv: conn.eval(s, k, a, numkeys=numkeys)  # noqa: E731
        answers.append(run_verb(store, verb, call))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)


def _restricted_client(store: Any) -> redis.Redis:
    """A second connection, logged in as a user who may write active but only read the job rows."""
    user = f"emq-dive-{store.queue}"
    password = secrets.token_hex(16)
    q = store.queue
    store.client.execute_command("ACL", "SETUSER", user, "reset", "on", f">{password}", "+@all", "-@dangerous",
                                 f"~emq:{{{q}}}:active", f"~emq:{{{q}}}:", f"%R~emq:{{{q}}}:job:*")
    store._closers.append(lambda: store.client.execute_command("ACL", "DELUSER", user))
    kwargs = dict(store.client.connection_pool.connection_kwargs)
    kwargs.update(username=user, password=password)
    restricted = redis.Redis(**{k: v for k, v in kwargs.items() if k in (
        "host", "port", "path", "db", "username", "password", "ssl")})
    store._closers.append(restricted.close)
    return restricted


def run_fate(store: Any, key: str, lease_ms: int = 30_000, claim_lease_ms: int = 10_000) -> FateRun:
    """Set up ``key`` in a fresh queue state and run all four verbs on it, each from the same start."""
    the_fate = fate(key)
    reset(store)
    client, queue = store.client, store.queue
    a, x, b = "JOBA", "JOBX", "JOBB"

    def around(middle: str | None) -> list[tuple[str, int]]:
        held = [(a, prepare(client, queue, a, "live", claim_lease_ms))]
        if middle is not None:
            held.append((x, prepare(client, queue, x, middle, claim_lease_ms)))
        held.append((b, prepare(client, queue, b, "live", claim_lease_ms)))
        return held

    if the_fate.member:
        held = around(key)
        answers = _four(store, queue, held[1], held, lease_ms)
        return FateRun(the_fate, tuple(held), answers)
    if key == "restricted":
        if not store.acl:
            return FateRun(the_fate, (), tuple(Answer(v, 6 if v.startswith("EMQ.") else 4,
                                                      unavailable=store.acl_reason) for v in VERBS))
        if store.kind != "server":
            return FateRun(the_fate, (), tuple(Answer(v, 6 if v.startswith("EMQ.") else 4,
                           unavailable="the app creates ACL users only on a server it spawned") for v in VERBS))
        held = around(None)
        answers = _four(store, queue, held[0], held, lease_ms, client=_restricted_client(store))
        return FateRun(the_fate, tuple(held), answers, note="sent as a user with %R~ on the job rows")
    if key == "empty":
        single = tuple(around(None)[0])
        reset(store)
        start = snapshot.take(client, queue)
        answers = (Answer("extend_lock", 4, unavailable="the single verb always names one job"),
                   run_verb(store, "extend_locks", lambda conn: jobs.extend_locks(conn, queue, [], lease_ms)),
                   Answer("EMQ.EXTEND", 6, unavailable="the single verb always names one job"),
                   run_verb(store, "EMQ.EXTENDS", lambda conn: jobs.extend_locks(conn, queue, [], lease_ms)))
        snapshot.restore(client, queue, start)
        return FateRun(the_fate, (), answers, note=f"(no job; {single[0]} unused)")
    held = around(None)
    (ida, ta), (idb, tb) = held
    lease = str(lease_ms)
    if key == "unpaired":
        raw = _raw_four(store, queue, [lease, ida, str(ta), idb], [lease, ida, str(ta), idb, str(tb), "JOBZ"])
        return FateRun(the_fate, tuple(held) + (("JOBZ", None),), (), raw,
                       note="only the raw wire can send a trailing id: extend_locks flattens whole pairs")
    if key == "ill-formed":
        bad = "JOB 7"
        answers = _four(store, queue, (bad, 1), [held[0], (bad, 1), held[1]], lease_ms)
        return FateRun(the_fate, (held[0], (bad, 1), held[1]), answers)
    if key == "bad-lease":
        answers = _four(store, queue, held[0], held, 0)
        raw = _raw_four(store, queue, ["0", ida, str(ta)], ["0", ida, str(ta), idb, str(tb)])
        raw += _raw_four(store, queue, ["-5", ida, str(ta)], ["-5", ida, str(ta), idb, str(tb)])
        raw += _raw_four(store, queue, ["1.5", ida, str(ta)], ["1.5", ida, str(ta), idb, str(tb)])
        return FateRun(the_fate, tuple(held), answers, raw,
                       note="the verbs refuse 0 before the wire; the raw rows send 0, -5 and 1.5")
    if key == "bad-shape":
        raw = _raw_four(store, queue, [lease, ida, str(ta)], [lease, ida, str(ta), idb, str(tb)], numkeys=1)
        raw += _raw_four(store, queue, [lease, ida, str(ta)], [lease, ida, str(ta), idb, str(tb)],
                         first_key=f"emq:{{{queue}}}:pending")
        return FateRun(the_fate, tuple(held), (), raw, note="numkeys 1, then KEYS[1] = pending")
    raise AssertionError(f"fate {key!r} has no runner")  # every key in FATES is handled above


@dataclass(frozen=True)
class WireCompare:
    """One batch run on wire 4 and on wire 6 from the same starting state, and how they differ."""

    scripted: Answer
    native: Answer
    differences: tuple[str, ...]


def _listed(items: Sequence[str], sep: str = ", ", most: int = 8) -> str:
    """``items`` joined, or for a long list its first ``most`` and how many there are in all."""
    if len(items) <= most:
        return sep.join(items)
    return f"{sep.join(items[:most])}{sep}… ({len(items)} in all)"


def _error_class(answer: Answer) -> str | None:
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


def _epochs(answer: Answer) -> list[str]:
    return [w.split(" ", 1)[0].removeprefix("job:") for w in answer.writes if " lease_epoch:" in w]


def compare(store: Any, held: Sequence[tuple[str, Any]], lease_ms: int, raw_argv: Sequence[str] | None = None
            ) -> WireCompare:
    """Run the batch on both wires from the store's current state (restored between and after) and name what differs."""
    queue = store.queue
    start = snapshot.take(store.client, queue)
    keys = [keyspace.queue_key(queue, "active"), keyspace.queue_key(queue, "")]
    answers = []
    for verb in ("extend_locks", "EMQ.EXTENDS"):
        if raw_argv is None:
            call = lambda conn: jobs.extend_locks(conn, queue, list(held), lease_ms)  # noqa: E731
        else:
            call = lambda conn: conn.eval(scripts.extend_locks(), keys, list(raw_argv))  # noqa: E731
        answers.append(run_verb(store, verb, call))
        snapshot.restore(store.client, queue, start)
    scripted, native = answers
    if native.unavailable:
        return WireCompare(scripted, native, (native.unavailable,))
    notes = []
    s_err, n_err = _error_class(scripted), _error_class(native)
    if scripted.outcome == native.outcome:
        notes.append("both twins reply the same")
    else:
        notes.append(f"the replies differ: wire 4 {scripted.outcome}; wire 6 {native.outcome}")
    stamped = _epochs(native)
    if stamped:
        unstamped = "; wire 4 writes no lease_epoch" if not _epochs(scripted) else ""
        notes.append(f"wire 6 stamped lease_epoch (the server's run_id) on {_listed(stamped)}{unstamped}")
    if s_err and n_err == s_err:
        kept = [w for w in scripted.writes if w.startswith("active ")]
        if kept and not native.writes:
            notes.append(f"both refuse with {s_err}, but the script kept the writes it made before the bad row "
                         f"({_listed(kept, '; ')}); the native twin checks every row first and wrote nothing")
    if n_err == "NOPERM" and s_err is None:
        notes.append("wire 6 opens each row as the caller and refuses with NOPERM; wire 4 served the same user")
    if n_err == "ERR" and s_err is None and raw_argv is not None and len(raw_argv) % 2 == 0:
        notes.append("the script's `while i < #ARGV` never reads the trailing id; the native twin refuses "
                     "the whole call")
    s_scores, n_scores = _rescored(scripted), _rescored(native)
    if s_scores and s_scores.keys() == n_scores.keys() and not s_err and not n_err:
        s_deadlines, n_deadlines = set(s_scores.values()), set(n_scores.values())
        if s_deadlines == n_deadlines and len(s_deadlines) == 1:
            notes.append("the same members were re-scored to the same deadline on both wires")
        elif len(s_deadlines) == 1 and len(n_deadlines) == 1:
            notes.append(f"the same members were re-scored on both wires, each wire to one deadline from its "
                         f"own clock read (wire 4 → {s_deadlines.pop()}, wire 6 → {n_deadlines.pop()})")
        else:
            notes.append("the same members were re-scored on both wires")
    return WireCompare(scripted, native, tuple(notes))
