"""The sandbox's member list: place, id, fate and the token each member is sent with."""

from __future__ import annotations

from textual.coordinate import Coordinate
from textual.widgets import DataTable

from ....course.sandbox import SandboxBatch, SandboxMember
from ....engine.fate_table import BY_KEY


def cells(number: int, member: SandboxMember) -> tuple[str, ...]:
    """One member's row: its place (from 1), id, fate, the fate's title and the token it is sent with."""
    return (str(number), member.id, member.fate, BY_KEY[member.fate].title,
            "claimed" if member.token is None else str(member.token))


class SandboxTable(DataTable[str]):
    """One row per member of the batch being edited; the cursor picks the member an edit applies to."""

    def __init__(self, batch: SandboxBatch) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True)
        self.edited = batch

    def on_mount(self) -> None:
        self.add_columns("#", "id", "fate", "what it is", "token sent")
        self.add_rows(cells(n, m) for n, m in enumerate(self.edited.members, start=1))

    def show(self, batch: SandboxBatch, row: int | None = None) -> None:
        """Draw ``batch`` and put the cursor on ``row`` (where it was when None); same-size edits redraw only the
        rows they changed, so a big batch stays quick to edit."""
        keep = self.cursor_row if row is None else row
        before, self.edited = self.edited, batch
        if self.row_count and self.row_count == len(batch.members):
            for index, (old, new) in enumerate(zip(before.members, batch.members, strict=True)):
                if old != new:
                    for column, value in enumerate(cells(index + 1, new)):
                        self.update_cell_at(Coordinate(index, column), value)
        else:
            self.clear()
            self.add_rows(cells(n, m) for n, m in enumerate(batch.members, start=1))
        self.move_cursor(row=max(0, min(keep, len(batch.members) - 1)))
