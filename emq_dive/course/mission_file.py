"""A lesson's ``[[mission]]`` tables, read and checked into typed Missions; a bad table is one MissionError."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ..engine import fate_table
from ..engine.stepper.modes import MODES
from ..engine.stepper.outcome import Raised, Reason, Verdict
from .mission_goals import AnswerGoal, MemberGoal, Mission, Need, Route, SentGoal, Stage, Start

VERBS = ("extend_lock", "extend_locks", "EMQ.EXTEND", "EMQ.EXTENDS")
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,47}")
_MISSION = ("id", "title", "goal", "hint", "proves", "route", "needs", "start", "check")
_START = ("batch", "mode", "guard_off", "wire")
_STAGE = ("mode", "wire", "done", "script", "deadlines_differ", "one_deadline", "predicted_all",
          "unread", "member", "answer",
          "sent")
_MEMBER = ("verdict", "reason", "raised", "row", "in_active", "in_pending", "reaped", "field", "without",
           "token_above")
_ANSWER = ("verb", "error", "raises", "wrote", "unpaired", "failed_in")
_SENT = ("verb", "count", "multi", "deadlines", "token_string")
RAW_VERBS = ("EVALSHA", "EMQ.EXTENDS", "EMQ.EXTEND")
"""The raw commands a console send may be about."""
_E = TypeVar("_E")


class MissionError(ValueError):
    """A mission table that cannot be used: the dotted key (``mission[2].check[0].member[0].verdict``) and why."""

    def __init__(self, key: str, problem: str) -> None:
        self.key = key
        self.problem = problem
        super().__init__(f"key {key!r}: {problem}")


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
             dict: "a table"}
    return names.get(type(value), type(value).__name__)


def _words(text: str) -> str:
    return " ".join(text.split())


class _Table:
    """One TOML table at a dotted key, with typed getters that name the key when a value is wrong."""

    def __init__(self, value: Any, key: str, allowed: tuple[str, ...]) -> None:
        if not isinstance(value, dict):
            raise MissionError(key, f"expected a table, got {_kind(value)}")
        for name in value:
            if name not in allowed:
                raise MissionError(f"{key}.{name}", f"unexpected key (one of {', '.join(allowed)})")
        self.data: Mapping[str, Any] = value
        self.key = key

    def at(self, name: str) -> str:
        return f"{self.key}.{name}"

    def raw(self, name: str, kind: type, required: bool = False) -> Any:
        if name not in self.data:
            if required:
                raise MissionError(self.at(name), "missing")
            return None
        value = self.data[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise MissionError(self.at(name), f"expected {_kind(kind())}, got {_kind(value)}")
        return value

    def text(self, name: str, required: bool = False) -> str | None:
        value = self.raw(name, str, required)
        if value is not None and not value.strip():
            raise MissionError(self.at(name), "must not be empty")
        return _words(value) if value is not None else None

    def one_of(self, name: str, allowed: Sequence[str]) -> str | None:
        value = self.text(name)
        if value is not None and value not in allowed:
            raise MissionError(self.at(name), f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def enum(self, name: str, enum: type[_E], by: Callable[[_E], str]) -> _E | None:
        members = list(enum)  # type: ignore[call-overload]
        value = self.one_of(name, [by(member) for member in members])
        return None if value is None else next(m for m in members if by(m) == value)

    def tables(self, name: str, allowed: tuple[str, ...]) -> list[_Table]:
        value = self.data.get(name, [])
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list):
            raise MissionError(self.at(name), f"expected a table or an array of tables, got {_kind(value)}")
        return [_Table(item, f"{self.at(name)}[{i}]", allowed) for i, item in enumerate(value)]


def _member(table: _Table) -> MemberGoal:
    goal = MemberGoal(
        verdict=table.enum("verdict", Verdict, lambda v: v.value),
        reason=table.enum("reason", Reason, lambda r: r.value),
        raised=table.enum("raised", Raised, lambda r: r.value),
        row=table.one_of("row", ("hash", "none")),
        in_active=table.raw("in_active", bool), in_pending=table.raw("in_pending", bool),
        reaped=table.raw("reaped", bool), field=table.text("field"), without=table.text("without"),
        token_above=table.raw("token_above", bool))
    if goal == MemberGoal():
        raise MissionError(table.key, "asks nothing of the member")
    return goal


def _answer(table: _Table) -> AnswerGoal:
    verb = table.one_of("verb", VERBS)
    if verb is None:
        raise MissionError(table.at("verb"), "missing")
    return AnswerGoal(verb=verb, error=table.text("error"), raises=table.enum("raises", Raised, lambda r: r.value),
                      wrote=table.raw("wrote", bool), unpaired=table.raw("unpaired", bool),
                      failed_in=table.one_of("failed_in", VERBS))


def _sent(table: _Table) -> SentGoal:
    count = table.raw("count", int)
    goal = SentGoal(verb=table.one_of("verb", RAW_VERBS), count=1 if count is None else count,
                    multi=table.raw("multi", bool), deadlines=table.one_of("deadlines", ("same", "differ")),
                    token_string=table.raw("token_string", bool))
    if goal.deadlines is not None and goal.count < 2:
        raise MissionError(table.at("count"), f"must be at least 2 to compare deadlines, got {goal.count}")
    if goal.count < 1:
        raise MissionError(table.at("count"), f"must be at least 1, got {goal.count}")
    if goal.deadlines is None and goal.token_string is None:
        raise MissionError(table.key, "asks nothing of the sent commands: give deadlines or token_string")
    return goal


def _stage(table: _Table) -> Stage:
    wire = table.raw("wire", int)
    if wire is not None and wire not in (4, 6):
        raise MissionError(table.at("wire"), f"expected 4 or 6, got {wire}")
    differ = table.raw("deadlines_differ", int)
    if differ is not None and differ < 2:
        raise MissionError(table.at("deadlines_differ"), f"must be at least 2, got {differ}")
    sent = table.tables("sent", _SENT)
    if len(sent) > 1:
        raise MissionError(table.at("sent"), "one sent table per stage")
    stage = Stage(mode=table.one_of("mode", tuple(MODES)), wire=wire, done=table.raw("done", bool),
                  script=table.one_of("script", ("yours",)), deadlines_differ=differ,
                  one_deadline=table.raw("one_deadline", bool),
                  predicted_all=table.raw("predicted_all", bool), unread=table.text("unread"),
                  members=tuple(_member(t) for t in table.tables("member", _MEMBER)),
                  answers=tuple(_answer(t) for t in table.tables("answer", _ANSWER)),
                  sent=_sent(sent[0]) if sent else None)
    if stage == Stage():
        raise MissionError(table.key, "asks nothing: give at least one condition")
    if sum(map(bool, (stage.answers, stage.sent, replace(stage, answers=(), sent=None) != Stage()))) > 1:
        raise MissionError(table.key, "a stage asks of verbs' answers, of a console send or of the stepped run: "
                           "one of them")
    return stage


def _start(table: _Table) -> Start:
    batch = table.raw("batch", list)
    fates = tuple(fate.key for fate in fate_table.FATES if fate.member)
    if batch is not None:
        if not batch:
            raise MissionError(table.at("batch"), "must list at least one fate")
        for i, fate in enumerate(batch):
            if fate not in fates:
                raise MissionError(f"{table.at('batch')}[{i}]", f"{fate!r} is not a member fate (one of "
                                   f"{', '.join(fates)})")
    wire = table.raw("wire", int)
    if wire is not None and wire not in (4, 6):
        raise MissionError(table.at("wire"), f"expected 4 or 6, got {wire}")
    mode = table.one_of("mode", ("batch", "singles"))
    return Start(batch=tuple(batch) if batch is not None else None, mode=mode or "batch",
                 guard_off=bool(table.raw("guard_off", bool)), wire=wire or 4)


def _mission(table: _Table, lesson_text: str) -> Mission:
    mission_id = table.text("id", required=True) or ""
    if not _ID.fullmatch(mission_id):
        raise MissionError(table.at("id"), f"{mission_id!r} is not a mission id (lower-case letters, digits, -)")
    proves = table.text("proves", required=True) or ""
    if lesson_text and proves not in lesson_text:
        raise MissionError(table.at("proves"), "is not a sentence of this lesson's text (quote it verbatim)")
    route = table.enum("route", Route, lambda r: r.value)
    if route is None:
        raise MissionError(table.at("route"), f"missing (one of {', '.join(r.value for r in Route)})")
    needs = table.raw("needs", list) or []
    known = [need.value for need in Need]
    for i, need in enumerate(needs):
        if need not in known:
            raise MissionError(f"{table.at('needs')}[{i}]", f"{need!r} is not one of {', '.join(known)}")
    stages = tuple(_stage(t) for t in table.tables("check", _STAGE))
    if not stages:
        raise MissionError(table.at("check"), "missing: a mission needs at least one [mission.check] table")
    start = _start(_Table(table.data.get("start", {}), table.at("start"), _START))
    return Mission(id=mission_id, title=table.text("title", required=True) or "",
                   goal=table.text("goal", required=True) or "", hint=table.text("hint", required=True) or "",
                   proves=proves, route=route, stages=stages, start=start, needs=tuple(Need(n) for n in needs))


def read(raw: Any, lesson_text: str = "") -> tuple[Mission, ...]:
    """The missions of a lesson file's ``mission`` array; ``lesson_text`` is the lesson's words, which each
    mission's ``proves`` must quote. Raises MissionError naming the key."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise MissionError("mission", f"expected [[mission]] tables, got {_kind(raw)}")
    missions = tuple(_mission(_Table(item, f"mission[{i}]", _MISSION), _words(lesson_text))
                     for i, item in enumerate(raw))
    seen: dict[str, int] = {}
    for i, mission in enumerate(missions):
        if mission.id in seen:
            raise MissionError(f"mission[{i}].id", f"{mission.id!r} is already the id of mission[{seen[mission.id]}]")
        seen[mission.id] = i
    return missions
