"""Running one verb from a fate's starting state, and recording what it sent, answered and wrote."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ..echo_mq import jobs, keyspace, scripts
from ..echo_mq.connector import Connector, Exchange, error_text
from ..echo_mq.render import outcome_text, short
from ..stepper.outcome import Raised, Reason
from ..stores import snapshot
from ..stores.protocol import StoreLike

VERBS = ("extend_lock", "extend_locks", "EMQ.EXTEND", "EMQ.EXTENDS")
SINGLE = frozenset({"extend_lock", "EMQ.EXTEND"})
"""The verbs that name one job; the others take the whole batch."""

read_state = snapshot.read


def wire_of(verb: str) -> int:
    """The wire a verb travels on: 6 for the native commands, 4 for the scripts."""
    return 6 if verb.startswith("EMQ.") else 4


@dataclass(frozen=True)
class Answer:
    """What one verb did from the fate's starting state: what it sent, its answer, what it wrote."""

    verb: str
    wire: int
    exchanges: tuple[Exchange, ...] = ()
    outcome: str = ""
    value: Any = None
    writes: tuple[str, ...] = ()
    unavailable: str = ""
    job: str | None = None
    """The fate's job when the answer came through the project's verbs ("" for none); None for a raw command."""
    caveat: str = ""
    """Where the store could not answer as a server would, what differs."""

    @property
    def refused(self) -> bool:
        """True when the verb raised (a refusal, an error reply, or a check before the wire) instead of answering."""
        return isinstance(self.value, Exception)

    @property
    def reason(self) -> Reason | None:
        """The refusal the single verb raised (Gone, Stale, NotActive) as the course names it, or None."""
        if not isinstance(self.value, jobs.LeaseRefused):
            return None
        return next((raised.reason for raised in Raised if raised.value == type(self.value).__name__), None)

    @property
    def sent_nothing(self) -> bool:
        """True when the verb refused before anything reached the wire."""
        return not self.exchanges

    def summary(self, most: int) -> str:
        """The outcome, with a long list of ids cut after ``most`` and counted."""
        return outcome_text(self.value, most) if isinstance(self.value, list) else self.outcome


def unavailable(reason: str, verbs: Sequence[str] = VERBS) -> tuple[Answer, ...]:
    """An answer per verb that could not run here, saying why."""
    return tuple(Answer(verb, wire_of(verb), unavailable=reason) for verb in verbs)


_EMBEDDED_LUA = re.compile(r'^(?P<head>ERR Error running script) \(call to f_[0-9a-f]{40}\): @user_script:\?: '
                           r'\[string "<python>"\]:(?P<line>\d+): (?P<message>.*?)(?:\nstack traceback:.*)?$', re.S)
"""A script error as the embedded store's Lua words it: fakeredis's call name, its chunk name, its traceback."""


@dataclass(frozen=True)
class LuaError:
    """A script that failed at run time: the script, the line it failed on, and Lua's message."""

    script: scripts.Script
    line: int
    message: str
    head: str

    @property
    def source_line(self) -> str:
        """The failing line of the project's own script, without its ``-- @marker``."""
        text = self.script.lines[self.line - 1] if 0 < self.line <= len(self.script.lines) else ""
        return re.sub(r"\s*--\s*@[a-z-]+\s*$", "", text).strip()

    @property
    def reply(self) -> str:
        """The embedded store's reply with its Lua internals cut: the class, the line and the message."""
        return f"{self.head} {self.script.name}.lua:{self.line}: {self.message}"


def embedded_lua_error(exchange: Exchange) -> LuaError | None:
    """The script error in ``exchange``'s reply when the embedded store's own Lua worded it, else None."""
    reply = exchange.reply
    if not isinstance(reply, redis.ResponseError) or len(exchange.sent) < 2:
        return None
    match = _EMBEDDED_LUA.match(error_text(reply))
    by_sha = {script.sha.encode(): script for script in (scripts.extend_locks(), scripts.extend_lock())}
    script = by_sha.get(bytes(exchange.sent[1]))
    if match is None or script is None:
        return None
    return LuaError(script, int(match["line"]), match["message"], match["head"])


