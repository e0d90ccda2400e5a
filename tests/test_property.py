"""Random batches of random fates: stepped run = EVALSHA run = native run, and fakeredis = the real server.

Every batch is put into the store by real protocol moves (``fates.prepare``). The expected answer is
computed here, independently of the engine, from the store's starting state by the seed's three checks:
a row exists, its attempts equal the token (as strings), the id is in active.

Budget: ``max_examples`` is 2,000 per property when ``CI`` is set, 100 otherwise.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, keyspace, moves
from emq_dive.engine.echo_mq.connector import Connector, error_text
from emq_dive.engine.stepper import Stepper, Verdict
from emq_dive.engine.stores import snapshot

try:
    from tests.conftest import FROZEN
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest import FROZEN

EXAMPLES = 2000 if os.environ.get("CI") else 100
NOW_MS = int(FROZEN * 1000)
CLAIM = 10_000
MEMBER_FATES = ("live", "gone", "stale", "reaped", "lane")
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"

SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# the verbs take leases up to jobs.MAX_LEASE_MS (2**52), so every deadline is an exact integer score
leases = st.one_of(st.integers(1, 120_000),
                   st.sampled_from([1, CLAIM - 1, CLAIM, CLAIM + 1, 2**31, 10**12, jobs.MAX_LEASE_MS]),
                   st.integers(1, jobs.MAX_LEASE_MS))


@dataclass(frozen=True)
class Spec:
    """A random batch: the jobs' fates, which of them are held (in order, repeats allowed), and how."""

    job_fates: tuple[str, ...]
    picks: tuple[int, ...]
    skews: tuple[int, ...]
    """Added to the real token of each held pair: non-zero makes the caller's token stale."""
    lease: int
    walk: tuple[str, ...]
    """Moves made mid-way through the stepped run before running it to the end."""


@st.composite
def specs(draw: Any, pool: tuple[str, ...] = MEMBER_FATES, must: str | None = None) -> Spec:
    job_fates = list(draw(st.lists(st.sampled_from(pool), min_size=0, max_size=8)))
    if must is not None:
        job_fates.insert(draw(st.integers(0, len(job_fates))), must)
    size = draw(st.integers(0, 12)) if job_fates else 0
    picks = draw(st.lists(st.integers(0, len(job_fates) - 1), min_size=size, max_size=size)) if size else []
    if must is not None and job_fates.index(must) not in picks:
        picks.insert(draw(st.integers(0, len(picks))), job_fates.index(must))
    skews = draw(st.lists(st.sampled_from([0, 0, 0, 0, 1, -1]), min_size=len(picks), max_size=len(picks)))
    walk = draw(st.lists(st.sampled_from(["forward", "forward", "back", "home"]), max_size=16))
    return Spec(tuple(job_fates), tuple(picks), tuple(skews), draw(leases), tuple(walk))


def setup(store: Any, spec: Spec) -> list[tuple[str, int]]:
    """Reset the queue and put each job into its fate by real moves; return the held pairs."""
    fates.reset(store)
    tokens = [fates.prepare(store.client, store.queue, fates.job_id(i), key, CLAIM)
              for i, key in enumerate(spec.job_fates, start=1)]
    return [(fates.job_id(i + 1), tokens[i] + skew) for i, skew in zip(spec.picks, spec.skews, strict=True)]


# -- the oracle: the seed's three checks, read off the starting state ----------------------------


def verdicts(store: Any, start: dict[bytes, Any], held: list[tuple[str, int]]) -> list[bool]:
    """For each held pair, in order: do all three checks pass?"""
    active = start.get(keyspace.queue_key(store.queue, "active").encode(), {})
    out = []
    for job_id, token in held:
        row = start.get(keyspace.job_key(store.queue, job_id).encode())
        attempts = row.get(b"attempts") if isinstance(row, dict) else None
        out.append(attempts is not None and attempts == str(token).encode() and job_id.encode() in active)
    return out


def expected_failed(store: Any, start: dict[bytes, Any], held: list[tuple[str, int]]) -> tuple[list[str], set[str]]:
    """The ids a correct run fails (in input order), and the ids it re-scores."""
    passed = verdicts(store, start, held)
    failed = [job_id for (job_id, _), ok in zip(held, passed, strict=True) if not ok]
    return failed, {job_id for (job_id, _), ok in zip(held, passed, strict=True) if ok}


def expected_end(store: Any, start: dict[bytes, Any], live: set[str], score: int, stamped: bool
                 ) -> dict[bytes, Any]:
    """The starting state with every live member at ``score`` (and, natively, its row stamped)."""
    end = {key: dict(value) if isinstance(value, dict) else value for key, value in start.items()}
    active = keyspace.queue_key(store.queue, "active").encode()
    for job_id in live:
        end[active][job_id.encode()] = float(score)
        if stamped:
            end[keyspace.job_key(store.queue, job_id).encode()][b"lease_epoch"] = store.run_id()
    return end


