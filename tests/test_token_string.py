"""The token is compared as a string, as the seed's ``att == token`` does: "01" or "1.0" is not attempts "1".

Pinned on the raw wire for each implementation: the Lua scripts by EVALSHA (on every backend), the Python twin
(the embedded store's EMQ.EXTENDS / EMQ.EXTEND) and the C module (on a spawned redis-server and valkey-server).
"""

from __future__ import annotations

import pytest
import redis
from conftest import require_native

from emq_dive.engine.echo_mq import keyspace, scripts
from emq_dive.engine.echo_mq.connector import Connector, error_text, raw
from emq_dive.engine.stores import Store

LEASE = 30_000
NUMERIC_TWINS = ["01", "1.0", "1e0", "+1", " 1", "1 ", "0x1"]
"""Tokens a number compare would take for attempts 1; a string compare refuses every one."""


def _seed(store: Store) -> tuple[str, str]:
    """Job "held" with attempts "1", in active; return the active key and the queue base."""
    active, base = keyspace.queue_key(store.queue, "active"), keyspace.queue_key(store.queue, "")
    raw(store.client, "HSET", keyspace.job_key(store.queue, "held"), "attempts", "1")
    raw(store.client, "ZADD", active, "1", "held")
    return active, base


def _refusal(send: object) -> str:
    try:
        reply = send()  # type: ignore[operator]
    except redis.ResponseError as err:
        return error_text(err)
    raise AssertionError(f"expected an error reply, got {reply!r}")


@pytest.mark.parametrize("token", NUMERIC_TWINS)
def test_the_scripts_take_a_numeric_twin_of_attempts_as_stale(any_store: Store, token: str) -> None:
    active, base = _seed(any_store)
    wire = Connector(any_store.client, 4)
    assert wire.eval(scripts.extend_locks(), [active, base], [LEASE, "held", token]) == [b"held"]
    row = keyspace.job_key(any_store.queue, "held")
    assert _refusal(lambda: wire.eval(scripts.extend_lock(), [active, row], [LEASE, "held", token])) == (
        "EMQSTALE token does not match attempts")
    assert raw(any_store.client, "ZSCORE", active, "held") == b"1", "a stale token re-scores nothing"
    assert wire.eval(scripts.extend_locks(), [active, base], [LEASE, "held", "1"]) == [], "the token itself is live"


@pytest.mark.parametrize("token", NUMERIC_TWINS)
def test_the_native_twin_takes_a_numeric_twin_of_attempts_as_stale(any_store: Store, token: str) -> None:
    """On the embedded store this is native.py's handler; on a real server, the C module."""
    client = require_native(any_store).client
    if not any_store.native:
        pytest.skip(f"no native twin here: {any_store.native_reason}")
    active, base = _seed(any_store)
    row = keyspace.job_key(any_store.queue, "held")
    assert raw(client, "EMQ.EXTENDS", 2, active, base, LEASE, "held", token) == [b"held"]
    assert _refusal(lambda: raw(client, "EMQ.EXTEND", 2, active, row, LEASE, "held", token)) == (
        "EMQSTALE token does not match attempts")
    assert raw(client, "HGET", row, "lease_epoch") is None and raw(client, "ZSCORE", active, "held") == b"1"
    assert raw(client, "EMQ.EXTENDS", 2, active, base, LEASE, "held", "1") == [], "the token itself is live"
    assert raw(client, "HGET", row, "lease_epoch") == any_store.run_id()
