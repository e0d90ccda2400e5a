"""What the store pane shows, read from the live store without any UI: active, pending and the members' rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..engine.echo_mq import keyspace
from ..engine.echo_mq.connector import error_text, raw_many
from ..engine.echo_mq.render import text
from ..engine.stores.protocol import Sharded

WINDOW = 8
"""How many members the pane reads around the current one when the batch is larger than that."""

ROW_FIELDS = (b"attempts", b"group", b"lease_epoch")


@dataclass(frozen=True)
class Row:
    """One member's job row as the store holds it, or what stands in its place."""

    id: str
    kind: str
    """``hash``, ``none`` (no row) or the key's other type, such as ``string``."""
    fields: tuple[tuple[str, str | None], ...] = ()
    text: str = ""
    """The value of a non-hash key, shown as the store holds it."""
    changed: bool = False


@dataclass(frozen=True)
class ActiveEntry:
    """One shown member's place in the active set: its score, or None when it is not a member."""

    id: str
    score: int | None
    changed: bool = False


@dataclass(frozen=True)
class Placement:
    """Where the keys the pane shows live on a cluster: each distinct hash slot, and the node that serves it."""

    slots: tuple[tuple[int, str], ...]
    """``(slot, host:port)`` for each slot the keys hash to, in slot order: one, when they share the tag."""
    keys: int
    tag: str
    """The queue's hashtag, such as ``{dive-1a2b3c4d}``."""

    def text(self, tag: str | None = None) -> str:
        """Two lines for the pane: the slot and its node, then that every key shares the tag (or the slots); ``tag``
        names the tag where the pane has already shown it whole (``{q}``)."""
        if len(self.slots) == 1:
            slot, node = self.slots[0]
            return f"slot {slot} · {node}\nall {self.keys} keys share {self.tag if tag is None else tag}"
        return f"{self.keys} keys on {len(self.slots)} slots: " + ", ".join(f"{s} · {n}" for s, n in self.slots)


def placement(store: Sharded, queue: str, keys: Sequence[str | bytes]) -> Placement:
    """The slots of ``keys`` and their nodes, each key's slot asked of the cluster once (the store caches it)."""
    names = {key.decode() if isinstance(key, bytes) else key for key in keys}
    slots = sorted({(store.keyslot(key), store.node_for(key)) for key in names})
    return Placement(tuple(slots), len(names), keyspace.queue_key(queue, "").split(":")[1])


@dataclass(frozen=True)
class StoreView:
    """The keys of a window of the batch: the active set, pending, and each shown member's row."""

    first: int
    """The batch index of the first shown member."""
    total: int
    active: tuple[ActiveEntry, ...]
    active_count: int
    pending: tuple[str, ...]
    pending_count: int
    rows: tuple[Row, ...]
    base: str
    """The queue's base key, ``emq:{dive-8b3821c6}:``, which every key shown starts with."""
    placement: Placement | None = None
    """On a cluster, where the keys shown (and the ones the step wrote) live; None elsewhere."""


