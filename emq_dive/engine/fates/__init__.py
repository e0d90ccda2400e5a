"""A job's fates: how to put a job into each, and what each verb answers when run from there."""

from ..fate_table import BY_KEY, FATES, Fate, fate
from .answers import VERBS, Answer, read_state, run_verb
from .differs import what_differs
from .runs import RUNNERS, FateRun, run_fate
from .setups import MEMBER_SETUPS, Batch, build_batch, job_id, prepare, reset
from .wire_compare import WireCompare, compare

__all__ = [
    "BY_KEY", "FATES", "MEMBER_SETUPS", "RUNNERS", "VERBS", "Answer", "Batch", "Fate", "FateRun", "WireCompare",
    "build_batch", "compare", "fate", "job_id", "prepare", "read_state", "reset", "run_fate", "run_verb",
    "what_differs",
]
