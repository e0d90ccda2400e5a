"""A three-primary Valkey cluster on loopback, the dive on the owner of the queue's slot, and the hashtag probe."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from ..echo_mq import jobs, keyspace, scripts
from ..echo_mq.connector import Connector, Exchange, raw
from .expiry import Owner
from .spawned import Launched, free_port, identify, launch, stop_server
from .store import Store, StoreError

PRIMARIES = 3
SLOTS = 16384
READY_SECONDS = 10.0


@dataclass(frozen=True)
class ClusterNode:
    """One primary as the cluster reports it: its address, id, slot ranges and process."""

    address: str
    """``host:port``, as a client reaches it."""
    node_id: str
    slots: tuple[tuple[int, int], ...]
    """Inclusive ranges of hash slots it serves."""
    pid: int

    def serves(self, slot: int) -> bool:
        """True when ``slot`` lies in one of this node's ranges."""
        return any(low <= slot <= high for low, high in self.slots)


@dataclass
class ClusterStore(Store):
    """A store on a cluster: ``client`` is on the node that owns the queue's slot; the other nodes are at hand."""

    nodes: tuple[ClusterNode, ...] = ()
    clients: dict[str, redis.Redis] = field(default_factory=dict, repr=False, compare=False)
    slots: dict[bytes, int] = field(default_factory=dict, repr=False, compare=False)
    """Each key's hash slot once asked, so a key costs one ``CLUSTER KEYSLOT`` per run, not one per step."""

    @property
    def node(self) -> ClusterNode:
        """The node the dive runs on: the owner of the queue's slot."""
        return self.owner(self.keyslot(keyspace.queue_key(self.queue, "active")))

    def keyslot(self, key: str | bytes) -> int:
        """The hash slot of ``key``, as the cluster computes it (``CLUSTER KEYSLOT``, asked once per key)."""
        name = key.encode() if isinstance(key, str) else key
        slot = self.slots.get(name)
        if slot is None:
            with self.io():
                slot = self.slots[name] = int(raw(self.client, "CLUSTER", "KEYSLOT", name))
        return slot

    def owner(self, slot: int) -> ClusterNode:
        """The node that serves ``slot``."""
        for node in self.nodes:
            if node.serves(slot):
                return node
        raise StoreError(f"no node of the cluster serves slot {slot}")

    def node_for(self, key: str | bytes) -> str:
        """The ``host:port`` of the node that serves ``key``."""
        return self.owner(self.keyslot(key)).address

    def client_on(self, address: str) -> redis.Redis:
        """The client on the node at ``address``."""
        return self.clients[address]

    def other_node(self) -> ClusterNode:
        """A node that does not serve the queue's slot."""
        here = self.node
        return next(node for node in self.nodes if node != here)


def _cluster_lines(node_dir: Path, bus: int) -> list[str]:
    return ["cluster-enabled yes", f"cluster-config-file {node_dir / 'nodes.conf'}", "cluster-node-timeout 5000",
            f"cluster-port {bus}", "cluster-require-full-coverage yes"]