def run_score(store: Any, state: dict[bytes, Any], live: set[str], before: int, after: int, lease: int) -> int:
    """The one score every live member got; it must be now+lease for a now read during the run."""
    active = state.get(keyspace.queue_key(store.queue, "active").encode(), {})
    scores = {active.get(job_id.encode()) for job_id in live}
    assert len(scores) == 1 and None not in scores, f"live members scored apart: {scores}"
    score = int(scores.pop())
    assert before + lease <= score <= after + lease, f"{score} is not now+{lease} within {before}..{after}"
    if store.kind == "fakeredis":
        assert score == NOW_MS + lease
    return score


def each_run(store: Any, held: list[tuple[str, int]], spec: Any, start_snap: Any):
    """Run the batch four ways from the same start: atomic and stepped, on wire 4 and wire 6."""
    for wire in (4, 6):
        for how in ("atomic", "stepped"):
            snapshot.restore(store.client, store.queue, start_snap)
            if how == "atomic":
                stepper = None
                reply, end, before, after = atomic(store, held, spec.lease, wire)
            else:
                stepper, reply, end, before, after = stepped(store, held, spec.lease, wire, spec.walk)
            yield how, wire, stepper, reply, end, before, after


def picture(store: Any) -> Any:
    """The queue's bytes (DUMP) on a real server; its contents on fakeredis, whose DUMP pickles dict order."""
    if store.kind == "fakeredis":
        return fates.read_state(store.client, store.queue)
    return snapshot.take(store.client, store.queue)


def check_verify(stepper: Stepper, lease: int, live: set[str], where: str) -> None:
    """The stepper's own check agrees, and names the members this model says are live."""
    agreement = stepper.verify()
    assert agreement.agree, (where, agreement.differences)
    assert set(agreement.rescored) == live


def atomic(store: Any, held: list[tuple[str, int]], lease: int, wire: int) -> tuple[Any, dict, int, int]:
    before = moves.server_now_ms(store.client)
    try:
        reply: Any = jobs.extend_locks(Connector(store.client, wire), store.queue, held, lease)
    except redis.ResponseError as err:
        reply = err
    after = moves.server_now_ms(store.client)
    return reply, fates.read_state(store.client, store.queue), before, after


def stepped(store: Any, held: list[tuple[str, int]], lease: int, wire: int, walk: tuple[str, ...]
            ) -> tuple[Stepper, Any, dict, int, int]:
    before = moves.server_now_ms(store.client)
    stepper = Stepper(store, held, lease, wire)
    start_dump = picture(store)
    for move in walk:
        getattr(stepper, move)()
        if stepper.position == 0:
            assert picture(store) == start_dump, "back at the handle, the store is back"
    last = stepper.end()
    after = moves.server_now_ms(store.client)
    reply = (redis.ResponseError(last.error) if last.error is not None
             else [f.decode() if isinstance(f, bytes) else f for f in last.reply])
    return stepper, reply, fates.read_state(store.client, store.queue), before, after


# -- stepped = EVALSHA = native, on each backend ------------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(spec=specs())
def test_stepped_scripted_and_native_runs_agree(any_store, spec):
    note(repr(spec))
    held = setup(any_store, spec)
    start_snap = snapshot.take(any_store.client, any_store.queue)
    start = fates.read_state(any_store.client, any_store.queue)
    failed, live = expected_failed(any_store, start, held)
    # the fates themselves say who is live
    for ok, pick, skew in zip(verdicts(any_store, start, held), spec.picks, spec.skews, strict=True):
        fate_key = spec.job_fates[pick]
        # a skew of +1 on a stale token is the current holder's token (the re-claim bumped attempts)
        assert ok == (fate_key in ("live", "lane") if skew == 0 else fate_key == "stale" and skew == 1)
    ends = {}
    for how, wire, stepper, reply, end, before, after in each_run(any_store, held, spec, start_snap):
        where = f"{how} wire {wire}"
        assert reply == failed, where
        score = run_score(any_store, end, live, before, after, spec.lease) if live else 0
        assert end == expected_end(any_store, start, live, score, stamped=wire == 6), where
        ends[how, wire] = end
        if how == "stepped":
            last = stepper.current
            assert list(last.failed) == failed and last.error is None
            assert {m.id for m in last.members if m.verdict is Verdict.RESCORED} == live
            if live:
                assert last.now + spec.lease == score
            check_verify(stepper, spec.lease, live, where)
            assert fates.read_state(any_store.client, any_store.queue) == end, "verify restored the stepped end"
    # the twins differ only in lease_epoch (and, on a live clock, in the now each run read)
    def shape(state):
        return {key: ({f: v for f, v in value.items() if f != b"lease_epoch"} if b":job:" in key else
                      {m: (s if m.decode() not in live else "now+lease") for m, s in value.items()})
                if isinstance(value, dict) else value for key, value in state.items()}
    shapes = [shape(end) for end in ends.values()]
    assert all(other == shapes[0] for other in shapes[1:]), shapes


