"""Read-only windows on a run's shared timeline: the members after a step, and lists that grow by a step."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar, overload

from .model import Member

T = TypeVar("T")


class _View(Sequence[T]):
    """A read-only window on the run's shared timeline that compares and hashes like a tuple of its items."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class MembersAt(_View[Member]):
    """The batch's members as they stood after one step, read from the run's shared per-member history."""

    __slots__ = ("__weakref__", "_history", "_position")

    def __init__(self, history: list[list[tuple[int, Member]]], position: int) -> None:
        self._history = history
        self._position = position

    def keep(self) -> None:
        """Copy the members out of the shared history, before a rewind changes what it holds at this step."""
        self._history = [[(self._position, member)] for member in self]

    def __len__(self) -> int:
        return len(self._history)

    def __iter__(self) -> Iterator[Member]:
        position = self._position
        for index, states in enumerate(self._history):
            # a member's latest state is nearly always at or before the step this view is of: no search needed
            yield states[-1][1] if states[-1][0] <= position else self._at(index)

    def _at(self, index: int) -> Member:
        for step, member in reversed(self._history[index]):
            if step <= self._position:
                return member
        raise LookupError(f"member {index} has no state at step {self._position}")

    @overload
    def __getitem__(self, index: int) -> Member: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Member, ...]: ...

    def __getitem__(self, index: int | slice) -> Member | tuple[Member, ...]:
        if isinstance(index, slice):
            return tuple(self._at(i) for i in range(*index.indices(len(self))))
        return self._at(range(len(self))[index])


class Prefix(_View[T]):
    """The first ``count`` items of a list that only grows along the run: the failed ids after one step, say."""

    __slots__ = ("__weakref__", "_count", "_items")

    def __init__(self, items: list[T], count: int) -> None:
        self._items = items
        self._count = count

    def keep(self) -> None:
        """Copy the items out of the shared list, before a rewind cuts it back past them."""
        self._items = self._items[: self._count]

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[T]:
        return iter(self._items[: self._count])

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self._items[: self._count][index])
        return self._items[range(self._count)[index]]


class Grown(Generic[T]):
    """A list that grows by a batch of items per step, read as it stood after any step, and cut back a step."""

    __slots__ = ("_counts", "_handed", "_items", "_last")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._counts: list[int] = [0]
        self._last: Prefix[T] | None = None
        self._handed: Handed[Prefix[T]] = Handed()

    def at(self, step: int) -> Prefix[T]:
        """The items as they stood after ``step`` (the same window again while the count is unchanged, so a run
        of steps that add nothing holds one)."""
        count = self._counts[step]
        last = self._last
        if last is None or len(last) != count:
            last = self._last = self._handed.add(Prefix(self._items, count), count)
        return last

    def peek(self, step: int) -> Prefix[T]:
        """The items as they stood after ``step``, untracked: for a look dropped before the list next changes."""
        return Prefix(self._items, self._counts[step])

    def grow(self, items: Iterable[T]) -> None:
        """Add the items of the next step (nothing is fine: the step still counts)."""
        self._items.extend(items)
        self._counts.append(len(self._items))

    def rewind(self, step: int) -> None:
        """Forget ``step`` and everything after it."""
        del self._counts[step:]
        kept = self._counts[-1]
        self._handed.keep(kept + 1)  # the views showing more than is kept: what they show is about to be cut
        if self._last is not None and len(self._last) > kept:
            self._last = None
        del self._items[kept:]


class _Keeps(Protocol):
    def keep(self) -> None: ...


V = TypeVar("V", bound=_Keeps)


class Handed(Generic[V]):
    """The views handed out, held weakly by the mark a rewind cuts at (the step a members view is of, the count a
    prefix shows): a rewind has only the live ones it changes copy what they show, never all of them."""

    __slots__ = ("_marks",)

    def __init__(self) -> None:
        self._marks: dict[int, list[weakref.ref[V]]] = {}
        """The views by mark, only the marks views were handed at (a view of step 100,000 makes no list for each
        step below it)."""

    def add(self, view: V, mark: int) -> V:
        """Track ``view``, which a rewind to ``mark`` or below would change; return it."""
        marks = self._marks
        refs = marks.get(mark)
        if refs is None:
            if len(marks) >= 64 and not len(marks) & (len(marks) - 1):  # at 64, 128, …: marks with none alive go
                for dead in [m for m, rs in marks.items() if all(ref() is None for ref in rs)]:
                    del marks[dead]
            refs = marks[mark] = []
        if len(refs) >= 4 and not len(refs) & (len(refs) - 1):  # at 4, 8, 16, …: the dead ones swept out
            refs[:] = [ref for ref in refs if ref() is not None]
        refs.append(weakref.ref(view))
        return view

    def keep(self, since: int) -> None:
        """Have each live view marked ``since`` or later copy its items out, and stop tracking them."""
        for mark in [mark for mark in self._marks if mark >= since]:
            for ref in self._marks.pop(mark):
                if (view := ref()) is not None:
                    view.keep()
