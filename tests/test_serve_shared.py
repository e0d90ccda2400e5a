"""A class that outgrows one machine: two ``emq-dive serve`` instances on one shared store hold tabs side by side,
each tab in its own ``emq:{dive-<hex>}:`` namespace whose keys carry a TTL, and each tab's keys go when it closes.

The shared store is a URL server (the session's spawned redis-server) or a cluster node's URL (three embedded Valkey
primaries; a tab's queue lives on its slot's owner, which the URL store follows).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from serve_support import drain, open_tab, poll, served, shared_url
from test_valkey_store import require_wheel

from emq_dive.engine.stores import open_store

pytestmark = pytest.mark.server

NAMESPACE = re.compile(rb"^emq:\{(dive-[0-9a-f]{8})\}:")
TTL_SECONDS = 15 * 60
"""The TTL every key of a dive carries on a server it did not start (README: "Your own server")."""


@pytest.fixture(scope="module")
def _cluster():
    require_wheel()
    store = open_store("cluster")
    yield store
    store.close()


@pytest.fixture(params=["url", "cluster"])
def shared(request) -> tuple[list[redis.Redis], str]:
    """Clients of every node of the shared store, and the one URL both serve instances are given."""
    if request.param == "url":
        client, url = shared_url(request.getfixturevalue("_spawned"))
        return [client], url
    cluster = request.getfixturevalue("_cluster")
    clients = [cluster.client_on(node.address) for node in cluster.nodes]
    _, url = shared_url(cluster)
    return clients, url


def namespaces(clients: list[redis.Redis]) -> dict[str, list[bytes]]:
    """Every dive namespace on the shared store that holds a batch (its active set), and its keys, across every
    node; a warm spare's namespace holds only its owner markers until a tab takes it."""
    found: dict[str, list[bytes]] = {}
    for client in clients:
        for key in client.scan_iter(match="emq:{dive-*}:*", count=1000):
            if match := NAMESPACE.match(key):
                found.setdefault(match.group(1).decode(), []).append(key)
    return {name: keys for name, keys in found.items() if f"emq:{{{name}}}:active".encode() in keys}


def ttl_of(clients: list[redis.Redis], key: bytes) -> int:
    """The key's TTL in seconds on the node that owns its slot (-2 where none holds it)."""
    found = -2
    for client in clients:
        try:
            found = max(found, int(client.ttl(key)))
        except redis.exceptions.MovedError:  # a cluster node that does not own the key's slot
            continue
    return found


@pytest.fixture
def two(tmp_path: Path, shared) -> Iterator[tuple[list, list[redis.Redis]]]:
    clients, url = shared
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with served(tmp_path / "one", "--backend", url) as one, served(tmp_path / "two", "--backend", url) as two:
        yield [one, two], clients


def test_two_serve_instances_hold_tabs_side_by_side_each_in_its_own_namespace_cleaned_on_close(two) -> None:
    servers, clients = two
    before = set(namespaces(clients))
    tabs: list[socket.socket] = [open_tab(server.url) for server in servers for _ in range(2)]

    def opened() -> dict[str, list[bytes]] | None:
        now = {name: keys for name, keys in namespaces(clients).items() if name not in before}
        if not all(drain(tab) for tab in tabs) or len(now) != len(tabs):
            return None
        # a key a move writes gets its TTL as the move ends: wait out a tab's set-up still under way, so a key
        # that never gets one times this out
        return now if all(ttl_of(clients, key) > 0 for keys in now.values() for key in keys) else None

    live = poll(opened, "four tabs' batches on the shared store, each key with its TTL")
    assert [len(server.tabs()) for server in servers] == [2, 2], "each instance runs its own two tabs"
    for name, keys in live.items():
        for key in keys:
            assert 0 < ttl_of(clients, key) <= TTL_SECONDS, f"{key!r} of {name} would outlive a dead tab"
    for closing, tab in enumerate(tabs):
        tab.close()
        remaining = len(tabs) - closing - 1

        def gone(remaining: int = remaining, rest: list[socket.socket] = tabs[closing + 1:]) -> list[set[str]]:
            now = {name for name in namespaces(clients) if name not in before}
            return [now] if len(now) == remaining and all(drain(t) for t in rest) else []

        (left,) = poll(gone, f"the keys of closed tab {closing + 1} to go")
        assert left < set(live), "only the closed tab's namespace went; the others' keys are all there"
        now = namespaces(clients)
        for name in left:  # a tab still setting up may add keys; none may lose one to another tab's close
            assert set(live[name]) <= set(now[name]), f"{name} lost keys when another tab closed"
    poll(lambda: not any(server.tabs() for server in servers), "every tab's app to exit")
