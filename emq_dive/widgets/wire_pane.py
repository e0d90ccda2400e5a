"""The wire pane: the exact batch command, the calls this step sent with their raw replies, and the reply."""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..render import MAX_ARGS, MAX_ITEMS, MAX_LINES, reply_text, wire_text
from ..session import Frame


@lru_cache(maxsize=8)
def command_text(command: tuple[bytes, ...]) -> str:
    """The batch command as redis-cli would show it, cut after MAX_ARGS arguments for a big batch."""
    return wire_text(command, MAX_ARGS)


class WirePane(Widget):
    """Shows what travelled between the code and the store, as redis-cli would print it."""

    DEFAULT_CSS: ClassVar[str] = """
    WirePane {
        width: 1fr;
        height: 100%;
        padding: 0 1;
        border: round $primary 50%;
        border-title-color: $text-primary;
    }
    WirePane > .wire-pane--cmd { color: $text-accent; }
    WirePane > .wire-pane--reply { color: $text-success; }
    WirePane > .wire-pane--error { color: $text-error; }
    WirePane > .wire-pane--muted { color: $text-muted; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"wire-pane--cmd", "wire-pane--reply", "wire-pane--error",
                                             "wire-pane--muted"}

    frame: reactive[Frame | None] = reactive(None, always_update=True)
    """The frame whose wire traffic is shown."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.border_title = "wire"

    def render(self) -> Text:
        frame = self.frame
        style = self.get_component_rich_style
        out = Text()
        if frame is None:
            return Text("nothing sent yet", style=style("wire-pane--muted"))
        step = frame.step
        out.append("the command: ", style=style("wire-pane--muted"))
        out.append(command_text(step.command), style=style("wire-pane--cmd"))
        if step.index == 0:
            out.append("\nthe handle has built it; → sends it", style=style("wire-pane--muted"))
        calls = step.calls
        if step.index and not calls:
            out.append("\nthis step sent nothing to the store", style=style("wire-pane--muted"))
        for call in calls[:MAX_LINES]:
            out.append(f"\n{call.source}:{call.line}  ", style=style("wire-pane--muted"))
            out.append(wire_text(call.sent))
            failed = isinstance(call.reply, Exception)
            role = "wire-pane--error" if failed else "wire-pane--reply"
            out.append(f"  → {reply_text(call.reply)}", style=style(role))
        if len(calls) > MAX_LINES:
            out.append(f"\n… and {len(calls) - MAX_LINES} more calls", style=style("wire-pane--muted"))
        if step.done:
            out.append("\nthe reply: ", style=style("wire-pane--muted"))
            if step.error is not None:
                out.append(f"(error) {step.error}", style=style("wire-pane--error"))
            else:
                out.append(reply_text(step.reply, MAX_ITEMS), style=style("wire-pane--reply"))
            if frame.answer:
                out.append(f"  · extend_locks {frame.answer}", style=style("wire-pane--muted"))
        return out
