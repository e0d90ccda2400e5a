"""The fate table: each situation a held lease can be in, by key (no store, no I/O: lessons load it too)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fate:
    """One situation a held lease can be in when its holder asks to extend it."""

    key: str
    title: str
    member: bool
    """True when the fate belongs to one job and can be given to a member of the batch."""
    needs_acl: bool = False
    needs_cluster: bool = False


FATES: tuple[Fate, ...] = (
    Fate("live", "live lease", True),
    Fate("gone", "row gone", True),
    Fate("stale", "stale token", True),
    Fate("reaped", "reaped to pending", True),
    Fate("wrongtype", "WRONGTYPE row mid-batch", True),
    Fate("lane", "lane job (has a group)", True),
    Fate("restricted", "caller may only read rows", False, needs_acl=True),
    Fate("unpaired", "unpaired trailing id", False),
    Fate("ill-formed", "ill-formed id", False),
    Fate("bad-lease", "bad lease (0, -5, 1.5)", False),
    Fate("bad-shape", "wrong numkeys / foreign KEYS[1]", False),
    Fate("empty", "empty batch", False),
    Fate("no-hashtag", "keys without the {q} hashtag", False, needs_cluster=True),
)
BY_KEY = {fate.key: fate for fate in FATES}


def fate(key: str) -> Fate:
    """The fate named ``key``."""
    try:
        return BY_KEY[key]
    except KeyError:
        raise KeyError(f"no fate {key!r}; the fates are {', '.join(BY_KEY)}") from None
