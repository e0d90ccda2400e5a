"""What the learner reads: values, deadlines, answers and the show-N-count-the-rest limits, from real runs."""

from __future__ import annotations

import pytest
import redis

from emq_dive.engine import fates
from emq_dive.engine.echo_mq import jobs, render
from emq_dive.engine.echo_mq.connector import Connector
from emq_dive.engine.stepper import Stepper


def test_values_render_as_the_store_holds_them() -> None:
    assert render.text(b"JOB01") == "JOB01" and render.text(7) == "7"
    assert render.text(b"\xff") == "\\xff"  # bad UTF-8 shows as an escape, never raises
    assert render.short(None) == "∅" and render.short(1700000030000.0) == "1700000030000"
    assert render.short(1.5) == "1.5" and render.short(b"2") == "2"
    assert render.clip(None, 5) == render.MISSING and render.clip("abcdef", 4) == "abc…"
    assert render.clip("abc", 3) == "abc"
    assert render.listed(["a", "b"]) == "a, b"
    assert render.listed([str(i) for i in range(10)], most=2) == "0, 1, … (10 in all)"


def test_deadlines_are_relative_to_the_shared_now() -> None:
    assert render.relative(None, 5) == "nil" and render.relative(7, None) == "7"
    assert render.relative(1030, 1000) == "now+30" and render.relative(1000, 1000) == "now"
    assert render.deadline(b"1030", 1000) == "now+30" and render.deadline(1030.0, 1000) == "now+30"
    assert render.deadline(b"not a score", 1000) == "not a score"


def test_the_handle_s_answer_from_a_real_stepped_run(fake_store) -> None:
    """A batch with one stale member: the handle returns that id, read back from the store's reply."""
    batch = fates.build_batch(fake_store, ["live", "stale"], 30_000, 10_000)
    stepper = Stepper(fake_store, batch.held, 30_000)
    while not stepper.finished:
        stepper.forward()
    assert render.answer_text(stepper.handle_answer()[1]) == "returns ['JOB02']"
    ids = [f"JOB{i:02d}" for i in range(render.MAX_ITEMS + 2)]
    assert render.answer_text(ids).endswith(f", …] ({len(ids)} ids)")
    assert render.answer_text(redis.ResponseError("WRONGTYPE x")) == "raises ResponseError: WRONGTYPE x"


def test_the_verbs_outcomes_from_real_runs(fake_store) -> None:
    batch = fates.build_batch(fake_store, ["live", "gone"], 30_000, 10_000)
    (live, token), (gone, gone_token) = batch.held
    conn = Connector(fake_store.client)
    assert render.outcome_text(jobs.extend_lock(conn, fake_store.queue, live, token, 30_000)) == \
        "returns None (re-scored)"
    with pytest.raises(jobs.Gone) as gone_refusal:
        jobs.extend_lock(conn, fake_store.queue, gone, gone_token, 30_000)
    assert render.outcome_text(gone_refusal.value).startswith("raises Gone: EMQGONE ")
    failed = jobs.extend_locks(conn, fake_store.queue, list(batch.held), 30_000)
    assert render.outcome_text(failed) == "returns ['JOB02']"
    assert render.outcome_text([*failed] * 3, 2) == "returns ['JOB02', 'JOB02', … (3 ids in all)]"
    with pytest.raises(jobs.BadLease) as bad_lease:
        jobs.check_lease(0)
    assert render.outcome_text(bad_lease.value) == "refused before the wire: BadLease: " + str(bad_lease.value)
