"""The console (``:``): a prompt docked at the bottom over the dive; each line runs on a worker that posts the reply."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ....engine.echo_mq.console import Refusal
from ....present.console import Console, Failed, Outcome, Replied
from ....present.console_block import Blocked, Executed, block_words, open_words
from ....present.session import Frame, with_seq
from ..widgets.console_prompt import PLACEHOLDER, ConsolePrompt
from .console_moves import settled
from .dive import DiveScreen
from .dive_messages import FrameReady

INTRO = ("console · EVALSHA $sha/$sha_one, EMQ.EXTEND(S), reads of $active $base $pending $job:ID · $lease · "
         "MULTI … EXEC · ↑↓ history · esc closes, then ← undoes a write")

BLOCK_PLACEHOLDER = "(TX) a line to queue it · EXEC sends the block · DISCARD drops it"
"""What the empty prompt offers while a MULTI block is open."""


@dataclass
class ConsoleReplied(Message):
    """A console line came to ``outcome`` (the store's reply, a refusal, or a failure), and the frame after it."""

    outcome: Outcome
    frame: Frame | None = None


def said(outcome: Outcome) -> str:
    """What the reply line shows for ``outcome``: the reply as redis-cli prints it, or the one line of refusal."""
    if isinstance(outcome, Refusal):
        return f"refused, nothing sent: {outcome.reason}"
    if isinstance(outcome, Failed):
        return f"not answered: {outcome.reason}"
    if isinstance(outcome, Blocked):
        return f"> {outcome.typed} · {block_words(outcome)}"
    if isinstance(outcome, Executed):
        head = "\n".join(f"> {typed}" for typed in ("MULTI", *(line.typed for line in outcome.queued), outcome.typed))
        after = " · ← undoes the whole block" if outcome.undoable else ""
        return f"{head}{after}{' · ' + outcome.note if outcome.note else ''}\n" + "\n".join(outcome.lines)
    lines = "\n".join(outcome.lines)
    after = " · ← undoes it" if outcome.undoable else ""
    return f"> {outcome.line.typed}{after}{' · ' + outcome.note if outcome.note else ''}\n{lines}"


class ConsoleScreen(ModalScreen[None]):
    """The prompt over the dive: the dive's store pane follows each line sent; escape closes it."""

    DEFAULT_CSS: ClassVar[str] = """
    ConsoleScreen { align: left bottom; background: transparent; }
    ConsoleScreen > Vertical { dock: bottom; height: auto; background: $surface; border-top: solid $primary; }
    ConsoleScreen #console-intro { color: $text-muted; height: 1; }
    ConsoleScreen #console-reply { height: auto; max-height: 25vh; overflow-y: auto; }
    ConsoleScreen #console-reply.-error { color: $text-error; }
    ConsoleScreen ConsolePrompt, ConsoleScreen ConsolePrompt:focus { border: none; height: 1; padding: 0 1; }
    ConsoleScreen ConsolePrompt.-block { background: $warning 20%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "close")]

    def __init__(self, console: Console, dive: DiveScreen) -> None:
        super().__init__()
        self.console = console
        self.dive = dive
        self.outcome: Outcome | None = None
        """The last line's outcome, as the reply line shows it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(INTRO, id="console-intro")
            yield Static("", id="console-reply", markup=False)
            yield ConsolePrompt(self.console.history)

    def on_mount(self) -> None:
        self.mark_block()
        self.query_one(ConsolePrompt).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value
        said = self.console.local(typed)
        if said is not None:  # refused, a block word or a queued line: said here, before any worker or store I/O
            event.input.value = ""
            self.show(said)
            return
        dive = self.dive
        if not settled(dive):
            self.show(Refusal(typed, "the store is busy with a move; send it again in a moment"))
            return
        event.input.value = ""
        dive.playing = False
        self.send(typed, dive.moves.seq)

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def send(self, typed: str, seq: int) -> None:
        """Run ``typed`` inside the store's lock; post the reply here and the new frame to the dive."""
        try:
            with self.console.session.store.io():
                outcome, frame = self.console.run(typed)
        except Exception as err:  # the store closed or would not answer: said on the reply line, not raised
            outcome, frame = Failed(typed, f"{type(err).__name__}: {err}"), None
        if frame is not None:
            self.dive.post_message(FrameReady(with_seq(frame, seq)))
        self.post_message(ConsoleReplied(outcome, frame))

    def on_console_replied(self, message: ConsoleReplied) -> None:
        self.dive.recorder.console(message.outcome)
        self.show(message.outcome)

    def show(self, outcome: Outcome) -> None:
        """Show ``outcome`` on the reply line."""
        self.outcome = outcome
        reply = self.query_one("#console-reply", Static)
        reply.update(said(outcome))
        reply.set_class(isinstance(outcome, (Refusal, Failed)) or (isinstance(outcome, (Replied, Executed))
                                                                   and outcome.errored), "-error")
        self.mark_block()

    def mark_block(self) -> None:
        """Say on the intro line and the prompt whether a MULTI block is open, and how many lines it holds."""
        block = self.console.block
        self.query_one("#console-intro", Static).update(INTRO if block is None else open_words(block))
        prompt = self.query_one(ConsolePrompt)
        prompt.set_class(block is not None, "-block")
        prompt.placeholder = PLACEHOLDER if block is None else BLOCK_PLACEHOLDER
