"""One lesson file: parsed, validated against the handle's limits, and typed; any problem is one LessonError."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..engine import fate_table
from ..engine.echo_mq import jobs, keyspace
from . import mission_file
from .mission_goals import Mission

MAX_MEMBERS = 10_000
"""The most members a lesson's batch (or the sandbox's) may hold."""

SOURCES = ("handle", "lua", "native")
"""The step sources a section may follow: jobs.py, extend_locks.lua and native.py."""

FATES = tuple(fate.key for fate in fate_table.FATES)
"""Every fate key a lesson's ``[fates]`` table must describe."""
MEMBER_FATES = tuple(fate.key for fate in fate_table.FATES if fate.member)
"""The fates a member of the lesson's batch may have (a whole-call fate is no member's)."""

_TOP = ("id", "module", "dive", "title", "tagline", "intro", "lease_ms", "claim_lease_ms",
        "batch", "section", "fates", "member", "tour", "mission")  # [[tour]] slides: course/tour_file.py
_SECTION = ("key", "title", "follows", "body")
_MEMBER = ("id", "fate", "token")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file and the offending key."""

    def __init__(self, path: Path | None, key: str | None, problem: str) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        message = f"key {key!r}: {problem}" if key else problem
        super().__init__(f"{_shown(path)}: {message}" if path is not None else message)


@dataclass(frozen=True)
class Section:
    """One titled block of lesson text, and the step sources it goes with."""

    key: str
    title: str
    body: str
    follows: tuple[str, ...]


@dataclass(frozen=True)
class LessonMember:
    """One member of a lesson's batch as a sandbox saved it: its id, its fate, and the token it is sent with."""

    id: str
    fate: str
    token: int | None = None
    """The token the holder sends; None sends the attempts it claimed under."""


@dataclass(frozen=True)
class Lesson:
    """One dive of the course: its text, the default batch and the fate descriptions."""

    id: str
    module: str
    dive: int
    title: str
    tagline: str
    intro: str
    lease_ms: int
    claim_lease_ms: int
    batch: tuple[str, ...]
    sections: tuple[Section, ...]
    fates: Mapping[str, str] = field(hash=False)
    path: Path
    members: tuple[LessonMember, ...] = ()
    """The batch's ids and tokens, when the file names them (``[[member]]`` tables, one per ``batch`` entry)."""
    missions: tuple[Mission, ...] = ()
    """The lesson's goals to reach (``[[mission]]`` tables), in the file's order."""

    @property
    def heading(self) -> str:
        """The full heading, such as ``Batches · dive 03 — Batch lease extension``."""
        return f"{self.module} · dive {self.dive:02d} — {self.title}"

    def section_for(self, source: str) -> Section | None:
        """The first section that follows ``source`` (``handle``, ``lua`` or ``native``), if any."""
        return next((s for s in self.sections if source in s.follows), None)


def _shown(path: Path) -> str:
    """The path relative to the working directory when it lies below it, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_file(path: Path) -> Lesson:
    """Parse and validate one lesson file; any problem raises one LessonError."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise LessonError(path, None, f"cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise LessonError(path, None, "not valid UTF-8") from None
    except tomllib.TOMLDecodeError as err:
        raise LessonError(path, None, f"invalid TOML: {err}") from None
    except RecursionError:
        raise LessonError(path, None, "invalid TOML: its arrays or tables are nested too deeply to read") from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise LessonError(path, None, f"invalid TOML: {err}") from None
    return _Reader(path).lesson(data)


