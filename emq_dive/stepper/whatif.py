"""The guard-off what-if: extend_locks_no_guard.lua, the batch script without its ZSCORE check, stepped on wire 4."""

from __future__ import annotations

from functools import cache
from importlib import resources

from ..echo_mq import scripts
from ..echo_mq.scripts import marker_lines
from .driver import Batch, register
from .lua_driver import LUA_MARKS, LuaDriver

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

    def script_for(self, batch: Batch) -> scripts.Script:
        return what_if_script()
