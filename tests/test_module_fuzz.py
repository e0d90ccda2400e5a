"""Random argument vectors never crash the server, always get a reply, and touch only the named keys."""

from __future__ import annotations

import os
import random

import pytest

from emq_dive.engine.native import build

try:
    from tests.conftest_module import FUZZ_Q, FUZZ_SEED, SERVERS, Err, fuzz_vector, snapshot, spawn
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest_module import FUZZ_Q, FUZZ_SEED, SERVERS, Err, fuzz_vector, snapshot, spawn

VECTORS = int(os.environ.get("EMQ_FUZZ_VECTORS", "10000"))
SEED = int(os.environ.get("EMQ_FUZZ_SEED", "4004"))
CHUNK = 500


def outside_state(conn) -> dict[bytes, bytes]:
    """DUMP of every key outside the fuzzed queue."""
    keys = [k for k in conn.call("KEYS", "*") if not k.startswith(FUZZ_Q)]
    return dict(zip(keys, conn.pipeline([["DUMP", k] for k in keys]), strict=False))


def queue_shape(conn) -> dict[bytes, object]:
    """The fuzzed queue with what the commands may change masked: scores and lease_epoch."""
    shape = {}
    for key, (kind, value) in snapshot(conn, FUZZ_Q + b"*").items():
        if kind == "zset":
            value = sorted(value)
        elif kind == "hash":
            value = {f: v for f, v in value.items() if f != b"lease_epoch"}
        shape[key] = (kind, value)
    return shape


def drive(conn, vectors: list[list[bytes]]) -> dict[str, int]:
    """Send every vector to both verbs, pipelined; return a count of reply kinds."""
    kinds: dict[str, int] = {}
    commands = [[verb, *v] for v in vectors for verb in (b"EMQ.EXTENDS", b"EMQ.EXTEND")]
    for start in range(0, len(commands), CHUNK):
        for reply in conn.pipeline(commands[start:start + CHUNK]):
            if isinstance(reply, Err):
                kind = "error " + reply.text.split(" ", 2)[0]
                if reply.text.startswith("ERR EMQ"):
                    kind = "error " + reply.text.split(" ", 2)[2]
            elif isinstance(reply, list):
                assert all(isinstance(item, bytes) for item in reply), reply
                kind = "array"
            else:
                assert reply == 1, reply
                kind = "one"
            kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_fuzz_both_verbs(tmp_path_factory: pytest.TempPathFactory, kind: str):
    module = build.build_module(tmp_path_factory.mktemp("emq-cache"))
    rng = random.Random(SEED)
    vectors = [fuzz_vector(rng) for _ in range(VECTORS)]
    with spawn(module, binary=SERVERS[kind]()) as server:
        conn = server.raw()
        for reply in conn.pipeline(FUZZ_SEED):
            assert not isinstance(reply, Err), reply
        outside, shape = outside_state(conn), queue_shape(conn)

        kinds = drive(conn, vectors)

        assert conn.call("PING") == b"PONG"
        assert server.process.poll() is None
        assert outside_state(conn) == outside, "a key outside the named ones changed"
        assert queue_shape(conn) == shape, "members, rows or fields other than lease_epoch changed"
        # the vectors reached every outcome, not just the argument checks
        for kind in ("array", "one", "error numkeys", "error wrong", "error keys", "error lease_ms",
                     "error WRONGTYPE", "error EMQGONE", "error EMQSTALE", "error EMQNOTACTIVE"):
            assert any(k.startswith(kind) for k in kinds), (kind, kinds)
        assert sum(kinds.values()) == 2 * VECTORS
        conn.close()
        assert "crashed" not in server.log.lower() and "assert" not in server.log.lower()
