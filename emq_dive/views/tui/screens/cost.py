"""The cost view: measure, on the dive's own store, what one lease costs batched, one by one and natively."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ....engine.echo_mq.wires import NATIVE
from ....engine.stores.protocol import StoreLike
from ....tools import cost
from ..widgets.cost_chart import CostChart


class _Closed(Exception):
    """The view closed while it measured."""


class CostView(ModalScreen[None]):
    """Runs cost.measure in a worker, shows its progress, then the bar chart of what it measured."""

    DEFAULT_CSS: ClassVar[str] = """
    CostView { align: center middle; }
    CostView > VerticalScroll {
        width: 96; max-width: 100%; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    CostView #cost-heading { text-style: bold; color: $text-accent; }
    CostView .cost-muted { color: $text-muted; }
    CostView ProgressBar { margin: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,c", "dismiss", "close")]

    @dataclass
    class Progressed(Message):
        """The measurement finished ``done`` of ``total`` figures; ``what`` runs next."""

        done: int
        total: int
        what: str

    @dataclass
    class Measured(Message):
        """The measurement is in."""

        costs: cost.Costs

    def __init__(self, store: StoreLike, lease_ms: int, sizes: tuple[int, ...] = cost.SIZES) -> None:
        super().__init__()
        self.store = store
        self.lease_ms = lease_ms
        self.sizes = sizes
        self.costs: cost.Costs | None = None

    def compose(self) -> ComposeResult:
        store = self.store
        with VerticalScroll():
            yield Static(f"The cost of one lease · measured now on {store.description}", id="cost-heading")
            counts = ", ".join(f"{size:,}" for size in self.sizes)
            native = f"natively with {NATIVE.command}" if NATIVE.supports(store) else \
                f"(not natively: {store.native_reason})"
            yield Static(f"Extends {counts} leases as one batch, as N single calls, and {native}, on a scratch "
                         "queue of its own that is deleted afterwards; the dive's keys stay as they were. "
                         "The figures are this machine's, from these runs, not a reference.", classes="cost-muted")
            yield ProgressBar(total=1, show_eta=False, id="cost-progress")
            yield Static("starting…", id="cost-status", classes="cost-muted")
            yield CostChart(id="cost-chart")
            yield Static("escape or c closes", classes="cost-muted")

    def on_mount(self) -> None:
        self._measure()

    @work(thread=True, exclusive=True, group="cost", exit_on_error=False)
    def _measure(self) -> None:
        store = self.store

        worker = get_current_worker()

        def told(done: int, total: int, what: str) -> None:
            if worker.is_cancelled:
                raise _Closed
            self.post_message(self.Progressed(done, total, what))

        try:
            with store.io():
                costs = cost.measure(store, self.sizes, self.lease_ms, store.description, store.native_reason,
                                     progress=told)
        except _Closed:
            return  # the view closed mid-measure: the scratch queue is gone and the store free for the dive
        self.post_message(self.Measured(costs))

    def on_cost_view_progressed(self, message: Progressed) -> None:
        self.query_one(ProgressBar).update(total=message.total, progress=message.done)
        status = "measured" if message.what == "done" else f"measuring {message.what}…"
        self.query_one("#cost-status", Static).update(status)

    def on_cost_view_measured(self, message: Measured) -> None:
        self.costs = message.costs
        self.query_one("#cost-status", Static).update(f"measured on {message.costs.backend}")
        self.query_one(CostChart).show(message.costs)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            self.query_one("#cost-status", Static).update(f"the measurement failed: {type(error).__name__}: {error}")
