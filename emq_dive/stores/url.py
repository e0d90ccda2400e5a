"""The user's own server, by URL: the app touches only its own queue and deletes it on exit."""

from __future__ import annotations

from urllib.parse import urlsplit

import redis

from ..echo_mq.connector import raw
from . import Store, StoreError
from .cluster import follow_slot_owner


def masked(url: str) -> str:
    """The URL with any password, in the user part or the query, replaced by ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            netloc = userinfo.split(":", 1)[0] + ":***@" + host
    query = "&".join(
        f"{name}=***" if name.lower() == "password" else pair
        for pair in parts.query.split("&") if pair
        for name in [pair.split("=", 1)[0]])
    if netloc != parts.netloc:
        url = url.replace(parts.netloc, netloc, 1)
    if query != parts.query:
        url = url.replace("?" + parts.query, "?" + query, 1)
    return url


def open_url(url: str, queue: str) -> Store:
    """Connect to ``url``; never FLUSH, write only under ``emq:{<queue>}:``."""
    try:
        client = redis.Redis.from_url(url)
        client.ping()
        client = follow_slot_owner(client, queue)
    except (redis.RedisError, ValueError) as err:
        raise StoreError(f"cannot reach {masked(url)}: {err}") from None
    native = raw(client, "COMMAND", "INFO", "EMQ.EXTENDS") not in ([None], [])
    store = Store(client=client, kind="url", description=masked(url), queue=queue, native=native,
                  native_reason="" if native else "this server has no EMQ module loaded "
                  "(build it with `emq-dive native build` and MODULE LOAD it)")

    store._closers += [client.close, store.forget]
    return store
