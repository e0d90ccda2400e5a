"""What each kind of store is, as one registry the views ask: whether it is a real server, and what it keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Kinded(Protocol):
    """A store as far as its kind goes."""

    kind: str


@dataclass(frozen=True)
class StoreKind:
    """One kind of store: its key (``Store.kind``), its name in a sentence, and what it can show."""

    key: str
    words: str
    """The store in a sentence, ``the embedded fakeredis store``."""
    real_server: bool
    """True for a Valkey or Redis server process: wire 6 runs the C module, the scripts run in the server's Lua."""
    keeps_acl: bool
    """True when the store keeps ACL users and their key patterns, so the restricted fate can run on it."""
    app_started: bool = True
    """False for a server the app did not start (a URL): there it sends nothing unscreened, such as your script."""


KINDS: dict[str, StoreKind] = {kind.key: kind for kind in (
    StoreKind("fakeredis", "the embedded fakeredis store", real_server=False, keeps_acl=False),
    StoreKind("valkey", "the embedded Valkey server", real_server=True, keeps_acl=True),
    StoreKind("server", "the spawned server", real_server=True, keeps_acl=True),
    StoreKind("cluster", "the three-primary Valkey cluster", real_server=True, keeps_acl=True),
    StoreKind("url", "your server", real_server=True, keeps_acl=True, app_started=False),
)}
"""Every kind of store by key."""


def kind_of(store: Kinded) -> StoreKind:
    """The kind ``store`` is, or ValueError for a kind the registry does not know."""
    try:
        return KINDS[store.kind]
    except KeyError:
        raise ValueError(f"unknown store kind {store.kind!r}: one of {', '.join(KINDS)}") from None
