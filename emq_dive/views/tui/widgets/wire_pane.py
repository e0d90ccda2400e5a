"""The wire pane: the exact batch command, the calls this step sent with their raw replies, and the reply."""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive

from ....engine.echo_mq.render import MAX_ARGS, MAX_ITEMS, MAX_LINES, reply_text, wire_text
from ....present.session import Frame
from .scrolled import ScrolledLines, hanging
from .shorthand import Shorthand
from .wire_lines import call_label, lapsed_notes, legend, stand_in


@lru_cache(maxsize=8)
def command_text(command: tuple[bytes, ...]) -> str:
    """The batch command as redis-cli would show it, cut after MAX_ARGS arguments for a big batch."""
    return wire_text(command, MAX_ARGS)


class WirePane(ScrolledLines):
    """Shows what travelled between the code and the store, as redis-cli would print it, wrapped to fit.

    Each step scrolls the pane to its end, so the step's last reply sits at the bottom edge; what is above it
    stays a scroll away (tab focuses the pane, the arrows scroll it, its border says what is out of sight).
    """

    DEFAULT_CSS: ClassVar[str] = """
    WirePane {
        width: 1fr;
        height: 100%;
        border: round $primary 50%;
        border-title-color: $text-primary;
    }
    WirePane:focus { border: round $accent; }
    WirePane > .wire-pane--cmd { color: $text-accent; }
    WirePane > .wire-pane--reply { color: $text-success; }
    WirePane > .wire-pane--error { color: $text-error; }
    WirePane > .wire-pane--muted { color: $text-muted; }
    WirePane > .wire-pane--stand-in { color: $text-muted; text-style: italic; }
    WirePane > .wire-pane--note { color: $text-warning; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"wire-pane--cmd", "wire-pane--reply", "wire-pane--error",
                                             "wire-pane--muted", "wire-pane--stand-in", "wire-pane--note"}

    frame: reactive[Frame | None] = reactive(None, always_update=True, repaint=False)
    """The frame whose wire traffic is shown."""
    server: reactive[bool] = reactive(False, repaint=False)
    """True on a server backend, where the code pane shows the C module for wire 6 (the labels follow it)."""
    whole: reactive[bool] = reactive(False, repaint=False)
    """True when keys and clock values are shown whole, not as ``emq:{q}:`` and ``now+30000``."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.border_title = "wire"
        self._wraps: dict[tuple[object, ...], list[Text]] = {}
        """The last step's entries as wrapped, by their text and the width."""

    def watch_frame(self) -> None:
        self.show_lines(self._wrapped(), to_end=True)

    def watch_whole(self) -> None:
        if self.is_mounted:
            self.show_lines(self._wrapped(), to_end=True)

    def lay_out(self) -> None:
        self.show_lines(self._wrapped(), to_end=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.lines = self._wrapped()

    def full_text(self) -> str:
        """Everything the pane says about the frame, each entry on one line, unwrapped."""
        return "\n".join(entry.plain for entry in self.entries())

    def _wrapped(self) -> list[Text]:
        width, console = self.text_width, self.app.console
        cache, self._wraps = self._wraps, {}
        out = []
        for entry in self.entries():
            # the batch command is the same on every step: it is wrapped once, not once a step
            key = (entry.plain, entry.style, tuple(entry.spans), width)
            lines = cache.get(key) or hanging(entry, width, console)
            self._wraps[key] = lines
            out += lines
        return out

    def entries(self) -> list[Text]:
        """Each thing the pane says about the frame, one Text apiece, before wrapping."""
        frame = self.frame
        style = self.role_style
        muted = style("wire-pane--muted")
        if frame is None:
            return [Text("nothing sent yet", style=muted)]
        step = frame.step
        names = Shorthand(frame.view.base, step.now, self.whole)  # the queue's base whole once, in the command
        head = Text("the command: ", style=muted)
        shown = (*names.args(step.command[:MAX_ARGS]), *step.command[MAX_ARGS:])  # the rest is only counted
        head.append(command_text(shown), style=style("wire-pane--cmd"))
        out = [head]
        if step.index == 0:
            out.append(Text("the handle has built it; → sends it", style=muted))
        calls = step.shown_calls
        if step.index and not calls:
            out.append(Text("this step sent nothing to the store", style=muted))
        kinds: list[str] = []
        for call in calls[:MAX_LINES]:
            kind = stand_in(call)
            failed = isinstance(call.reply, Exception)
            line = Text(f"{'≈ ' if kind else ''}{call_label(call, self.server)}  ", style=muted)
            if kind:
                kinds.append(kind)
                line.append(f"{wire_text(names.args(call.sent))}  → {reply_text(names.reply(call.reply))}",
                            style=style("wire-pane--stand-in"))
            else:
                line.append(wire_text(names.args(call.sent)))
                line.append(f"  → {reply_text(names.reply(call.reply))}",
                            style=style("wire-pane--error" if failed else "wire-pane--reply"))
            out.append(line)
        if len(calls) > MAX_LINES:
            out.append(Text(f"… and {len(calls) - MAX_LINES} more calls", style=muted))
        if kinds:
            out.append(Text(legend(kinds, step.command[0].decode()), style=style("wire-pane--stand-in")))
        for note in (*step.notes, *lapsed_notes(step)):
            out.append(Text(f"note: {note}", style=style("wire-pane--note")))
        if step.done:
            reply = Text("the reply: ", style=muted)
            if step.error is not None:
                reply.append(f"(error) {step.error}", style=style("wire-pane--error"))
            else:
                reply.append(reply_text(names.reply(step.reply), MAX_ITEMS), style=style("wire-pane--reply"))
            if frame.answer:
                reply.append(f"  · extend_locks {frame.answer}", style=muted)
            out.append(reply)
        return out
