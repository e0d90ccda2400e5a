"""One copy of each equal value a long run records again and again (a key name, a step's lines), so a big batch's
memory grows with what differs between its steps, not with how many there are."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


class Shared:
    """Hands back the first value equal to each one it is given; a run keeps one, and drops it with the run."""

    def __init__(self, seed: tuple[Hashable, ...] = ()) -> None:
        self._seen: dict[Hashable, Hashable] = {value: value for value in seed}

    def one(self, value: T) -> T:
        """The kept value equal to ``value`` (``value`` itself the first time)."""
        return self._seen.setdefault(value, value)  # type: ignore[return-value]

    def known(self, value: T) -> T:
        """The kept value equal to ``value`` if there is one, else ``value`` (kept nowhere: a one-off stays one)."""
        return self._seen.get(value, value)  # type: ignore[return-value]