def window(total: int, current: int, size: int = WINDOW) -> range:
    """The member indexes to show: all of a small batch, else a page of ``size`` that holds ``current``.

    Pages overlap by two, so the current member always has a neighbour shown on each side; the window moves
    once per ``size - 2`` steps, not every step, and a step in between changes only the lines it wrote.
    """
    if total <= size:
        return range(total)
    stride = max(1, size - 2)
    start = min(max(0, (current - 1) // stride * stride), total - size)
    return range(start, start + size)


def _kinds(client: redis.Redis, row_keys: Sequence[str], fields: Sequence[list[Any] | Exception],
           existing: object) -> tuple[list[str], dict[str, Any]]:
    """Each row key's type from its HMGET and the EXISTS count, and the value of each row that is a string.

    A row with a field is a hash. TYPE (and GET, for a string) is asked in one more round trip only for a row
    HMGET refused (another type) and, when the count leaves it open, for one with none of the fields.
    """
    kinds: list[str | None] = [None if isinstance(got, Exception) or all(v is None for v in got) else "hash"
                               for got in fields]
    refused = [i for i, got in enumerate(fields) if isinstance(got, Exception)]
    empty = [i for i, kind in enumerate(kinds) if kind is None and i not in refused]
    present = existing - (len(kinds) - len(empty)) if isinstance(existing, int) else -1
    if present == 0 or present == len(empty):  # the count says which they are: all missing, or all field-less hashes
        for i in empty:
            kinds[i] = "hash" if present else "none"
        empty = []
    strings: dict[str, Any] = {}
    if refused or empty:
        pipe = client.pipeline(transaction=False)
        for i in refused:
            pipe.type(row_keys[i])
            pipe.get(row_keys[i])  # WRONGTYPE unless it is a string: then it is the value the pane shows
        for i in empty:
            pipe.type(row_keys[i])
        replies = pipe.execute(raise_on_error=False)
        asked = [(i, replies[2 * n], replies[2 * n + 1]) for n, i in enumerate(refused)]
        asked += [(i, kind, None) for i, kind in zip(empty, replies[2 * len(refused):], strict=True)]
        for i, kind, value in asked:
            kinds[i] = "none" if isinstance(kind, Exception) else text(kind)
            if kinds[i] == "string":
                strings[row_keys[i]] = value
    return [kind or "none" for kind in kinds], strings


def read(client: redis.Redis, queue: str, ids: Sequence[str], current: int,
         written: frozenset[bytes] = frozenset(), rescored: frozenset[str] = frozenset(),
         store: object = None) -> StoreView:
    """Read the window of ``ids`` around ``current``; ``written`` keys and ``rescored`` ids are marked changed.

    When ``store`` is on a cluster (``Sharded``), the view also says which slots and nodes hold those keys.
    """
    shown = window(len(ids), current)
    members = [ids[i] for i in shown]
    active_key = keyspace.queue_key(queue, "active")
    pending_key = keyspace.queue_key(queue, "pending")
    row_keys = [keyspace.job_key(queue, member) for member in members]
    commands: list[tuple[Any, ...]] = [(b"ZCARD", active_key), (b"LLEN", pending_key),
                                       (b"LRANGE", pending_key, 0, WINDOW - 1)]
    if members:  # one command each for the scores and for which rows exist, then each row's fields
        commands += [(b"ZMSCORE", active_key, *members), (b"EXISTS", *row_keys)]
    commands += [(b"HMGET", key, *ROW_FIELDS) for key in row_keys]
    replies = raw_many(client, commands)  # one round trip, packed in C: a step reads this pane every time
    active_count, pending_count, pending = replies[0], replies[1], replies[2]
    scores = (replies[3] if not isinstance(replies[3], Exception) else [None] * len(members)) if members else []
    fields = replies[5:] if members else []
    kinds, string_values = _kinds(client, row_keys, fields, replies[4] if members else 0)
    rows = []
    for member, key, kind, got in zip(members, row_keys, kinds, fields, strict=True):
        changed = key.encode() in written
        if kind == "hash":
            values = tuple((name.decode(), None if v is None else text(v))
                           for name, v in zip(ROW_FIELDS, got, strict=True))
            rows.append(Row(member, kind, values, changed=changed))
        elif kind == "string":
            got = string_values[key]
            rows.append(Row(member, kind, text=error_text(got) if isinstance(got, Exception) else text(got),
                            changed=changed))
        else:
            rows.append(Row(member, kind, changed=changed))
    active = tuple(ActiveEntry(member, None if isinstance(score, Exception) or score is None else int(float(score)),
                               member in rescored)
                   for member, score in zip(members, scores, strict=True))
    placed = None
    if isinstance(store, Sharded):
        placed = placement(store, queue, [active_key, pending_key, keyspace.queue_key(queue, ""), *row_keys,
                                          *sorted(written)])
    return StoreView(first=shown.start, total=len(ids), active=active, active_count=int(active_count),
                     pending=tuple(text(p) for p in pending), pending_count=int(pending_count), rows=tuple(rows),
                     base=keyspace.queue_key(queue, ""), placement=placed)
