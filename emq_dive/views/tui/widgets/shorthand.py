"""How a pane names the queue's keys and clock values: the queue's hashtag in full once, then ``emq:{q}:``, and
13-digit clock values relative to the step's shared ``now``; or every key and value whole."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ....engine.echo_mq.render import relative

SHORT_BASE = "emq:{q}:"
"""The queue's base as the lesson writes it, which stands for the queue's own after its first mention."""
SHORT_TAG = "{q}"
"""The queue's hashtag as the lesson writes it."""
CLOCK = re.compile(r"\d{13}")
"""A clock value in milliseconds, as the store holds scores and deadlines."""
NEAR = 10 ** 9
"""How far from ``now``, in ms (about 11 days), a 13-digit value is read as a clock value, not as a token."""


BASE = re.compile(r"emq:\{[^}]*\}:")
"""A queue's base key as it starts a key: ``emq:{dive-8b3821c6}:``."""


def tag_of(base: str) -> str:
    """The hashtag of a queue's base key: ``{dive-8b3821c6}`` of ``emq:{dive-8b3821c6}:``."""
    return base.removeprefix("emq:").removesuffix(":")


def base_of(args: Iterable[Any]) -> str:
    """The queue base the first key among ``args`` starts with, or empty when none is a queue's key."""
    for arg in args:
        found = BASE.match(arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg))
        if found:
            return found.group()
    return ""


class Shorthand:
    """Names keys and clock values for one pass over a pane: its first key whole, the rest shortened."""

    def __init__(self, base: str, now: int | None, whole: bool = False) -> None:
        self.base = base
        """The queue's base key, ``emq:{dive-8b3821c6}:``."""
        self.now = now
        self.whole = whole
        """True when every key and clock value is shown whole (the learner asked for it)."""
        self.named = False
        """True once the queue's base has been shown whole in this pass."""

    def key(self, key: str) -> str:
        """``key`` whole the first time the pass names the queue, as ``emq:{q}:…`` after."""
        if self.whole or not self.base or not key.startswith(self.base):
            return key
        if not self.named:
            self.named = True
            return key
        return SHORT_BASE + key[len(self.base):]

    def clock(self, value: str) -> str:
        """A 13-digit clock value as ``now+30000`` when the step's ``now`` is known; anything else as it is."""
        if self.whole or self.now is None or not CLOCK.fullmatch(value) or abs(int(value) - self.now) > NEAR:
            return value
        return relative(int(value), self.now)

    def word(self, value: Any) -> Any:
        """One argument or reply item: a key or clock value shortened, bytes kept bytes, anything else as it is."""
        if isinstance(value, bytes):
            shown = value.decode("utf-8", "backslashreplace")
            said = self.clock(self.key(shown))
            return value if said == shown else said.encode()
        if isinstance(value, str):
            return self.clock(self.key(value))
        return value

    def args(self, args: Sequence[Any]) -> tuple[Any, ...]:
        """A command's arguments, each key and clock value shortened."""
        return tuple(self.word(arg) for arg in args)

    def reply(self, reply: Any) -> Any:
        """A reply, each bulk string that is a key or a clock value shortened, arrays item by item."""
        if isinstance(reply, list):
            return [self.reply(item) for item in reply]
        return self.word(reply) if isinstance(reply, bytes) else reply
