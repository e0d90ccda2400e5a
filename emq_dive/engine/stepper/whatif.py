"""The guard-off what-if: extend_locks_no_guard.lua, the batch script without its ZSCORE check, stepped on wire 4."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from importlib import resources

from ..echo_mq import keyspace, scripts
from ..echo_mq.connector import raw
from ..echo_mq.scripts import marker_lines
from .driver import Batch, Outcome, register
from .lua_driver import LUA_MARKS, LuaDriver
from .model import Before
from .outcome import Verdict

WHAT_IF_NAME = "extend_locks_no_guard"
REMOVED_LINE = LUA_MARKS["check-active"]
"""The line of extend_locks.lua the what-if removes: ``and redis.call('ZSCORE', active, id) then``."""
REMOVED_TEXT = scripts.extend_locks().lines[REMOVED_LINE - 1].strip()
"""That line's text, as the real script has it."""


@cache
def what_if_script() -> scripts.Script:
    """The what-if script, loaded from the package's own ``.lua`` file; it has no native twin."""
    source = resources.files(scripts.__package__).joinpath("scripts", f"{WHAT_IF_NAME}.lua").read_text("utf-8")
    return scripts.Script(name=WHAT_IF_NAME, source=source, native_verb="")


WHAT_IF_MARKS = marker_lines(what_if_script().source)
"""The what-if's ``@marker`` lines; ``guard-removed`` stands where the real script's ``check-active`` stands."""


@register(4, "guard-off")
class GuardOffDriver(LuaDriver):
    """Steps the what-if exactly as LuaDriver steps the real script, on the same store and the same held list."""

    marks = WHAT_IF_MARKS
    removed = True

    def script_for(self, batch: Batch) -> scripts.Script:
        return what_if_script()

    def step(self, before: Before) -> Outcome:
        """The real script's step, and a note when a re-scored member is in pending too (read with LPOS)."""
        outcome = super().step(before)
        store = self._batch.store
        pending = keyspace.queue_key(store.queue, "pending")
        both = [m.id for m in outcome.members
                if m.verdict is Verdict.RESCORED and raw(store.client, "LPOS", pending, m.id) is not None]
        if not both:
            return outcome
        return replace(outcome, notes=(*outcome.notes, *(resurrected(job_id) for job_id in both)))


def resurrected(job_id: str) -> str:
    """The note for a member the what-if re-scored although the reaper had moved it to pending."""
    return (f"{job_id} is in both active and pending now: with no ZSCORE guard the script re-scored a job the "
            "reaper had moved back to pending. This is the resurrection the guard prevents")