# -- the documented difference: a WRONGTYPE row in the batch -----------------------------------


@pytest.mark.slow
@SETTINGS
@given(spec=specs(must="wrongtype"))
def test_wrongtype_in_a_batch_is_the_documented_difference(any_store, spec):
    """Both wires refuse with WRONGTYPE; the script keeps the ZADDs before the bad row, the twin writes nothing."""
    note(repr(spec))
    held = setup(any_store, spec)
    start_snap = snapshot.take(any_store.client, any_store.queue)
    start = fates.read_state(any_store.client, any_store.queue)
    first_bad = next(i for i, pick in enumerate(spec.picks) if spec.job_fates[pick] == "wrongtype")
    _, live_before_bad = expected_failed(any_store, start, held[:first_bad])
    for how, wire, stepper, reply, end, before, after in each_run(any_store, held, spec, start_snap):
        where = f"{how} wire {wire}"
        assert isinstance(reply, redis.ResponseError), where
        assert error_text(reply).startswith(WRONGTYPE), (where, error_text(reply))
        if wire == 6 or not live_before_bad:
            assert end == start, f"{where}: wrote {end}"
        else:
            score = run_score(any_store, end, live_before_bad, before, after, spec.lease)
            assert end == expected_end(any_store, start, live_before_bad, score, stamped=False), where
        if how == "stepped":
            assert stepper.current.done and stepper.current.error.startswith("WRONGTYPE")
            ran = [m.ran for m in stepper.current.members]
            if wire == 4:
                assert ran == [i <= first_bad for i in range(len(held))], "the script stops at the bad row"
            check_verify(stepper, spec.lease, live_before_bad if wire == 4 else set(), where)


# -- fakeredis = the real server -------------------------------------------------------------


def _normalised(store: Any, state: dict[bytes, Any], start: dict[bytes, Any], now: int | None,
                lease: int, setup_clock: tuple[int, int]) -> dict[str, Any]:
    """A state with the queue name, the run's clock and run_id written symbolically."""
    prefix = f"emq:{{{store.queue}}}:".encode()
    active = prefix + b"active"
    run_id = store.run_id()
    out: dict[str, Any] = {}
    for key, value in state.items():
        name = key.removeprefix(prefix).decode()
        if key == active:
            value = {m: ("now+lease" if now is not None and s == now + lease else
                         "claim" if setup_clock[0] + CLAIM <= s <= setup_clock[1] + CLAIM else s)
                     for m, s in value.items()}
        elif isinstance(value, dict):
            value = {f: (b"<run_id>" if f == b"lease_epoch" and v == run_id else v) for f, v in value.items()}
        out[name] = value
    return out


@pytest.mark.slow
@pytest.mark.server
@SETTINGS
@given(spec=specs(), wire=st.sampled_from([4, 6]))
def test_fakeredis_equals_the_real_server(fake_store, server_store, spec, wire):
    note(repr(spec))
    if CLAIM - 1000 <= spec.lease <= CLAIM:
        # now+lease could then equal a claim deadline read a few ms earlier: keep the two apart
        spec = Spec(spec.job_fates, spec.picks, spec.skews, CLAIM + 1, spec.walk)
    seen = {}
    for store in (fake_store, server_store):
        t0 = moves.server_now_ms(store.client)
        held = setup(store, spec)
        t1 = moves.server_now_ms(store.client)
        start = fates.read_state(store.client, store.queue)
        reply, end, before, after = atomic(store, held, spec.lease, wire)
        _, live = expected_failed(store, start, held)
        now = run_score(store, end, live, before, after, spec.lease) - spec.lease if live else None
        rescored = {m.decode() for m, s in end.get(f"emq:{{{store.queue}}}:active".encode(), {}).items()
                    if now is not None and s == now + spec.lease}
        seen[store.kind] = (held, reply, rescored,
                            _normalised(store, start, start, None, spec.lease, (t0, t1)),
                            _normalised(store, end, start, now, spec.lease, (t0, t1)))
    fake, real = seen["fakeredis"], seen["server"]
    assert fake[0] == real[0], "the same moves give the same tokens"
    assert fake[1] == real[1], "the same failed list"
    assert fake[2] == real[2], "the same re-scored members"
    assert fake[3] == real[3], "the same starting state"
    assert fake[4] == real[4], "the same end state"