def _ranges(count: int) -> list[tuple[int, int]]:
    """``count`` contiguous slot ranges that cover every slot, as even as can be."""
    edges = [SLOTS * i // count for i in range(count + 1)]
    return [(edges[i], edges[i + 1] - 1) for i in range(count)]


def _info(client: redis.Redis) -> dict[str, str]:
    text = raw(client, "CLUSTER", "INFO").decode()
    return dict(line.strip().split(":", 1) for line in text.splitlines() if ":" in line)


def _form(servers: Sequence[Launched], buses: Sequence[int]) -> None:
    """Give each node its slots and a config epoch, introduce them, and wait until every node says ``ok``."""
    for epoch, (server, (low, high)) in enumerate(zip(servers, _ranges(len(servers)), strict=True), start=1):
        raw(server.client, "CLUSTER", "SET-CONFIG-EPOCH", epoch)
        raw(server.client, "CLUSTER", "ADDSLOTSRANGE", low, high)
    first = servers[0]
    for other, bus in zip(servers[1:], buses[1:], strict=True):
        raw(first.client, "CLUSTER", "MEET", "127.0.0.1", other.port, bus)
    deadline = time.monotonic() + READY_SECONDS
    waiting = list(servers)
    while waiting:
        info = _info(waiting[0].client)
        if info.get("cluster_state") == "ok" and info.get("cluster_known_nodes") == str(len(servers)):
            waiting.pop(0)
            continue
        if time.monotonic() > deadline:
            raise StoreError(f"the cluster did not reach cluster_state:ok within {READY_SECONDS:.0f} s "
                             f"(node on :{waiting[0].port} says {info.get('cluster_state')})")
        time.sleep(0.02)


def shards(client: redis.Redis, default_host: str = "127.0.0.1") -> list[tuple[str, str, tuple[tuple[int, int], ...]]]:
    """``(host:port, node id, slot ranges)`` of every primary that serves slots, from ``CLUSTER SLOTS``."""
    found: dict[str, tuple[str, list[tuple[int, int]]]] = {}
    for entry in raw(client, "CLUSTER", "SLOTS"):
        low, high, primary = int(entry[0]), int(entry[1]), entry[2]
        host = primary[0].decode() if primary[0] not in (b"", b"?") else default_host
        address = f"{host}:{int(primary[1])}"
        found.setdefault(address, (primary[2].decode(), []))[1].append((low, high))
    return [(address, node_id, tuple(sorted(ranges))) for address, (node_id, ranges) in found.items()]


def open_cluster(queue: str) -> ClusterStore:
    """Start a three-primary cluster of the valkey backend's binary, each node with the EMQ module.

    Call it from the main thread: the nodes are tied to the thread that spawned them.
    """
    from .valkey import no_server_reason, server_binary
    found = server_binary()
    if found is None:
        raise StoreError(no_server_reason())
    binary, origin = found
    remove_orphans(Path(tempfile.gettempdir()))
    root = Path(tempfile.mkdtemp(prefix="emq-dive-"))
    (root / OWNER_FILE).write_text(Owner.me().text())
    password = os.urandom(16).hex()
    servers: list[Launched] = []
    buses = [free_port() for _ in range(PRIMARIES)]

    def stop_all() -> None:
        for server in servers:
            stop_server(server.proc)
            server.client.close()
        shutil.rmtree(root, ignore_errors=True)

    try:
        for index in range(PRIMARIES):
            node_dir = root / f"node-{index}"
            node_dir.mkdir()
            servers.append(launch(binary, node_dir, password, _cluster_lines(node_dir, buses[index]), keep_dir=True))
        _form(servers, buses)
        clients = {f"127.0.0.1:{server.port}": server.client for server in servers}
        pids = {f"127.0.0.1:{server.port}": server.proc.pid for server in servers}
        nodes = tuple(ClusterNode(address, node_id, ranges, pids[address])
                      for address, node_id, ranges in shards(servers[0].client))
        slot = int(raw(servers[0].client, "CLUSTER", "KEYSLOT", keyspace.queue_key(queue, "active")))
        owner = next(node for node in nodes if node.serves(slot))
        client = clients[owner.address]
        name, version, native = identify(client, binary)
        reason = next((s.module_reason for s in servers if s.client is client), "")
        store = ClusterStore(
            client=client, kind="cluster", queue=queue, native=native, owned=True,
            description=f"{name} {version} · {PRIMARIES}-node cluster on {owner.address}, {origin}",
            native_reason="" if native else (reason or "no EMQ module"), nodes=nodes, clients=clients)
        store.on_close(stop_all)  # inside the try: a signal at any moment from the first launch stops them all
        store.close_at_exit()
    except BaseException:
        stop_all()
        raise
    return store


OWNER_FILE = "owner"
"""The file in a cluster's work dir that names the process that started it."""


def remove_orphans(tmp: Path) -> list[Path]:
    """Remove the cluster work dirs (nodes.conf, logs) under ``tmp`` whose owner process is gone (SIGKILLed, say)."""
    removed = []
    for root in tmp.glob("emq-dive-*"):
        try:
            owner = Owner.parse((root / OWNER_FILE).read_bytes())
        except OSError:
            continue
        if owner is not None and owner.gone_here():
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def follow_slot_owner(client: redis.Redis, queue: str) -> redis.Redis:
    """A client on the node that owns ``queue``'s slot when ``client`` is on a cluster node, else ``client``."""
    return slot_owner(client, queue)[0]


def slot_owner(client: redis.Redis, queue: str) -> tuple[redis.Redis, str | None]:
    """A client on the node that owns ``queue``'s slot and that node's ``host:port`` when ``client`` is on a
    cluster node, else ``(client, None)``.

    When the owner is another node, ``client`` is closed and a client with its settings on the owner returned.
    """
    try:
        enabled = "cluster_enabled:1" in raw(client, "INFO", "cluster").decode()
    except redis.ResponseError:  # a user that may not run INFO: take the server as it is
        return client, None
    if not enabled:
        return client, None
    slot = int(raw(client, "CLUSTER", "KEYSLOT", keyspace.queue_key(queue, "active")))
    pool = client.connection_pool
    settings: dict[str, Any] = {k: v for k, v in pool.connection_kwargs.items() if k != "path"}
    here = raw(client, "CLUSTER", "MYID").decode()
    for address, node_id, ranges in shards(client, str(settings.get("host", "127.0.0.1"))):
        if any(low <= slot <= high for low, high in ranges):
            if node_id == here:
                return client, address
            host, port = address.rsplit(":", 1)
            connection_class = (redis.Connection if issubclass(pool.connection_class, redis.UnixDomainSocketConnection)
                                else pool.connection_class)
            owner = redis.Redis(connection_pool=type(pool)(
                connection_class=connection_class, **{**settings, "host": host, "port": int(port)}))
            client.close()
            return owner, address
    raise StoreError(f"no node of the cluster serves slot {slot}, the slot of the queue {queue!r}")


# -- the hashtag probe --------------------------------------------------------


def untagged(key: str) -> str:
    """``key`` with its hashtag braces dropped: ``emq:{q}:active`` becomes ``emq:q:active``."""
    return key.replace("{", "", 1).replace("}", "", 1)


class Untagged:
    """A wire that sends each call with its keys' hashtag braces dropped."""

    def __init__(self, inner: Connector) -> None:
        self.inner = inner
        self.wire = inner.wire

    def eval(self, script: scripts.Script, keys: Sequence[str], argv: Sequence[str]) -> Any:
        return self.inner.eval(script, [untagged(key) for key in keys], argv)


def refusing_node(store: ClusterStore, keys: Sequence[str]) -> ClusterNode:
    """The node an untagged call on ``keys`` goes to so that it is refused, never run.

    Keys on several slots are refused by any node (``CROSSSLOT``); keys on one slot go to a node that does not
    serve it (``MOVED``), so nothing lands outside the run's tagged keys.
    """
    slots = {store.keyslot(untagged(key)) for key in keys}
    if len(slots) > 1:
        return store.node
    slot = slots.pop()
    return next(node for node in store.nodes if not node.serves(slot))


def no_hashtag(store: ClusterStore, held: Sequence[tuple[str, int]], lease_ms: int, wire: int) -> Exchange:
    """Send the batch call with its keys built without the ``{q}`` tag and return the cluster's refusal."""
    keys = [keyspace.queue_key(store.queue, suffix) for suffix in ("active", "")]
    conn = Connector(store.client_on(refusing_node(store, keys).address), wire)
    with store.io():
        try:
            jobs.extend_locks(Untagged(conn), store.queue, held, lease_ms)
        except redis.ResponseError:
            pass
    sent = conn.last
    if sent is None or not sent.failed:
        raise StoreError("the cluster ran the untagged call instead of refusing it")
    return sent
