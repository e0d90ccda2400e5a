"""The agreement check: the same held list run unstepped from the same start, compared with the stepped run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis

from ..echo_mq import keyspace, moves
from ..echo_mq.connector import error_text
from ..stores import snapshot
from ..stores.expiry import queue_keys
from ..stores.protocol import StoreLike
from .driver import Driver, Interlude
from .model import Agreement, Step
from .outcome import Verdict
from .timeline import Timeline


def _b(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def verify(store: StoreLike, driver: Driver, timeline: Timeline, stepped: Step, lease_ms: int,
           between: Interlude) -> Agreement:
    """Rewind the stepped run's writes, run the held list unstepped (``between`` lands racing moves where they landed
    in the stepped run), compare, and put the stepped end back."""
    client, queue = store.client, store.queue
    rescored = tuple(m.id for m in stepped.members if m.verdict is Verdict.RESCORED)
    stepped_end = snapshot.take(client, queue)
    timeline.undo_all()
    before = moves.server_now_ms(client)
    command, atomic_reply = driver.atomic(between)
    after = moves.server_now_ms(client)
    ends = Ends(client, queue, stepped_end)
    snapshot.restore_keys(client, stepped_end, ends.differing())
    run_id = _run_id(store)
    active = ends.atomic_value(keyspace.queue_key(queue, "active").encode())
    if not driver.one_command:
        return _singles(driver, command, stepped, atomic_reply, (before, after), lease_ms, run_id, ends, active)
    atomic_now = _atomic_now(lease_ms, active, rescored)
    differences: list[str] = []
    stepped_reply = stepped.reply if stepped.error is None else stepped.error
    atomic_text = error_text(atomic_reply) if isinstance(atomic_reply, Exception) else atomic_reply
    if isinstance(atomic_reply, Exception) or stepped.error is not None:
        if stepped.error is None or not isinstance(atomic_reply, Exception) or \
                stepped.error.split()[0] != atomic_text.split()[0]:
            differences.append(f"replies differ: stepped {stepped_reply!r}, atomic {atomic_text!r}")
    elif not isinstance(stepped_reply, list) or not isinstance(atomic_reply, list) or \
            [_b(x) for x in stepped_reply] != list(atomic_reply):
        differences.append(f"failed lists differ: stepped {stepped_reply!r}, atomic {atomic_reply!r}")
    if rescored and atomic_now is None:
        differences.append("the atomic run did not re-score every member at one shared score")
    elif atomic_now is not None and not before <= atomic_now <= after:
        differences.append(f"the atomic run's now {atomic_now} is outside its clock reads {before}..{after}")
    differences += ends.differences(_shared(stepped.now, rescored, lease_ms), _shared(atomic_now, rescored, lease_ms),
                                    run_id)
    return Agreement(wire=driver.wire, command=command, stepped_reply=stepped_reply,
                     atomic_reply=atomic_text, stepped_now=stepped.now, atomic_now=atomic_now,
                     rescored=rescored, agree=not differences, differences=tuple(differences))


def _run_id(store: StoreLike) -> bytes | None:
    """The server's run_id, or None where this user may not ask (it only makes the differences easier to read)."""
    try:
        return store.run_id()
    except redis.ResponseError:
        return None


def _atomic_now(lease_ms: int, active: Any, rescored: tuple[str, ...]) -> int | None:
    """The now the atomic run read: its one shared score less the lease, if every re-scored member has it."""
    if not rescored or not isinstance(active, dict):
        return None
    scores = {active.get(_b(job_id)) for job_id in rescored}
    if len(scores) != 1 or None in scores:
        return None
    score = scores.pop()
    assert score is not None
    return int(score) - lease_ms


def _shared(now: int | None, rescored: Sequence[str], lease_ms: int) -> dict[bytes, int]:
    """Each re-scored member's deadline under one shared clock read."""
    return {} if now is None else {_b(job_id): now + lease_ms for job_id in rescored}


