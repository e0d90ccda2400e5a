"""The help screen: every key, and what the panes show."""

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
| e | the sandbox: edit the batch (members, fates, tokens, lease_ms, order), run it, save it as a lesson |
| c | measure what one lease costs here: one batch, N singles, natively, for 1, 100 and 1,000 leases |
| x | write the transcript of the run so far (Markdown) to the working directory |
| [ / ] | previous / next lesson section |
| ↑ / ↓, PgUp / PgDn | scroll the lesson (the mouse wheel and a click on its bar too) |
| l | show or hide the lesson pane |
| ctrl+p | every action in the command palette |
| ? | this help · q quits |

# The panes

- **the batch**: each member's three checks in the script's order; a check the
  code never reached says *not evaluated*.
- **code**: the project's own source; the highlighted line is the one the
  engine reports for this step, the faint ones ran too.
- **store**: the live store after the step; scores are deadlines relative to
  the shared `now`; what the step wrote is marked.
- **wire**: the exact command, every call this step sent, the raw replies.

Press escape or ? to close.
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
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "dismiss", "close")]

    def __init__(self, pace: float) -> None:
        super().__init__()
        self.pace = pace

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP.format(pace=self.pace))
