"""One verb's answer from a real run: what it sent, what came back, what it wrote, or why it could not run."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from ..fates import Answer
from ..render import MAX_ARGS, MAX_ITEMS, MAX_LINES, reply_text, wire_text


def answer_text(answer: Answer, sha_width: int = 10) -> Text:
    """The answer as lines: outcome, each exchange and its raw reply, and the writes."""
    out = Text()
    if answer.unavailable:
        out.append("unavailable: ", style="bold")
        out.append(answer.unavailable, style="italic")
        return out
    failed = answer.outcome.startswith(("raises", "refused"))
    out.append(answer.summary(MAX_ITEMS), style="bold red" if failed else "bold green")
    if answer.sent_nothing:
        out.append("\nsent nothing: refused before the wire", style="dim")
    for exchange in answer.exchanges:
        out.append("\n» ", style="dim")
        if exchange.sent[:2] == (b"SCRIPT", b"LOAD") and len(exchange.sent) == 3:
            out.append(f"SCRIPT LOAD <the script's source, {len(exchange.sent[2])} bytes>")
        else:
            sent = [a[:sha_width] + "…".encode() if len(a) == 40 and a.isalnum() else a for a in exchange.sent]
            out.append(wire_text(sent, MAX_ARGS))
        out.append("\n  → " + reply_text(exchange.reply, MAX_ITEMS), style="red" if exchange.failed else "green")
    out.append("\nwrote: ", style="dim")
    if answer.writes:
        for write in answer.writes[:MAX_LINES]:
            out.append("\n  " + write, style="yellow")
        if len(answer.writes) > MAX_LINES:
            out.append(f"\n  … and {len(answer.writes) - MAX_LINES} more writes", style="dim")
    else:
        out.append("nothing", style="dim")
    return out


class AnswerCard(Static):
    """Shows one Answer in a titled box."""

    DEFAULT_CSS: ClassVar[str] = """
    AnswerCard {
        height: auto;
        border: round $primary 50%;
        border-title-color: $text-primary;
        border-title-style: bold;
        padding: 0 1;
    }
    """

    def __init__(self, answer: Answer, **kwargs: object) -> None:
        super().__init__(answer_text(answer), **kwargs)  # type: ignore[arg-type]
        self.border_title = f"{answer.verb} · wire {answer.wire}"
