"""The user's own server, by URL: the app touches only its own queue and deletes it on exit."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import redis

from ..echo_mq.connector import raw
from . import Store, StoreError


def masked(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def open_url(url: str, queue: str) -> Store:
    """Connect to ``url``; never FLUSH, write only under ``emq:{<queue>}:``."""
    try:
        client = redis.Redis.from_url(url)
        client.ping()
    except (redis.RedisError, ValueError) as err:
        raise StoreError(f"cannot reach {masked(url)}: {err}") from None
    native = raw(client, "COMMAND", "INFO", "EMQ.EXTENDS") not in ([None], [])
    store = Store(client=client, kind="url", description=masked(url), queue=queue, native=native,
                  native_reason="" if native else "this server has no EMQ module loaded "
                  "(build it with `emq-dive native build` and MODULE LOAD it)")

    def forget() -> None:
        keys = store.own_keys()
        if keys:
            client.delete(*keys)

    store._closers += [client.close, forget]
    return store
