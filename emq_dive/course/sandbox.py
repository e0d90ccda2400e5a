"""The sandbox: an editable batch (members, fates, tokens, lease), checked before anything is written, and saved as
a lesson file the course loads."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..engine import fate_table
from ..engine.echo_mq import jobs, keyspace, moves
from ..engine.fates.setups import settle_many
from ..engine.stores.protocol import StoreLike
from . import lessons, user_lessons
from .lesson_file import MAX_MEMBERS

__all__ = ["MAX_MEMBERS", "SandboxBatch", "SandboxError", "SandboxMember", "from_lesson", "save_as", "save_lesson",
           "setup"]
_INTEGER = re.compile(r"[+-]?[0-9]+")


class SandboxError(ValueError):
    """An edit the sandbox refuses; nothing changed, and the message says why in one sentence."""


@dataclass(frozen=True)
class SandboxMember:
    """One member: its id, its fate (a member fate of the fate table), and the token it is sent with."""

    id: str
    fate: str
    token: int | None = None
    """None sends the attempts the holder claimed under; an integer sends that token instead."""


def _int(text: str | int, what: str) -> int:
    """``text`` as an integer, or SandboxError naming ``what``."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str) or not _INTEGER.fullmatch(text.strip()):
        shown = text if not isinstance(text, str) or len(text) <= 40 else f"{text[:20]}…"
        raise SandboxError(f"{what} must be an integer, not {shown!r}")
    if len(text.strip()) > 40:
        raise SandboxError(f"{what} has {len(text.strip())} digits; no limit of the protocol needs more than 20")
    return int(text.strip())


@dataclass(frozen=True)
class SandboxBatch:
    """An immutable batch being edited: every edit returns a new, checked batch, or raises SandboxError."""

    members: tuple[SandboxMember, ...]
    lease_ms: int

    def __post_init__(self) -> None:
        check(self.members, self.lease_ms)

    def add(self, job_id: str, fate: str = "live", at: int | None = None) -> SandboxBatch:
        """A member ``job_id`` with ``fate``, at position ``at`` (the end when None)."""
        members = list(self.members)
        members.insert(len(members) if at is None else at, SandboxMember(job_id, fate))
        return replace(self, members=tuple(members))

    def remove(self, index: int) -> SandboxBatch:
        """Without member ``index``."""
        self._index(index)
        return replace(self, members=self.members[:index] + self.members[index + 1:])

    def move(self, index: int, to: int) -> SandboxBatch:
        """Member ``index`` moved to position ``to``."""
        self._index(index)
        self._index(to)
        members = list(self.members)
        members.insert(to, members.pop(index))
        return replace(self, members=tuple(members))

    def with_fate(self, index: int, fate: str) -> SandboxBatch:
        """Member ``index`` given ``fate``."""
        return self._edit(index, fate=fate)

    def with_id(self, index: int, job_id: str) -> SandboxBatch:
        """Member ``index`` renamed ``job_id``."""
        return self._edit(index, id=job_id)

    def with_token(self, index: int, token: str | int | None) -> SandboxBatch:
        """Member ``index`` sent with ``token`` (text from the editor is parsed; None or "" sends its claimed one)."""
        value = None if token is None or token == "" else _int(token, f"the token of member {index + 1}")
        return self._edit(index, token=value)

    def with_lease(self, lease_ms: str | int) -> SandboxBatch:
        """The batch with ``lease_ms`` (text from the editor is parsed)."""
        return replace(self, lease_ms=_int(lease_ms, "lease_ms"))

    @property
    def fates(self) -> tuple[str, ...]:
        """Each member's fate, in order."""
        return tuple(member.fate for member in self.members)

    def _index(self, index: int) -> None:
        if not 0 <= index < len(self.members):
            raise SandboxError(f"there is no member {index + 1}: the batch has {len(self.members)}")

    def _edit(self, index: int, **change: object) -> SandboxBatch:
        self._index(index)
        members = list(self.members)
        members[index] = replace(members[index], **change)  # type: ignore[arg-type]
        return replace(self, members=tuple(members))


