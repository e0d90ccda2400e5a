"""The user's own server, by URL: the app touches only its own queue and deletes it on exit."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from urllib.parse import urlsplit

import redis

from ..echo_mq import keyspace
from ..echo_mq.connector import raw
from .clean import QUIT_SECONDS, clean, drop_or_say
from .cluster import slot_owner
from .expiry import KEY_TTL_MS, Keeper, Owner, mark
from .masking import credentials, masked, scrubbed
from .store import Store, StoreError
from .url_pool import UrlPool


def _password_forms(url: str) -> str:
    """The two ways this URL could carry a password, with placeholders instead of any secret."""
    parts = urlsplit(url)
    where = parts.netloc.rsplit("@", 1)[-1] + parts.path
    return f"{parts.scheme}://:PASSWORD@{where} or {parts.scheme}://USER:PASSWORD@{where}"


def _refusal(url: str) -> str:
    """What to tell a user whose server refused the URL's credentials, or asked for some it did not give."""
    user, password = credentials(url)
    forms = _password_forms(url)
    if password:
        given = "user name and password" if user else "password"
        return f"authentication failed at {masked(url)}: the server refused the {given}; a URL carries them as {forms}"
    if user:
        return (f"authentication failed at {masked(url)}: the URL gives only a user name (a word before @ with no "
                f"colon is a user name, not a password); give a password as {forms}")
    return f"the server at {masked(url)} needs a password: give it as {forms}"


def open_url(url: str, queue: str) -> Store:
    """Connect to ``url``; never FLUSH, write only under ``emq:{<queue>}:``."""
    try:
        client = redis.Redis(connection_pool=UrlPool.from_url(url))
    except ValueError as err:
        raise StoreError(f"cannot use {masked(url)}: {scrubbed(str(err), url)}") from None
    try:
        client.ping()
        client, owner = slot_owner(client, queue)
    except redis.AuthenticationError:
        client.close()
        raise StoreError(_refusal(url)) from None
    except redis.RedisError as err:
        client.close()
        raise StoreError(f"cannot reach {masked(url)}: {scrubbed(str(err), url)}") from None
    native = raw(client, "COMMAND", "INFO", "EMQ.EXTENDS") not in ([None], [])
    where = f" · cluster: the queue's slot is on {owner}" if owner else ""
    store = Store(client=client, kind="url", description=masked(url) + where, queue=queue, native=native,
                  native_reason="" if native else "this server has no EMQ module loaded "
                  "(build it with `emq-dive native build` and MODULE LOAD it)",
                  ttl_ms=KEY_TTL_MS, quit_seconds=QUIT_SECONDS)
    pool = client.connection_pool
    if isinstance(pool, UrlPool):  # the client on the queue's node of a cluster has a pool of its own
        pool.notes.watch(keyspace.queue_key(queue, ""))
    me = Owner.me()
    keeper = Keeper(client, store.expiring, me)
    # newest first: stop renewing, delete the run's keys (or say how to), then close the client; all of it, and the
    # close at exit, in place before the first key is written, so a signal at any moment from here leaves none
    store.on_close(client.close)
    # set when the markers could not be written: the error says so, and a marker written before it expires alone
    unwritten = threading.Event()
    store.on_close(lambda: drop_or_say(client, queue, masked(url), quiet=unwritten.is_set()))
    store.on_close(keeper.stop)
    store.close_at_exit()
    try:
        mark(client, queue, me)  # before any key of the run exists, so none is ever without an owner
    except redis.RedisError as err:
        unwritten.set()
        store.close()
        raise StoreError(f"cannot write on {masked(url)}: {scrubbed(str(err), url)}") from None
    store.expiring.add(queue)
    keeper.start()
    store.cleaned = _quiet_clean(client)
    return store


def _quiet_clean(client: redis.Redis) -> Future[int]:
    """Delete, on a thread of its own, the dive queues of this server whose owner is gone; how many went."""
    done: Future[int] = Future()

    def run() -> None:
        try:
            done.set_result(sum(1 for found, _ in clean(client) if not found.alive))
        except BaseException as err:  # a quiet check: the dive goes on whatever it met
            done.set_exception(err)

    threading.Thread(target=run, name="emq-dive clean", daemon=True).start()
    return done
