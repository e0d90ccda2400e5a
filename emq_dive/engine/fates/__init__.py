"""A job's fates: how to put a job into each, and what each verb answers when run from there.

The set-up loads with the package; the verbs, the runs and the wire comparison load on first use, so a dive's first
frame, which only sets a batch up, does not wait for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..fate_table import BY_KEY, FATES, Fate, fate
from .setups import MEMBER_SETUPS, Batch, build_batch, job_id, prepare, reset

if TYPE_CHECKING:
    from .answers import VERBS, Answer, read_state, run_verb
    from .differs import what_differs
    from .runs import RUNNERS, FateRun, run_fate
    from .wire_compare import WireCompare, compare

__all__ = [
    "BY_KEY", "FATES", "MEMBER_SETUPS", "RUNNERS", "VERBS", "Answer", "Batch", "Fate", "FateRun", "WireCompare",
    "build_batch", "compare", "fate", "job_id", "prepare", "read_state", "reset", "run_fate", "run_verb",
    "what_differs",
]

_ON_FIRST_USE = {
    "VERBS": "answers", "Answer": "answers", "read_state": "answers", "run_verb": "answers",
    "what_differs": "differs", "RUNNERS": "runs", "FateRun": "runs", "run_fate": "runs",
    "WireCompare": "wire_compare", "compare": "wire_compare",
}
"""Each name the package exports from a module it loads only when the name is first asked for."""


def __getattr__(name: str) -> Any:
    """A name of ``_ON_FIRST_USE``, from its module (loaded now if it was not)."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_ON_FIRST_USE[name]}", __name__), name)