def check(members: Sequence[SandboxMember], lease_ms: object) -> None:
    """Refuse a batch the protocol's handle would refuse, or the sandbox cannot set up, with one clear message."""
    if len(members) > MAX_MEMBERS:
        raise SandboxError(f"a batch may hold at most {MAX_MEMBERS:,} members, not {len(members):,}")
    if isinstance(lease_ms, bool) or not isinstance(lease_ms, int):
        raise SandboxError(f"lease_ms must be an integer, not {lease_ms!r}")
    try:
        jobs.check_lease(lease_ms)
    except jobs.BadLease as err:
        raise SandboxError(str(err)) from None
    seen: dict[str, int] = {}
    for number, member in enumerate(members, start=1):
        try:
            keyspace.gate(member.id)
        except keyspace.IllFormed as err:
            raise SandboxError(f"member {number}: the id {member.id!r} is ill-formed: {err.rule}") from None
        if member.id in seen:
            raise SandboxError(f"member {number}: the id {member.id!r} is already member {seen[member.id]}'s")
        seen[member.id] = number
        fate = fate_table.BY_KEY.get(member.fate)
        if fate is None or not fate.member:
            offered = ", ".join(f.key for f in fate_table.FATES if f.member)
            raise SandboxError(f"member {number}: {member.fate!r} is not a member fate (one of {offered})")
        if member.token is not None:
            try:
                jobs.check_token(member.id, member.token)
            except jobs.BadToken as err:
                raise SandboxError(f"member {number}: {err}") from None


def job_id(number: int, width: int = 2) -> str:
    """The id the course gives the ``number``-th member (from 1), such as ``JOB01``."""
    return f"JOB{number:0{width}d}"


def from_lesson(lesson: lessons.Lesson) -> SandboxBatch:
    """The lesson's batch, with the ids and tokens its file names, else the course's ids and claimed tokens."""
    if lesson.members:
        members = tuple(SandboxMember(m.id, m.fate, m.token) for m in lesson.members)
    else:
        width = max(2, len(str(len(lesson.batch))))
        members = tuple(SandboxMember(job_id(n, width), fate) for n, fate in enumerate(lesson.batch, start=1))
    return SandboxBatch(members, lesson.lease_ms)


def current_batch(lesson: lessons.Lesson, held: tuple[tuple[str, int], ...], fates: tuple[str, ...]) -> SandboxBatch:
    """The batch the dive runs: its ids and fates, with the tokens the lesson names (else the claimed ones)."""
    if not held or len(held) != len(fates):
        return from_lesson(lesson)
    tokens = {m.id: m.token for m in lesson.members}
    members = tuple(SandboxMember(job, fate, tokens.get(job)) for (job, _), fate in zip(held, fates, strict=True))
    return SandboxBatch(members, lesson.lease_ms)


def resized(batch: SandboxBatch, text: str) -> SandboxBatch:
    """``batch`` cut or grown (with live members under unused course ids) to the member count ``text`` names."""
    text = text.strip()
    if not text.isdigit():
        raise SandboxError(f"the member count must be a whole number, not {text!r}")
    count = int(text)
    if count < 1:
        raise SandboxError("a batch needs at least one member")
    if count > MAX_MEMBERS:
        raise SandboxError(f"a batch may hold at most {MAX_MEMBERS:,} members, not {count:,}")
    members = list(batch.members[:count])
    used = {member.id for member in members}
    width, number = max(2, len(str(count))), 0
    while len(members) < count:
        number += 1
        if job_id(number, width) not in used:
            members.append(SandboxMember(job_id(number, width), "live"))
            used.add(members[-1].id)
    return SandboxBatch(tuple(members), batch.lease_ms)


