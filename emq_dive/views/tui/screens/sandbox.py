"""The sandbox editor: change the batch's members, fates, tokens, order and lease, run it, or save it as a lesson."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label, Static

from ....course import lessons
from ....course.sandbox import MAX_MEMBERS, SandboxBatch, SandboxError, job_id, resized, save_as
from ....course.user_lessons import SavePolicy, free_id
from ....engine import fate_table
from ..widgets.sandbox_table import SandboxTable

MEMBER_FATES = tuple(fate.key for fate in fate_table.FATES if fate.member)
"""The fates a member may be given, in the fate table's order."""


class SandboxEditor(ModalScreen[SandboxBatch | None]):
    """Edits a SandboxBatch; every refused edit shows why and leaves the batch as it was; ``r`` runs it."""

    DEFAULT_CSS: ClassVar[str] = """
    SandboxEditor { align: center middle; }
    SandboxEditor > Vertical {
        width: 100; max-width: 100%; height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    SandboxEditor #sandbox-heading { text-style: bold; color: $text-accent; }
    SandboxEditor .sandbox-muted { color: $text-muted; }
    SandboxEditor SandboxTable { height: 1fr; }
    SandboxEditor Horizontal { height: auto; }
    SandboxEditor Label { padding: 1 1 0 1; }
    SandboxEditor Input { width: 1fr; }
    SandboxEditor #sandbox-message { height: auto; min-height: 1; }
    SandboxEditor #sandbox-message.-refused { color: $text-error; }
    SandboxEditor #sandbox-save { display: none; }
    SandboxEditor.-saving #sandbox-save { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "add"),
        Binding("d,delete", "remove", "remove"),
        Binding("f", "fate(1)", "fate"),
        Binding("F", "fate(-1)", "fate back", show=False),
        Binding("shift+up", "move(-1)", "up", key_display="⇧↑"),
        Binding("shift+down", "move(1)", "down", key_display="⇧↓"),
        Binding("i", "edit('sandbox-id')", "id", show=False),
        Binding("t", "edit('sandbox-token')", "token", show=False),
        Binding("l", "edit('sandbox-lease')", "lease_ms", show=False),
        Binding("n", "edit('sandbox-size')", "members", show=False),
        Binding("r", "run", "run it"),
        Binding("s", "save", "save"),
        Binding("escape", "leave", "cancel"),
    ]

    def __init__(self, batch: SandboxBatch, base: lessons.Lesson, policy: SavePolicy | None = None) -> None:
        super().__init__()
        self.edited = batch
        self.base = base
        self.policy = policy or SavePolicy.from_environ(os.environ)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("The sandbox · edit the batch, then r runs it from step 0 on the live store",
                         id="sandbox-heading")
            yield Static("a adds a member, d removes one, f gives it the next fate, ⇧↑/⇧↓ move it; i, t, l and n "
                         "edit its id, its token (empty sends the claimed one), lease_ms and the member count; "
                         "Enter sets what you typed. s saves the batch as a lesson of yours.", classes="sandbox-muted")
            yield SandboxTable(self.edited)
            with Horizontal():
                yield Label("id")
                yield Input(id="sandbox-id")
                yield Label("token")
                yield Input(id="sandbox-token", placeholder="claimed")
                yield Label("lease_ms")
                yield Input(str(self.edited.lease_ms), id="sandbox-lease")
                yield Label("members")
                yield Input(str(len(self.edited.members)), id="sandbox-size")
            with Horizontal(id="sandbox-save"):
                yield Label("save as id")
                yield Input(id="sandbox-path")
            yield Static("", id="sandbox-message")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one(SandboxTable).focus()
        self._fill()

    @property
    def row(self) -> int:
        """The member the cursor is on."""
        return self.query_one(SandboxTable).cursor_row

    def _fill(self) -> None:
        """Put the highlighted member's id and token, and the batch's lease and size, in the fields."""
        member = self.edited.members[min(self.row, len(self.edited.members) - 1)]
        self.query_one("#sandbox-id", Input).value = member.id
        self.query_one("#sandbox-token", Input).value = "" if member.token is None else str(member.token)
        self.query_one("#sandbox-lease", Input).value = str(self.edited.lease_ms)
        self.query_one("#sandbox-size", Input).value = str(len(self.edited.members))

    def say(self, text: str, refused: bool = False) -> None:
        """Show ``text`` under the fields (in the error style when an edit was refused)."""
        message = self.query_one("#sandbox-message", Static)
        message.update(text)
        message.set_class(refused, "-refused")

    def _edit(self, change: str, make: Callable[[], SandboxBatch], row: int | None = None) -> bool:
        """Take the batch ``make`` returns, or show why it was refused and keep the batch as it was."""
        try:
            batch = make()
        except SandboxError as err:
            self.say(f"refused, nothing changed: {err}", refused=True)
            return False
        self.edited = batch
        self.query_one(SandboxTable).show(batch, row)
        self._fill()
        self.say(f"{change} · {len(batch.members):,} members, lease_ms {batch.lease_ms:,}; r runs it")
        return True

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._fill()

    def action_add(self) -> None:
        """Add a live member under the next unused course id, after the highlighted one."""
        used = {member.id for member in self.edited.members}
        number = next(n for n in range(1, MAX_MEMBERS + 2) if job_id(n) not in used)
        at = self.row + 1
        self._edit(f"added {job_id(number)}", lambda: self.edited.add(job_id(number), "live", at), at)

    def action_remove(self) -> None:
        """Remove the highlighted member (a batch keeps at least one)."""
        if len(self.edited.members) == 1:
            self.say("refused, nothing changed: a batch needs at least one member", refused=True)
            return
        row = self.row
        gone = self.edited.members[row].id
        self._edit(f"removed {gone}", lambda: self.edited.remove(row), min(row, len(self.edited.members) - 2))

    def action_fate(self, delta: int) -> None:
        """Give the highlighted member the next (or previous) member fate of the fate table."""
        row = self.row
        member = self.edited.members[row]
        fate = MEMBER_FATES[(MEMBER_FATES.index(member.fate) + delta) % len(MEMBER_FATES)]
        self._edit(f"{member.id} is now {fate}", lambda: self.edited.with_fate(row, fate), row)

    def action_move(self, delta: int) -> None:
        """Move the highlighted member up or down one place."""
        row, to = self.row, self.row + delta
        if 0 <= to < len(self.edited.members):
            self._edit(f"moved {self.edited.members[row].id} to place {to + 1}", lambda: self.edited.move(row, to), to)

    def action_edit(self, field: str) -> None:
        """Put the cursor in one of the fields."""
        self.query_one(f"#{field}", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        row, value, batch = self.row, event.value, self.edited
        edits = {
            "sandbox-id": ("renamed", lambda: batch.with_id(row, value.strip())),
            "sandbox-token": ("token set", lambda: batch.with_token(row, value.strip())),
            "sandbox-lease": ("lease_ms set", lambda: batch.with_lease(value)),
            "sandbox-size": ("member count set", lambda: resized(batch, value)),
        }
        if event.input.id == "sandbox-path":
            self._save(value)
        elif event.input.id in edits:
            change, make = edits[event.input.id]
            if self._edit(change, make, row):
                self.query_one(SandboxTable).focus()

    def action_run(self) -> None:
        """Run the edited batch: the dive restarts from step 0 with it on the live store."""
        self.dismiss(self.edited)

    def action_save(self) -> None:
        """Ask for the id to save the batch under as a lesson (saving may be off, and then says why)."""
        folder = self.policy.directory
        if folder is None:
            self.say(f"saving is off: {self.policy.reason}", refused=True)
            return
        self.add_class("-saving")
        field = self.query_one("#sandbox-path", Input)
        field.value = free_id(folder)
        field.focus()
        self.say(f"Enter saves the lesson under this id in {folder} (an id, not a path); escape keeps editing")

    def _save(self, text: str) -> None:
        try:
            _, said = save_as(self.edited, text, self.base, self.policy)
        except SandboxError as err:
            self.say(f"not saved: {err}", refused=True)
            return
        self.remove_class("-saving")
        self.query_one(SandboxTable).focus()
        self.say(said)

    def action_leave(self) -> None:
        """Leave a field for the member list, or close the editor and keep the run as it was."""
        if isinstance(self.focused, Input):
            self.remove_class("-saving")
            self.query_one(SandboxTable).focus()
            self._fill()
        else:
            self.dismiss(None)
