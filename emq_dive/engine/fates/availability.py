"""Whether a fate can run on a store, and why not: the fate picker and the fate runs read the same answer."""

from __future__ import annotations

from ..fate_table import Fate
from ..stores.cluster import ClusterStore
from ..stores.protocol import StoreLike

NOT_OWNED = "the app creates ACL users only on a server it started"
NEEDS_CLUSTER = "only a cluster routes keys by their hashtag: run with --backend cluster"


def unavailable_reason(store: StoreLike, fate: Fate) -> str:
    """Why ``fate`` cannot run on ``store``, or ``""`` when it can."""
    if fate.needs_acl and not store.acl:
        return store.acl_reason
    if fate.needs_acl and not store.owned:
        return NOT_OWNED
    if fate.needs_cluster and not isinstance(store, ClusterStore):
        return NEEDS_CLUSTER
    return ""
