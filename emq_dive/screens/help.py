"""The help screen: every key, what the panes show, and the course's names for what the app runs."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# Keys

| key | does |
|---|---|
| → / ← | step forward / back (back restores the store through the engine) |
| Home / End | back to the handle / run every remaining step |
| space | play or pause, one step every {pace:.1f} s |
| w | switch the wire (4 · EVALSHA ⇄ 6 · EMQ.EXTENDS) and compare both twins |
| f | pick a job's fate: run all four verbs on it, or give it to a member |
| m | run mode: one batch ⇄ N single calls of extend_lock (each its own clock read and error) |
| g | guard off (what-if): the batch script without its ZSCORE check, wire 4 batch only |
| k | race a reaper: it reaps the next member not yet checked; ← undoes its move |
| p | predict mode: → asks first, 1–6 answers, the score at the end |
| e | the sandbox: edit the batch (members, fates, tokens, lease_ms, order), run it, save it as a lesson |
| c | measure what one lease costs here: one batch, N singles, natively, for 1, 100 and 1,000 leases |
| x | write the transcript of the run so far (Markdown) to the working directory |
| [ / ] | previous / next lesson section |
| ↑ / ↓, PgUp / PgDn | scroll the lesson (the mouse wheel and a click on its bar too) |
| tab | move the arrows to the wire or the store pane, to scroll what is out of sight there |
| l | show or hide the lesson pane |
| ctrl+p | every action in the command palette |
| ? / escape | open / close this help |
| q | quit the app (here too) |

# The panes

- **the batch**: each member's three checks in the script's order; a check the
  code never reached says *not evaluated*.
- **code**: the project's own source; the highlighted line is the one the
  engine reports for this step, the faint ones ran too.
- **store**: the live store after the step; scores are deadlines relative to
  the shared `now`; what the step wrote is marked.
- **wire**: the exact command, every call this step sent, the raw replies.

# The course's names

The course teaches the verbs in Elixir; this app runs a Python port of them.

| in the course | in this app |
|---|---|
| `extend_locks/4` | `jobs.extend_locks` |
| `extend_lock/5` | `jobs.extend_lock` |
| `{{:ok, failed}}` | the returned `list[str]` of failed ids |
| `:ok` | `None`: the single verb re-scored |
| `{{:error, :gone}}` | raises `jobs.Gone` |
| `{{:error, :stale}}` | raises `jobs.Stale` |
| `{{:error, :not_active}}` | raises `jobs.NotActive` |
| `@extend_locks2` | `echo_mq/scripts/extend_locks.lua` |
| `@extend_lock2` | `echo_mq/scripts/extend_lock.lua` |
| the `trafikey` handler | `native/emq_module.c`, behind `EMQ.EXTENDS` (on fakeredis: `echo_mq/native.py`) |

The course names one wire class, `EMQSTALE` for a stale token. `EMQGONE` and
`EMQNOTACTIVE`, the error classes of the other two refusals, are this project's
own choice: the course names no class for them.

Press escape or ? to close this help; q quits the app.
"""


class HelpScreen(ModalScreen[None]):
    """Lists the keys and explains the panes."""

    DEFAULT_CSS: ClassVar[str] = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 84; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "dismiss", "close"),
        Binding("q", "app.quit", "quit"),  # a modal screen holds the app's own bindings back
    ]

    def __init__(self, pace: float) -> None:
        super().__init__()
        self.pace = pace

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP.format(pace=self.pace))