class _Reader:
    """Typed access to one parsed file, raising LessonError with the key's dotted name."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> LessonError:
        return LessonError(self.path, key, problem)

    def get(self, table: Mapping[str, Any], name: str, key: str) -> Any:
        if name not in table:
            raise self.fail(key, "missing")
        return table[name]

    def text(self, table: Mapping[str, Any], name: str, key: str) -> str:
        value = self.get(table, name, key)
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {_kind(value)}")
        value = value.strip()
        if not value:
            raise self.fail(key, "must not be empty")
        return value

    def positive(self, table: Mapping[str, Any], name: str, key: str) -> int:
        value = self.get(table, name, key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, got {_kind(value)}")
        if value <= 0:
            raise self.fail(key, f"must be positive, got {value}")
        return value

    def lease(self, table: Mapping[str, Any], name: str) -> int:
        value = self.positive(table, name, name)
        try:
            return jobs.check_lease(value)
        except jobs.BadLease as err:
            raise self.fail(name, str(err)) from None

    def strings(self, table: Mapping[str, Any], name: str, key: str, allowed: tuple[str, ...],
                what: str) -> tuple[str, ...]:
        value = self.get(table, name, key)
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list, got {_kind(value)}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{index}]", f"expected a string, got {_kind(item)}")
            if item not in allowed:
                raise self.fail(f"{key}[{index}]",
                                f"{item!r} is not {what} (one of {', '.join(allowed)})")
        return tuple(value)

    def only(self, table: Mapping[str, Any], names: tuple[str, ...], prefix: str) -> None:
        for name in table:
            if name not in names:
                raise self.fail(prefix + name, "unexpected key")

    def section(self, table: Any, index: int) -> Section:
        at = f"section[{index}]"
        if not isinstance(table, dict):
            raise self.fail(at, f"expected a table, got {_kind(table)}")
        self.only(table, _SECTION, at + ".")
        return Section(
            key=self.text(table, "key", f"{at}.key"),
            title=self.text(table, "title", f"{at}.title"),
            body=self.text(table, "body", f"{at}.body"),
            follows=self.strings(table, "follows", f"{at}.follows", SOURCES, "a step source"),
        )

    def fates(self, data: Mapping[str, Any]) -> MappingProxyType[str, str]:
        table = self.get(data, "fates", "fates")
        if not isinstance(table, dict):
            raise self.fail("fates", f"expected a table, got {_kind(table)}")
        self.only(table, FATES, "fates.")
        return MappingProxyType({name: self.text(table, name, f"fates.{name}") for name in FATES})

    def members(self, data: Mapping[str, Any], batch: tuple[str, ...]) -> tuple[LessonMember, ...]:
        tables = data.get("member", [])
        if not isinstance(tables, list):
            raise self.fail("member", f"expected [[member]] tables, got {_kind(tables)}")
        if tables and len(tables) != len(batch):
            raise self.fail("member", f"{len(tables)} [[member]] tables for {len(batch)} batch entries")
        out: list[LessonMember] = []
        seen: set[str] = set()
        for index, table in enumerate(tables):
            at = f"member[{index}]"
            if not isinstance(table, dict):
                raise self.fail(at, f"expected a table, got {_kind(table)}")
            self.only(table, _MEMBER, at + ".")
            job_id, fate = self.text(table, "id", f"{at}.id"), self.text(table, "fate", f"{at}.fate")
            try:
                keyspace.gate(job_id)
            except keyspace.IllFormed as err:
                raise self.fail(f"{at}.id", f"{job_id!r} is ill-formed: {err.rule}") from None
            if job_id in seen:
                raise self.fail(f"{at}.id", f"{job_id!r} is already the id of another member")
            if fate != batch[index]:
                raise self.fail(f"{at}.fate", f"{fate!r} differs from batch[{index}] = {batch[index]!r}")
            token = table.get("token")
            if token is not None and (isinstance(token, bool) or not isinstance(token, int)):
                raise self.fail(f"{at}.token", f"expected an integer, got {_kind(token)}")
            if token is not None:
                try:
                    jobs.check_token(job_id, token)
                except jobs.BadToken as err:
                    raise self.fail(f"{at}.token", str(err)) from None
            seen.add(job_id)
            out.append(LessonMember(job_id, fate, token))
        return tuple(out)

    def lesson(self, data: Mapping[str, Any]) -> Lesson:
        self.only(data, _TOP, "")
        lesson_id = self.text(data, "id", "id")
        if lesson_id != self.path.stem:
            raise self.fail("id", f"{lesson_id!r} does not match the file name {self.path.name!r}")
        raw_sections = self.get(data, "section", "section")
        if not isinstance(raw_sections, list) or not raw_sections:
            raise self.fail("section", "expected at least one [[section]] table")
        sections = tuple(self.section(table, i) for i, table in enumerate(raw_sections))
        seen: dict[str, int] = {}
        for index, sec in enumerate(sections):
            if sec.key in seen:
                raise self.fail(f"section[{index}].key",
                                f"{sec.key!r} is already the key of section[{seen[sec.key]}]")
            seen[sec.key] = index
        batch = self.strings(data, "batch", "batch", MEMBER_FATES, "a member fate")
        if not batch:
            raise self.fail("batch", "must list at least one fate")
        if len(batch) > MAX_MEMBERS:
            raise self.fail("batch", f"a batch may hold at most {MAX_MEMBERS:,} members, not {len(batch):,}")
        try:
            missions = mission_file.read(data.get("mission"), " ".join(
                [str(data.get("intro", "")), *(s.body for s in sections)]))
        except mission_file.MissionError as err:
            raise self.fail(err.key, err.problem) from None
        return Lesson(
            missions=missions,
            id=lesson_id,
            module=self.text(data, "module", "module"),
            dive=self.positive(data, "dive", "dive"),
            title=self.text(data, "title", "title"),
            tagline=self.text(data, "tagline", "tagline"),
            intro=self.text(data, "intro", "intro"),
            lease_ms=self.lease(data, "lease_ms"),
            claim_lease_ms=self.lease(data, "claim_lease_ms"),
            batch=batch,
            sections=sections,
            fates=self.fates(data),
            path=self.path,
            members=self.members(data, batch),
        )


def _kind(value: object) -> str:
    """A TOML-flavoured name for a value's type, for error messages."""
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
             list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)