class ForgetfulStore(StoreLike, Protocol):
    """A store that can delete every key of its run's queue, and only those."""

    def forget(self) -> None:
        """Delete the run's queue keys."""
        ...


def setup(store: ForgetfulStore, batch: SandboxBatch, claim_lease_ms: int) -> tuple[tuple[str, int], ...]:
    """Reset the run's queue and put each member into its fate with the protocol's own moves; return the held list
    (each id with the token it is sent with)."""
    store.forget()
    client, queue = store.client, store.queue
    ids = [member.id for member in batch.members]
    moves.enqueue_many(client, queue, [(m.id, "lane-a" if m.fate == "lane" else None) for m in batch.members])
    claimed = dict(moves.claim_many(client, queue, len(ids), claim_lease_ms))
    settle_many(client, queue, [(m.id, m.fate) for m in batch.members], claim_lease_ms)
    return tuple((m.id, claimed[m.id] if m.token is None else m.token) for m in batch.members)


def save_lesson(batch: SandboxBatch, lesson_id: str, base: lessons.Lesson, directory: Path,
                title: str | None = None) -> Path:
    """Write ``batch`` as the new lesson file ``directory/lesson_id.toml``, with ``base``'s text and fates.

    Without a ``title`` the lesson is titled after its base and its own id, so ``emq-dive list`` tells the two
    apart.
    """
    try:
        return user_lessons.create(directory, lesson_id, lesson_text(batch, user_lessons.check_id(lesson_id), base,
                                                                      title))
    except user_lessons.SaveRefused as err:
        raise SandboxError(str(err)) from None


def save_as(batch: SandboxBatch, text: str, base: lessons.Lesson, policy: user_lessons.SavePolicy) -> tuple[Path, str]:
    """Save ``batch`` under the id the learner typed, where ``policy`` lets this process save; the file and what to
    tell the learner (every view says the same)."""
    if policy.directory is None:
        raise SandboxError(f"saving is off: {policy.reason}")
    path = save_lesson(batch, text, base, policy.directory)
    if policy.listed:
        return path, f"saved {path}: `emq-dive list` shows it and `emq-dive {path.stem}` opens it"
    return path, f"saved {path}, in this server's own directory for saved lessons"


def lesson_text(batch: SandboxBatch, lesson_id: str, base: lessons.Lesson, title: str | None = None) -> str:
    """The TOML of ``batch`` as the lesson ``lesson_id``, with ``base``'s text and fates."""
    title = title or f"{base.title} · {lesson_id}, from the sandbox"
    out = [f"id = {_toml(lesson_id)}", f"module = {_toml(base.module)}", f"dive = {base.dive}",
           f"title = {_toml(title)}", f"tagline = {_toml(base.tagline)}",
           f"intro = {_toml(base.intro)}", f"lease_ms = {batch.lease_ms}", f"claim_lease_ms = {base.claim_lease_ms}",
           "batch = [" + ", ".join(_toml(fate) for fate in batch.fates) + "]"]
    for section in base.sections:
        out += ["", "[[section]]", f"key = {_toml(section.key)}", f"title = {_toml(section.title)}",
                "follows = [" + ", ".join(_toml(s) for s in section.follows) + "]", f"body = {_toml(section.body)}"]
    for member in batch.members:
        out += ["", "[[member]]", f"id = {_toml(member.id)}", f"fate = {_toml(member.fate)}"]
        if member.token is not None:
            out.append(f"token = {member.token}")
    out += ["", "[fates]"] + [f"{_toml(key)} = {_toml(text)}" for key, text in base.fates.items()]
    return "\n".join(out) + "\n"


def _toml(text: str) -> str:
    """``text`` as a TOML basic string, every character TOML forbids there escaped."""
    escaped = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return '"' + "".join(escaped.get(ch, f"\\u{ord(ch):04x}" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch)
                         for ch in text) + '"'
