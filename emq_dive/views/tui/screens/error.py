"""The error view: what went wrong with the store, in words, inside the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import redis
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ....engine.echo_mq.connector import error_text
from ....engine.echo_mq.keyspace import IllFormed
from ....engine.stores.protocol import StoreLike

STOPPED = "The server this app started has stopped"
RETRY = "r retry (set the batch up again) · escape close · q quit"
RESPAWN = "r start a new server and set the batch up again · escape close · q quit"


def describe(err: BaseException, stopped: bool = False) -> tuple[str, str]:
    """A title and an explanation for an error raised by store I/O; ``stopped`` when the server the app started
    has exited under it."""
    if stopped:
        return STOPPED, (f"{err}\n\nThe server this app started has stopped (it was not this app that stopped "
                         "it). Press r to start a new one and set the batch up again on it.")
    if isinstance(err, (redis.ConnectionError, redis.TimeoutError)):
        return "The store is gone", f"{err}\n\nThe server stopped answering. Check it is running, then press r."
    if isinstance(err, redis.ResponseError):
        text = error_text(err)
        word = text.split(" ", 1)[0]
        if word == "NOPERM":
            return "The store refused: NOPERM", f"{text}\n\nThe connected user may not touch these keys."
        if word == "WRONGTYPE":
            return "The store refused: WRONGTYPE", f"{text}\n\nA key of the queue holds another type."
        return f"The store answered with an error: {word}", text
    if isinstance(err, IllFormed):
        return "An ill-formed id", f"{err}\n\nThe key gate refuses it before anything reaches the store."
    return f"Something went wrong: {type(err).__name__}", str(err)


class ErrorView(ModalScreen[str]):
    """Shows one error; r retries, escape closes, q quits."""

    DEFAULT_CSS: ClassVar[str] = """
    ErrorView { align: center middle; }
    ErrorView > Vertical {
        width: 76; max-width: 100%; height: auto; max-height: 90%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ErrorView #error-title { text-style: bold; color: $text-error; margin-bottom: 1; }
    ErrorView #error-keys { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss('close')", "close"),
        Binding("r", "dismiss('retry')", "retry"),
        Binding("q", "dismiss('quit')", "quit"),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.keys = RESPAWN if title == STOPPED else RETRY

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="error-title")
            yield Static(Text(self.body), id="error-body")
            yield Static(self.keys, id="error-keys")


def show_error(app: App[Any], error: BaseException, store: StoreLike, retry: Callable[[], None]) -> None:
    """Show ``error`` in the error view; r there starts a new server where the app's own one stopped, then calls
    ``retry``; q quits the app."""
    def chosen(choice: str | None) -> None:
        if choice == "retry":
            store.respawn()  # a new server in place of one that stopped; the set-up waits for it
            retry()
        elif choice == "quit":
            app.exit()

    app.push_screen(ErrorView(*describe(error, store.stopped)), chosen)