def _caveat(exchanges: Sequence[Exchange]) -> str:
    """What the embedded store words its own way in ``exchanges``, or empty."""
    error = next((e for e in map(embedded_lua_error, exchanges) if e is not None), None)
    if error is None:
        return ""
    return (f"the script fails on line {error.line}: {error.source_line}. fakeredis's own Lua "
            "words this error (its internals are cut here); a real server words it its own way")


def _diff(before: dict[bytes, Any], after: dict[bytes, Any], queue: str) -> tuple[str, ...]:
    """Each key or hash field that changed, as ``name: old → new`` with the queue's prefix left off."""
    prefix = keyspace.queue_key(queue, "")
    out = []
    for key in sorted(set(before) | set(after)):
        name = key.decode().removeprefix(prefix)
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for field_name in sorted(set(old) | set(new)):
                if old.get(field_name) != new.get(field_name):
                    out.append(f"{name} {field_name.decode()}: {short(old.get(field_name))} → "
                               f"{short(new.get(field_name))}")
        else:
            out.append(f"{name}: {short(old)} → {short(new)}")
    return tuple(out)


def run_verb(store: StoreLike, verb: str, call: Callable[[Connector], Any],
             client: redis.Redis | None = None, job: str | None = None) -> Answer:
    """Run ``call`` on a fresh connector for ``verb``'s wire; record the wire, the answer and the writes.

    ``job`` names the fate's job ("" for none) when ``call`` goes through the project's verbs, so the answer can
    be read in the course's terms.
    """
    wire = wire_of(verb)
    if wire == 6 and not store.native:
        return Answer(verb, wire, unavailable=f"not on this backend: {store.native_reason}")
    conn = Connector(client or store.client, wire)
    before = read_state(store.client, store.queue)
    value: Any
    try:
        value = call(conn)
    except (jobs.LeaseRefused, redis.ResponseError, ValueError, TypeError) as err:
        value = err
    after = read_state(store.client, store.queue)
    exchanges = tuple(conn.log)
    outcome = outcome_text(value)
    lua = embedded_lua_error(exchanges[-1]) if exchanges else None
    if lua is not None and isinstance(value, redis.ResponseError):
        outcome = f"raises ResponseError: {lua.reply}"
    return Answer(verb, wire, exchanges, outcome, value, _diff(before, after, store.queue), job=job,
                  caveat=_caveat(exchanges))


def four(store: StoreLike, single: tuple[str, Any], held: Sequence[tuple[str, Any]], lease: Any,
         client: redis.Redis | None = None) -> tuple[Answer, ...]:
    """The four verbs through the project's own Python verbs, each from the same starting state."""
    queue = store.queue
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        call: Callable[[Connector], Any]
        if verb in SINGLE:
            call = lambda conn: jobs.extend_lock(conn, queue, single[0], single[1], lease)  # noqa: E731
        else:
            call = lambda conn: jobs.extend_locks(conn, queue, list(held), lease)  # noqa: E731
        answers.append(run_verb(store, verb, call, client, job=single[0]))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)


def raw_four(store: StoreLike, single: Sequence[Any], batch: Sequence[Any], numkeys: Any = 2,
             first_key: str | None = None) -> tuple[Answer, ...]:
    """The four verbs as raw wire commands, so inputs the Python verbs refuse can still be sent."""
    queue = store.queue
    active = first_key or keyspace.queue_key(queue, "active")
    row = keyspace.job_key(queue, single[1])
    start = snapshot.take(store.client, queue)
    answers = []
    for verb in VERBS:
        if verb in SINGLE:
            script, keys, argv = scripts.extend_lock(), [active, row], single
        else:
            script, keys, argv = scripts.extend_locks(), [active, keyspace.queue_key(queue, "")], batch
        call = lambda conn, s=script, k=keys, a=argv: conn.eval(s, k, a, numkeys=numkeys)  # noqa: E731
        answers.append(run_verb(store, verb, call))
        snapshot.restore(store.client, queue, start)
    return tuple(answers)
