"""``emq-dive clean``: find the dive queues on a server whose owner is gone and delete them, touching nothing else."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import redis

from ..echo_mq import keyspace
from ..echo_mq.connector import raw
from .expiry import OWNER, Owner, marker_keys

_OWNER_KEY = re.compile(rb"emq:\{(dive-[0-9a-f]{8})\}:" + OWNER.encode())
QUIT_SECONDS = 3.0
"""How long a quit waits on a server that does not answer before it says what it left and how to delete it."""


@dataclass(frozen=True)
class Found:
    """One dive queue on the server: its name, the process that made it, and whether that process still runs."""

    queue: str
    owner: Owner
    alive: bool

    @property
    def pattern(self) -> str:
        """The queue's keys as a pattern, as a user would type it."""
        return keyspace.queue_key(self.queue, "*")


def dive_queues(client: redis.Redis) -> Iterator[Found]:
    """Each queue that carries this app's owner marker; a look-alike key without one is never looked at again."""
    for key in client.scan_iter(match="emq:{dive-*}:" + OWNER, count=1000):
        named = _OWNER_KEY.fullmatch(key)
        if named is None:
            continue
        queue = named[1].decode()
        owner_key, alive_key = marker_keys(queue)
        owner = Owner.parse(raw(client, "GET", owner_key))
        if owner is None:
            continue
        yield Found(queue, owner, client.exists(alive_key) == 1 and not owner.gone_here())


def drop(client: redis.Redis, queue: str, deadline: float | None = None) -> int:
    """Delete every key of ``queue``, its markers too; how many went. Past ``deadline`` it raises TimeoutError."""
    deleted = 0
    batch: list[bytes] = []
    for key in client.scan_iter(match=keyspace.queue_pattern(queue), count=1000):
        batch.append(key)
        if deadline is not None and time.monotonic() > deadline:
            raise redis.TimeoutError(f"past {QUIT_SECONDS:.0f} s")
        if len(batch) >= 1000:
            deleted += client.delete(*batch)
            batch.clear()
    if batch:
        deleted += client.delete(*batch)
    return deleted


def clean(client: redis.Redis) -> list[tuple[Found, int]]:
    """Delete each dive queue whose owner is gone; each found queue, with how many keys went (0 for a live one)."""
    done = []
    for found in list(dive_queues(client)):
        done.append((found, 0 if found.alive else drop(client, found.queue)))
    return done


def bounded_client(client: redis.Redis, seconds: float) -> redis.Redis:
    """A new client with ``client``'s settings whose every call gives up after ``seconds``."""
    pool = client.connection_pool
    settings = {**pool.connection_kwargs, "socket_timeout": seconds, "socket_connect_timeout": seconds}
    return redis.Redis(connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **settings))


def drop_or_say(client: redis.Redis, queue: str, where: str, seconds: float = QUIT_SECONDS,
                quiet: bool = False) -> None:
    """Delete the run's queue at quit within ``seconds``; else say in one line on stderr what is left and how to
    delete it (unless ``quiet``: the run wrote nothing it must answer for)."""
    quick = bounded_client(client, seconds)
    try:
        drop(quick, queue, time.monotonic() + seconds)
    except redis.RedisError as err:
        if quiet:
            return
        reason = "the server did not answer" if isinstance(err, redis.TimeoutError) else f"the server failed: {err}"
        print(f"emq-dive: could not delete the queue {keyspace.queue_key(queue, '*')} on {where} ({reason} within "
              f"{seconds:.0f} s); its keys expire in 15 minutes, or delete them now: "
              f"emq-dive clean --backend {where}", file=sys.stderr, flush=True)
    finally:
        quick.close()


def clean_command(argv: Sequence[str]) -> int:
    """``emq-dive clean --backend URL``: list the dive queues on the server and delete those whose owner is gone."""
    from .masking import masked, scrubbed
    parser = argparse.ArgumentParser(prog="emq-dive clean", description="Delete the dive queues on a server whose "
                                     "owner is gone (killed, crashed, its terminal closed); nothing else is touched.")
    parser.add_argument("--backend", required=True, metavar="URL", help="the redis://, rediss:// or unix:// URL")
    args = parser.parse_args(argv)
    if not args.backend.startswith(("redis://", "rediss://", "unix://")):
        print(f"emq-dive: clean needs a redis://, rediss:// or unix:// URL, not {masked(args.backend)!r}",
              file=sys.stderr)
        return 2
    from .credentials import resolve_backend

    def warn(message: str) -> None:
        print(f"emq-dive: warning: {message}", file=sys.stderr, flush=True)

    url = resolve_backend(args.backend, os.environ, warn)  # the password from the environment, as the dive takes it
    try:
        client = redis.Redis.from_url(url)
        found = clean(client)
    except (ValueError, redis.RedisError) as err:
        print(f"emq-dive: cannot clean {masked(url)}: {scrubbed(str(err), url)}", file=sys.stderr)
        return 1
    for queue, deleted in found:
        who = f"pid {queue.owner.pid} on {queue.owner.host}"
        print(f"kept {queue.pattern}: its owner, {who}, still runs" if queue.alive else
              f"deleted {queue.pattern}: {deleted} keys; its owner, {who}, is gone")
    gone = sum(1 for queue, _ in found if not queue.alive)
    print(f"{gone} dive queue{'s' * (gone != 1)} deleted on {masked(url)}, {len(found) - gone} kept")
    client.close()
    return 0

