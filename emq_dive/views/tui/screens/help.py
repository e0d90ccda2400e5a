"""The help screen: every key, what the panes show, and the course's names for what the app runs."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ....present.keymap import KEYMAP, Group


def keys_text() -> str:
    """The keys section of the help, one table per group, from the keys table."""
    out = ["# Keys", ""]
    for group in Group:
        out += [f"## {group.value}", "", "| key | does |", "|---|---|"]
        out += [f"| {key.display} | {key.help} |" for key in KEYMAP if key.group is group]
        out.append("")
    return "\n".join(out)


HELP = keys_text() + """
# The panes

- **the batch**: each member's three checks in the script's order; a check the
  code never reached says *not evaluated*.
- **code**: the project's own source; the highlighted line is the one the
  engine reports for this step, the faint ones ran too.
- **store**: the live store after the step; scores are deadlines relative to
  the shared `now`; what the step wrote is marked.
- **wire**: the exact command, every call this step sent, the raw replies.
- In both, and in a fate's answers, the queue's hashtag is named whole once,
  then as the lesson writes it (`emq:{q}:active`), and clock values read
  relative to the step's `now` (`now+30000`); `v` shows them all whole.

# The course's names

The course teaches the verbs in Elixir; this app runs a Python port of them.

| in the course | in this app |
|---|---|
| `extend_locks/4` | `jobs.extend_locks` |
| `extend_lock/5` | `jobs.extend_lock` |
| `{:ok, failed}` | the returned `list[str]` of failed ids |
| `:ok` | `None`: the single verb re-scored |
| `{:error, :gone}` | raises `jobs.Gone` |
| `{:error, :stale}` | raises `jobs.Stale` |
| `{:error, :not_active}` | raises `jobs.NotActive` |
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

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)
