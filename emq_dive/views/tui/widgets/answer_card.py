"""One verb's answer from a real run: what it sent, what came back, what it wrote, or why it could not run."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ....engine.echo_mq.render import MAX_ARGS, MAX_ITEMS, MAX_LINES, listed, reply_text, wire_text
from ....engine.fates import Answer
from ....engine.fates.answers import SINGLE, embedded_lua_error
from ....engine.fates.differs import FIRST_USE, loads_script, rescored
from .shorthand import Shorthand, base_of
from .style import foreground

SHA_HEX = 40
"""The hex digits of a script's SHA1, which the card shortens."""


def course_answer(answer: Answer) -> str:
    """What the course's verb answers where the project's verb gave ``answer``, or empty where the course is silent.

    ``extend_lock/5`` answers ``:ok`` or ``{:error, :gone | :stale | :not_active}``; ``extend_locks/4`` answers
    ``{:ok, failed}``. A raw wire command has no course verb.
    """
    if answer.job is None or answer.unavailable:
        return ""
    value = answer.value
    if answer.verb in SINGLE:
        if value is None:
            return "the course's extend_lock/5: :ok · re-scored"
        reason = answer.reason
        return f"the course's extend_lock/5: {reason.course}" if reason else ""
    if not isinstance(value, list):
        return ""
    failed = [str(job) for job in value]
    ids = listed([f'"{job}"' for job in failed], most=MAX_ITEMS)
    shown = f"the course's extend_locks/4: {{:ok, [{ids}]}}"
    if not answer.job:
        return shown
    joined = f" · {answer.job} joins failed" if answer.job in failed else ""
    renewed = rescored(answer)
    return f"{shown}{joined} · re-scored: {listed(renewed, most=MAX_ITEMS) if renewed else 'none'}"


ROLES = {"faint": "", "ok": "green", "bad": "red", "wrote": "yellow"}
"""The card's style roles, as plain Rich styles for a card not yet on screen (on screen: the theme's colours)."""


RUN_ID = re.compile(r"\b[0-9a-f]{40}\b")
"""A run_id (a lease_epoch's value): shown by its two ends unless the keys are shown whole (v)."""


def short_ids(line: str) -> str:
    """``line`` with each run_id as its two ends (``0000…0000``), so ``lease_epoch: ∅ → 0000…0000`` keeps a row."""
    return RUN_ID.sub(lambda found: f"{found[0][:4]}…{found[0][-4:]}", line)


def answer_text(answer: Answer, sha_width: int = 10, roles: Mapping[str, str | Style] = ROLES,
                whole: bool = False) -> Text:
    """The answer as lines: outcome, each exchange and its raw reply, and the writes, in the styles ``roles``
    names; the queue's keys are named whole once, then as ``emq:{q}:…``, unless ``whole``."""
    faint = roles["faint"]
    names = Shorthand(base_of(arg for exchange in answer.exchanges for arg in exchange.sent), None, whole)
    out = Text()
    if answer.unavailable:
        out.append("unavailable: ", style="bold")
        out.append(answer.unavailable, style="italic")
        return out
    failed = answer.refused
    verdict = roles["bad" if failed else "ok"]
    out.append(answer.summary(MAX_ITEMS), style=Style(bold=True) + (Style.parse(verdict) if isinstance(verdict, str)
                                                                    else verdict))
    course = course_answer(answer)
    if course:
        out.append("\n" + course, style="bold")
    if answer.sent_nothing:
        out.append("\nsent nothing: refused before the wire", style=faint)
    skip = 0
    for index, exchange in enumerate(answer.exchanges):
        if skip:
            skip -= 1
            continue
        if loads_script(answer.exchanges, index):
            out.append(f"\n» {FIRST_USE}", style=faint)
            skip = 1
            continue
        out.append("\n» ", style=faint)
        if exchange.sent[:2] == (b"SCRIPT", b"LOAD") and len(exchange.sent) == 3:
            out.append(f"SCRIPT LOAD <the script's source, {len(exchange.sent[2])} bytes>")
        else:
            sent = [a[:sha_width] + "…".encode() if len(a) == SHA_HEX and a.isalnum() else a for a in exchange.sent]
            out.append(wire_text(names.args(sent), MAX_ARGS))
        lua = embedded_lua_error(exchange)
        reply = f"(error) {lua.reply}" if lua is not None else reply_text(names.reply(exchange.reply), MAX_ITEMS)
        out.append("\n  → " + reply, style=roles["bad" if exchange.failed else "ok"])
    out.append("\nwrote: ", style=faint)
    if answer.writes:
        for write in answer.writes[:MAX_LINES]:
            out.append("\n  " + (write if whole else short_ids(write)), style=roles["wrote"])
        if len(answer.writes) > MAX_LINES:
            out.append(f"\n  … and {len(answer.writes) - MAX_LINES} more writes", style=faint)
    else:
        out.append("nothing", style=faint)
    if answer.caveat:
        out.append("\n" + answer.caveat, style="italic")
    return out


class AnswerCard(Static):
    """Shows one Answer in a titled box."""

    DEFAULT_CSS: ClassVar[str] = """
    AnswerCard {
        height: auto;
        border: round $primary 50%;
        border-title-color: $text-primary;
        border-title-style: bold;
        padding: 0 1;
    }
    AnswerCard > .answer-card--faint { color: $text-muted; }
    AnswerCard > .answer-card--ok { color: $text-success; }
    AnswerCard > .answer-card--bad { color: $text-error; }
    AnswerCard > .answer-card--wrote { color: $text-warning; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"answer-card--{role}" for role in ROLES}

    whole: reactive[bool] = reactive(False, init=False)
    """True when the queue's keys are shown whole, not as ``emq:{q}:…`` after the first."""

    def __init__(self, answer: Answer, **kwargs: object) -> None:
        super().__init__(answer_text(answer), **kwargs)  # type: ignore[arg-type]
        self.answer = answer
        self.border_title = f"{answer.verb} · wire {answer.wire}"

    def on_mount(self) -> None:
        # the asides take the theme's faint colour, which meets AA contrast, once the card's styles are known
        self._draw()

    def watch_whole(self) -> None:
        self._draw()

    def _draw(self) -> None:
        roles = {role: foreground(self.get_component_rich_style(f"answer-card--{role}")) for role in ROLES}
        self.update(answer_text(self.answer, roles=roles, whole=self.whole))
