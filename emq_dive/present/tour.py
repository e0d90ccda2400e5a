"""A tour slide's words for the run on screen: its ``{fields}`` read from the frame, in the wording every view says."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..course.lessons import Lesson
from ..course.tour_file import Slide
from ..engine.echo_mq.render import text, wire_text
from ..engine.echo_mq.wires import wire
from ..engine.stepper.model import Member
from ..engine.stepper.outcome import Reason
from .session import Frame
from .step_words import check_text, failed_text, verdict_text

CHECKS = ("row", "token", "in active")
"""The three checks' names, in the code's order."""
SHOWN = 8
"""Arguments of the command a slide says before it counts the rest."""


def _layout(command: Sequence[bytes]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The KEYS and the ARGV of a batch command as sent: the count of keys stands just before them (the script's
    SHA comes first on EVALSHA, nothing on EMQ.EXTENDS)."""
    words = [text(part) for part in command]
    at = next((i for i, word in enumerate(words[1:3], 1) if word.isdigit()), None)
    if at is None:
        return (), tuple(words[1:])
    count = int(words[at])
    return tuple(words[at + 1:at + 1 + count]), tuple(words[at + 1 + count:])


def _member(frame: Frame) -> Member | None:
    """The member this step checked, or None at the handle and past the last member."""
    step = frame.step
    return step.members[step.index - 1] if 1 <= step.index <= len(step.members) else None


def _pairs(frame: Frame) -> str:
    argv = _layout(frame.step.command)[1][1:]
    pairs = [f"{argv[i]} {argv[i + 1]}" for i in range(0, len(argv) - 1, 2)]
    return ", ".join(pairs[:SHOWN]) + (f", … ({len(pairs):,} pairs in all)" if len(pairs) > SHOWN else "")


def _checks(frame: Frame) -> str:
    member = _member(frame)
    if member is None:
        return "no member is checked at this step"
    return "; ".join(f"{name} {check_text(member, which, frame.step.now)[0]}" for which, name in enumerate(CHECKS))


def _verdict(frame: Frame) -> str:
    member = _member(frame)
    return verdict_text(member, frame.step.now)[0] if member is not None else "none at this step"


def _ids(ids: Sequence[str], none: str) -> str:
    return ", ".join(ids[:SHOWN]) + (f", … ({len(ids):,} in all)" if len(ids) > SHOWN else "") if ids else none


def _epoch(frame: Frame) -> str:
    stamped = {text(m.epoch) for m in frame.step.members if m.epoch is not None}
    return f"lease_epoch = {', '.join(sorted(stamped))}" if stamped else "no row stamped yet on this run"


Reader = Callable[[Frame, Lesson, str], str]

READERS: dict[str, Reader] = {
    "step": lambda f, _l, _s: str(f.step.index),
    "count": lambda f, _l, _s: str(f.step.count),
    "wire": lambda f, _l, _s: wire(f.wire).label,
    "command": lambda f, _l, _s: wire_text(f.step.command, SHOWN),
    "key1": lambda f, _l, _s: next(iter(_layout(f.step.command)[0]), "none"),
    "key2": lambda f, _l, _s: (_layout(f.step.command)[0][1:2] or ("none",))[0],
    "lease": lambda f, _l, _s: str(f.step.lease_ms),
    "pairs": lambda f, _l, _s: _pairs(f),
    "now": lambda f, _l, _s: str(f.step.now) if f.step.now is not None else "not read yet",
    "index": lambda f, _l, _s: str(f.step.index) if _member(f) is not None else "none",
    "member": lambda f, _l, _s: m.id if (m := _member(f)) is not None else "none",
    "checks": lambda f, _l, _s: _checks(f),
    "verdict": lambda f, _l, _s: _verdict(f),
    "failed": lambda f, _l, _s: failed_text(f.step),
    "answer": lambda f, _l, _s: f.answer or ("being worked out" if f.checking else
                                             "nothing yet (the run is not over)"),
    "pending": lambda f, _l, _s: _ids(f.view.pending, "no id"),
    "not_active": lambda f, _l, _s: _ids([m.id for m in f.step.members if m.reason is Reason.NOT_ACTIVE], "no id"),
    "epoch": lambda f, _l, _s: _epoch(f),
    "section": lambda _f, lesson, key: next((s.title for s in lesson.sections if s.key == key), key or "its start"),
}
"""How each live value a slide may name (tour_file.FIELDS, in its order) is read from the frame on screen."""


def slide_text(slide: Slide, frame: Frame, lesson: Lesson, section: str = "") -> str:
    """``slide``'s text with each ``{field}`` read from ``frame`` (``section`` is the lesson section on show)."""
    return slide.body.format(**{name: READERS[name](frame, lesson, section) for name in slide.fields})


def heading(slide: Slide, at: int, count: int) -> str:
    """``tour 3/8 · Three checks, in order``."""
    return f"tour {at + 1}/{count} · {slide.title}"
