"""The sandbox's member list: place, id, fate and the token each member is sent with."""

from __future__ import annotations

from textual.widgets import DataTable

from ..fate_table import BY_KEY
from ..sandbox import SandboxBatch


class SandboxTable(DataTable[str]):
    """One row per member of the batch being edited; the cursor picks the member an edit applies to."""

    def __init__(self, batch: SandboxBatch) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True)
        self.edited = batch

    def on_mount(self) -> None:
        self.add_columns("#", "id", "fate", "what it is", "token sent")
        self.show(self.edited)

    def show(self, batch: SandboxBatch, row: int | None = None) -> None:
        """Draw ``batch`` and put the cursor on ``row`` (where it was when None)."""
        keep = self.cursor_row if row is None else row
        self.edited = batch
        self.clear()
        self.add_rows((str(n), m.id, m.fate, BY_KEY[m.fate].title, "claimed" if m.token is None else str(m.token))
                      for n, m in enumerate(batch.members, start=1))
        self.move_cursor(row=max(0, min(keep, len(batch.members) - 1)))
