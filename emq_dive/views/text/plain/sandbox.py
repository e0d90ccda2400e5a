"""The plain mode's sandbox (e): a line editor over sandbox.SandboxBatch that runs the edit or saves it as a lesson."""

from __future__ import annotations

import os
from collections.abc import Callable

from ....course.lessons import MEMBER_FATES
from ....course.sandbox import MAX_MEMBERS, SandboxBatch, SandboxError, current_batch, job_id, resized, save_as
from ....course.user_lessons import SavePolicy, free_id
from .state import Dive

SHOWN = 20
"""Members ``l`` lists at a time."""
HELP = ("l [N] lists the members (from member N), f N FATE gives member N a fate (its name or number: "
        + ", ".join(f"{n} {key}" for n, key in enumerate(MEMBER_FATES, 1)) + "), t N [TOKEN] sets its token "
        "(none sends the claimed one), i N ID renames it, a [ID] [FATE] adds a member at the end, d N removes one, "
        "v N TO moves one, lease MS sets lease_ms, n COUNT sets the member count, r runs the batch from step 0, "
        "s [FILE] saves it as a lesson, c leaves the sandbox and keeps the run as it was, h is this help.")


def _index(text: str, batch: SandboxBatch) -> int:
    """Member number ``text`` (from 1) as an index, or SandboxError."""
    if not text.isdigit() or not 1 <= int(text) <= len(batch.members):
        raise SandboxError(f"there is no member {text or '(none given)'}: the batch has {len(batch.members)}")
    return int(text) - 1


def _fate(text: str) -> str:
    """A member fate named by its key or its number; anything else is left for the batch's own check to refuse."""
    return MEMBER_FATES[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(MEMBER_FATES) else text


def listing(batch: SandboxBatch, start: int = 0) -> str:
    """Up to SHOWN members from ``start``: number, id, fate and token."""
    shown = batch.members[start:start + SHOWN]
    said = "; ".join(f"{start + n} {m.id}, {m.fate}, token {'claimed' if m.token is None else m.token}"
                     for n, m in enumerate(shown, 1))
    more = f" l {start + SHOWN + 1} lists on." if start + SHOWN < len(batch.members) else ""
    return f"The sandbox batch: {len(batch.members):,} members, lease_ms {batch.lease_ms:,}. {said}.{more}"


class Sandbox:
    """One visit to the sandbox: edits are checked by SandboxBatch, and only ``r`` touches the store."""

    def __init__(self, dive: Dive) -> None:
        self.dive = dive
        session = dive.session
        self.batch = current_batch(session.lesson, session.held, session.fates)

    def run(self) -> None:
        """Read editor commands until ``r`` runs the batch, ``c`` leaves, or the input ends."""
        dive = self.dive
        dive.say(f"The sandbox: edit the batch, then r runs it from step 0 on the live store. {HELP}")
        dive.say(listing(self.batch))
        while (line := dive.read()) is not None:
            command, _, rest = line.partition(" ")
            if command == "r":
                dive.move(lambda: dive.session.restart(self.batch))
                return
            if command in ("c", "q"):
                dive.say("Left the sandbox; the run is as it was.")
                return
            self.answer(command, rest.split())

    def answer(self, command: str, args: list[str]) -> None:
        """Do one editor command other than run and leave."""
        batch, at = self.batch, [*args, "", ""][:2]
        edits: dict[str, tuple[str, Callable[[], SandboxBatch]]] = {
            "f": ("fate set", lambda: batch.with_fate(_index(at[0], batch), _fate(at[1]))),
            "t": ("token set", lambda: batch.with_token(_index(at[0], batch), at[1])),
            "i": ("renamed", lambda: batch.with_id(_index(at[0], batch), at[1])),
            "a": ("added", lambda: batch.add(at[0] or self._unused(), _fate(at[1] or "live"))),
            "d": ("removed", lambda: self._remove(at[0])),
            "v": ("moved", lambda: batch.move(_index(at[0], batch), _index(at[1], batch))),
            "lease": ("lease_ms set", lambda: batch.with_lease(at[0])),
            "n": ("member count set", lambda: resized(batch, at[0])),
        }
        if command == "l":
            start = int(at[0]) - 1 if at[0].isdigit() and int(at[0]) >= 1 else 0
            self.dive.say(listing(batch, min(start, max(len(batch.members) - 1, 0))))
        elif command in ("h", "?"):
            self.dive.say(HELP)
        elif command == "s":
            self.save(" ".join(args))
        elif command in edits:
            self.edit(*edits[command])
        else:
            self.dive.say(f"Not a sandbox command: {command!r}. {HELP}")

    def edit(self, change: str, make: Callable[[], SandboxBatch]) -> None:
        """Take the batch ``make`` returns, or say why it was refused and keep the batch as it was."""
        try:
            batch = make()
        except SandboxError as err:
            self.dive.say(f"Refused, nothing changed: {err}.")
            return
        self.batch = batch
        self.dive.say(f"{change} · {len(batch.members):,} members, lease_ms {batch.lease_ms:,}; r runs it.")

    def _unused(self) -> str:
        used = {member.id for member in self.batch.members}
        return next(job_id(n) for n in range(1, MAX_MEMBERS + 2) if job_id(n) not in used)

    def _remove(self, text: str) -> SandboxBatch:
        index = _index(text, self.batch)
        if len(self.batch.members) == 1:
            raise SandboxError("a batch needs at least one member")
        return self.batch.remove(index)

    def save(self, text: str) -> None:
        """Save the batch as a lesson of the learner's, under the id ``text`` names (else the next free one)."""
        policy = SavePolicy.from_environ(os.environ)
        try:
            _, said = save_as(self.batch, text or free_id(policy.directory), self.dive.session.lesson, policy)
        except SandboxError as err:
            self.dive.say(f"Not saved: {err}.")
            return
        self.dive.say(f"{said[:1].upper()}{said[1:]}.")


def sandbox(dive: Dive, _key: str, _argument: str) -> None:
    """Edit the batch in the sandbox; running it restarts the dive from step 0 with the new batch."""
    Sandbox(dive).run()