def _singles(driver: Driver, command: tuple[bytes, ...], stepped: Step, atomic_reply: Any,
             clock: tuple[int, int], lease_ms: int, run_id: bytes | None, ends: Ends, active: Any) -> Agreement:
    """Singles: each call's reply class and each re-scored member's own deadline, call for call."""
    stepped_replies = [1 if m.error is None else m.error for m in stepped.members]
    atomic_replies = [error_text(r) if isinstance(r, Exception) else r for r in atomic_reply]
    differences = []
    for member, mine, theirs in zip(stepped.members, stepped_replies, atomic_replies, strict=False):
        if str(mine).split(" ", 1)[0] != str(theirs).split(" ", 1)[0]:
            differences.append(f"{member.id}: stepped {mine!r}, unstepped {theirs!r}")
    if len(stepped_replies) != len(atomic_replies):
        differences.append(f"stepped {len(stepped_replies)} calls, unstepped {len(atomic_replies)}")
    rescored = tuple(m.id for m in stepped.members if m.verdict is Verdict.RESCORED)
    theirs_at = {_b(j): int(active[_b(j)]) for j in rescored if isinstance(active, dict) and _b(j) in active}
    atomic_nows = [score - lease_ms for score in theirs_at.values()]
    if any(not clock[0] <= now <= clock[1] for now in atomic_nows):
        differences.append(f"an unstepped call's now is outside its clock reads {clock[0]}..{clock[1]}")
    mine_at = {_b(m.id): m.new_score for m in stepped.members if m.verdict is Verdict.RESCORED and m.new_score}
    differences += ends.differences(mine_at, theirs_at, run_id)
    return Agreement(wire=driver.wire, command=command, stepped_reply=stepped_replies, atomic_reply=atomic_replies,
                     stepped_now=stepped.clock_reads[0] if stepped.clock_reads else None,
                     atomic_now=min(atomic_nows) if atomic_nows else None, rescored=rescored,
                     agree=not differences, differences=tuple(differences))


class Ends:
    """The queue as the stepped run and as the atomic run left it: the atomic end is read a chunk at a time and only
    what differs from the stepped end is kept, so a big queue is held once, not copied into plain values and views."""

    def __init__(self, client: redis.Redis, queue: str, stepped: snapshot.Snapshot) -> None:
        self.stepped = stepped
        keys = queue_keys(client, queue)
        self.atomic: snapshot.Snapshot = {}
        """The atomic end's entries that differ from the stepped end's, and every active set."""
        for chunk in snapshot.take_chunks(client, keys):
            self.atomic.update((key, entry) for key, entry in chunk.items()
                               if entry != stepped.get(key) or key.endswith(b":active"))
        self.gone = stepped.keys() - set(keys)
        """Keys the stepped run left that the atomic run did not."""

    def differing(self) -> list[bytes]:
        """The keys whose type or contents the two runs left unlike (the ones to put back to the stepped end)."""
        return [key for key in self.gone | self.atomic.keys() if key in self.gone or
                self.stepped.get(key) != self.atomic[key]]

    def _atomic(self, key: bytes) -> snapshot.Entry | None:
        if key in self.gone:
            return None
        return self.atomic.get(key, self.stepped.get(key))

    def atomic_value(self, key: bytes) -> Any:
        """``key`` as the atomic run left it, as ``snapshot.read`` gives it (None when it does not exist)."""
        entry = self._atomic(key)
        return None if entry is None else snapshot.plain_value(entry)

    def differences(self, stepped_deadlines: dict[bytes, int], atomic_deadlines: dict[bytes, int],
                    run_id: bytes | None) -> list[str]:
        """Each key whose view differs, in key order: an active set with each re-scored member's own deadline
        written ``now+lease``, a hash with the server's run_id written ``<run_id>``."""
        out = []
        for key in sorted(self.gone | self.atomic.keys()):  # equal contents read alike, but for an active set's
            mine, theirs = self.stepped.get(key), self._atomic(key)  # view, which depends on its side's deadlines
            mine_view, theirs_view = (_view(key, entry, deadlines, run_id) for entry, deadlines in
                                      ((mine, stepped_deadlines), (theirs, atomic_deadlines)))
            if mine_view != theirs_view:
                out.append(f"{key.decode()}: stepped {mine_view!r}, atomic {theirs_view!r}")
        return out


def _view(key: bytes, entry: snapshot.Entry | None, deadlines: dict[bytes, int], run_id: bytes | None) -> Any:
    """One key as plain values, symbolic where the two runs may rightly differ (None when it does not exist)."""
    if entry is None:
        return None
    value = snapshot.plain_value(entry)
    if isinstance(value, dict) and key.endswith(b":active"):
        return {member: ("now+lease" if deadlines.get(member) == int(score) else int(score))
                for member, score in value.items()}
    if isinstance(value, dict):
        return {name: (b"<run_id>" if run_id is not None and field == run_id else field)
                for name, field in value.items()}
    return value
