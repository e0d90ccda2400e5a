"""What a fate's run shows, read off the real answers: who was re-scored, the script's first load, what differs."""

from __future__ import annotations

from collections.abc import Sequence

import redis

from ..echo_mq.connector import Exchange, error_text
from .answers import Answer
from .runs import FateRun
from .wire_compare import differences, error_class

FIRST_USE = "the server loads the script (first use): EVALSHA → NOSCRIPT, then SCRIPT LOAD"
"""The one line a card shows for the first EVALSHA of a script the server had not cached yet."""


def rescored(answer: Answer) -> list[str]:
    """The ids the answer re-scored in active, as its writes record them, in the order the command sent them."""
    ids = [w.removeprefix("active ").split(": ", 1)[0] for w in answer.writes if w.startswith("active ")]
    sent = [arg.decode("utf-8", "replace") for arg in answer.exchanges[-1].sent] if answer.exchanges else []
    order = {job: place for place, job in reversed(list(enumerate(sent)))}
    return sorted(ids, key=lambda job: order.get(job, len(sent)))


def loads_script(exchanges: Sequence[Exchange], index: int) -> bool:
    """True when exchange ``index`` is an EVALSHA the server answered NOSCRIPT, followed by its SCRIPT LOAD."""
    if index + 2 >= len(exchanges):
        return False
    first, load, again = exchanges[index : index + 3]
    return (isinstance(first.reply, redis.ResponseError) and error_text(first.reply).startswith("NOSCRIPT")
            and load.sent[:2] == (b"SCRIPT", b"LOAD") and again.sent[:2] == first.sent[:2])


def _declared(answer: Answer) -> tuple[bytes, ...]:
    """The keys the answer's last command declared (after its key count)."""
    sent = answer.exchanges[-1].sent if answer.exchanges else ()
    start = 2 if sent[:1] != (b"EVALSHA",) else 3
    try:
        count = int(sent[start - 1])
    except (IndexError, ValueError):
        return ()
    return tuple(sent[start : start + count])


def _acl_note(single: Answer, batch: Answer) -> str:
    """Why wire 4 refuses the single and serves the batch for one user, when the answers show it."""
    if error_class(single) != "NOPERM" or not isinstance(batch.value, list):
        return ""
    if not any(b":job:" in key for key in _declared(single)) or any(b":job:" in k for k in _declared(batch)):
        return ""
    return ("on wire 4 the single verb is refused and the batch is served, for the same user: the single "
            "declares the job's row key (its KEYS[2]), and the server checks every key a script declares for "
            "write access before the script runs, which this user lacks; the batch declares only active and "
            "the queue's base key and builds each row key inside the script, where its HGET is checked as the "
            "read it is, which this user may do")


def _by_verb(answers: Sequence[Answer]) -> dict[str, Answer]:
    return {answer.verb: answer for answer in answers}


def _groups(answers: Sequence[Answer]) -> list[dict[str, Answer]]:
    """The answers in runs of the four verbs (raw rows come four at a time, one run per input)."""
    return [_by_verb(answers[i : i + 4]) for i in range(0, len(answers), 4)]


def _raw_argv(native: Answer) -> list[str] | None:
    sent = native.exchanges[-1].sent if native.exchanges else ()
    return [arg.decode("utf-8", "replace") for arg in sent[4:]] if len(sent) >= 4 else None


def notes(run: FateRun) -> list[str]:
    """Each difference the run's answers show, in order, without repeats."""
    out: list[str] = []
    for raw, group in [(False, g) for g in _groups(run.answers)] + [(True, g) for g in _groups(run.raw_answers)]:
        single, batch = group.get("extend_lock"), group.get("extend_locks")
        if single is not None and batch is not None:
            out.append(_acl_note(single, batch))
        native = group.get("EMQ.EXTENDS")
        if batch is None or native is None or batch.unavailable or native.unavailable:
            continue
        if batch.sent_nothing and native.sent_nothing:
            out.append("nothing reached the wire: every verb refused the input before sending it")
            continue
        out.extend(differences(batch, native, _raw_argv(native) if raw else None))
    return [note for note in dict.fromkeys(out) if note]


def what_differs(run: FateRun) -> str:
    """The run's one "what differs" line: every difference its answers show, or why nothing could be compared."""
    found = notes(run)
    if found:
        return "what differs: " + "; ".join(found)
    unavailable = next((a.unavailable for a in (*run.answers, *run.raw_answers) if a.unavailable), "")
    if unavailable:
        return f"what differs: nothing could be compared here ({unavailable})"
    return "what differs: nothing: every verb that ran answered alike"

